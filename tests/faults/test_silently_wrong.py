"""Promise: bad input is refused or reported, never scored into a silently wrong number."""

import hashlib
import json
import sqlite3

import pytest
from conftest import MINI_RELEASE, run
from helpers import LOCOMO, assert_one_line_error, export_hashing, mutated_json


def test_locomo_with_a_duplicate_sample_id_is_refused(tmp_path):
    bad = mutated_json(
        LOCOMO, tmp_path / "dup.json", lambda d: d.__setitem__(1, {**d[1], "sample_id": d[0]["sample_id"]})
    )
    result = run("locomo", "--data", bad, "--modes", "fts5", "--quiet", "--output", tmp_path / "r.json")
    assert_one_line_error(result, "'conv-a' appears twice")
    assert not (tmp_path / "r.json").exists()


def test_trec_scores_that_are_not_finite_are_refused(tmp_path):
    rankings = export_hashing(tmp_path)
    lines = []
    for row in map(json.loads, rankings.read_text().splitlines()):
        for rank, doc in enumerate(row["ranked_episode_ids"], start=1):
            lines.append(f"{row['probe_id']} Q0 {doc} {rank} {10 - rank} run")
    lines[0] = lines[0].rsplit(" ", 2)[0] + " nan run"
    lines[5] = lines[5].rsplit(" ", 2)[0] + " inf run"
    trec = tmp_path / "run.trec"
    trec.write_text("\n".join(lines) + "\n")
    result = run("evaluate", trec, "--data", MINI_RELEASE, "--output", tmp_path / "r.json")
    assert_one_line_error(result, "line 1: score must be a finite number, got nan")
    assert "line 6: score must be a finite number, got inf" in result.output


def test_when_rank_and_score_disagree_the_score_decides_as_in_trec_eval(tmp_path):
    rankings = export_hashing(tmp_path)
    lines = []
    for row in map(json.loads, rankings.read_text().splitlines()):
        ids = row["ranked_episode_ids"]
        for position, doc in enumerate(ids):
            # the rank column says the reverse order; the scores keep the exported order
            lines.append(f"{row['probe_id']} Q0 {doc} {len(ids) - position} {100 - position} run")
    trec = tmp_path / "run.trec"
    trec.write_text("\n".join(lines) + "\n")
    result = run("evaluate", trec, "--data", MINI_RELEASE, "--output", tmp_path / "r.json", "--name", "hashing")
    assert result.exit_code == 0, result.output
    replay = run("evaluate", rankings, "--data", MINI_RELEASE, "--output", tmp_path / "j.json")
    assert replay.exit_code == 0, replay.output
    from_trec = json.loads((tmp_path / "r.json").read_text())["content"]
    from_jsonl = json.loads((tmp_path / "j.json").read_text())["content"]
    assert from_trec["systems"]["hashing"]["results"] == from_jsonl["systems"]["hashing"]["results"]


def test_score_ties_in_a_trec_run_go_by_document_id_descending():
    from memrecall.data.rankings import parse_rankings_text

    rows, problems = parse_rankings_text("q1 Q0 a 1 5.0 r\nq1 Q0 c 2 5.0 r\nq1 Q0 b 3 7.0 r\n")
    assert problems == [] and rows[0].doc_ids == ("b", "c", "a")


def test_the_rankings_file_is_read_once_and_its_bytes_are_what_is_hashed(tmp_path):
    rankings = export_hashing(tmp_path)
    result = run("evaluate", rankings, "--data", MINI_RELEASE, "--output", tmp_path / "r.json")
    assert result.exit_code == 0, result.output
    env = json.loads((tmp_path / "r.json").read_text())["env"]
    assert env["rankings_files"][str(rankings)] == hashlib.sha256(rankings.read_bytes()).hexdigest()


def test_a_hand_edited_report_is_refused_unless_allowed_and_then_marked_unverified(tmp_path):
    rankings = export_hashing(tmp_path)
    assert run("evaluate", rankings, "--data", MINI_RELEASE, "--output", tmp_path / "r.json").exit_code == 0
    report = json.loads((tmp_path / "r.json").read_text())
    report["content"]["systems"]["hashing"]["results"]["overall"]["recall@3"]["value"] = 0.99
    (tmp_path / "r.json").write_text(json.dumps(report))
    refused = run("report", tmp_path / "r.json", "--out", tmp_path / "card")
    assert_one_line_error(refused, "UNVERIFIED: fingerprint: recorded")
    assert not (tmp_path / "card").exists()
    allowed = run("report", tmp_path / "r.json", "--out", tmp_path / "card", "--allow-unverified")
    assert allowed.exit_code == 0, allowed.output
    assert "**UNVERIFIED" in (tmp_path / "card" / "README.md").read_text()


def test_rater_files_with_the_same_name_stay_two_raters(tmp_path):
    from corpus_factory import persona, write_checkout

    root = write_checkout(tmp_path / "co", [persona(1), persona(2)])
    assert run("build", "--root", root).exit_code == 0
    sheet = tmp_path / "sample.csv"
    assert run("labels", "sample", "--root", root, "--size", "6", "--output", sheet).exit_code == 0
    ids = [line.split(",")[0] for line in sheet.read_text().splitlines()[1:]]
    header = "episode_id,text,intensity_band,valence,notes\n"
    for rater, band in (("a", "low"), ("b", "high")):
        (tmp_path / rater).mkdir()
        (tmp_path / rater / "r.csv").write_text(header + "".join(f"{i},x,{band},neutral,\n" for i in ids))
    result = run(
        "labels",
        "agree",
        "--root",
        root,
        tmp_path / "a" / "r.csv",
        tmp_path / "b" / "r.csv",
        "--sample",
        sheet,
        "--out-dir",
        tmp_path / "out",
    )
    assert result.exit_code == 0, result.output
    summary = json.loads((tmp_path / "out" / "agreement.json").read_text())
    assert len(summary["pairs"]) == 1 and "r.csv" in next(iter(summary["pairs"]))
    assert summary["pairs"][next(iter(summary["pairs"]))]["band_exact"] == 0.0


@pytest.mark.slow
def test_zeroed_vectors_in_the_embedding_cache_are_encoded_again_not_used(tmp_path):
    args = ["baseline", "--data", MINI_RELEASE, "--strategies", "dense", "--quiet", "--cache-dir", tmp_path / "cache"]
    assert run(*args, "--output", tmp_path / "clean.json").exit_code == 0
    db = sqlite3.connect(tmp_path / "cache" / "vectors-v2.sqlite")
    keys = [k for (k,) in db.execute("SELECT text_sha256 FROM vectors LIMIT 5")]
    with db:
        for key in keys:
            db.execute("UPDATE vectors SET vector = zeroblob(length(vector)) WHERE text_sha256 = ?", [key])
    db.close()
    result = run(*args, "--output", tmp_path / "again.json")
    assert result.exit_code == 0, result.output
    assert "5 damaged vector(s)" in result.output
    clean = json.loads((tmp_path / "clean.json").read_text())
    again = json.loads((tmp_path / "again.json").read_text())
    assert again["content_sha256"] == clean["content_sha256"]
    assert again["env"]["damaged_cache_rows_reencoded"] == 5 and again["env"]["texts_encoded"] == 5
