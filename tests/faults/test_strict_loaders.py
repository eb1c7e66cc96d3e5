"""Promise: loaders are strict (exact ids, strtod scores, dates in order) and memrecall reads back its own files."""

from __future__ import annotations

import copy
import json
import unicodedata

import pytest
from conftest import LOCOMO_MISSING, MINI_RELEASE, SHARED_DATA, run
from helpers import LME, LOCOMO, assert_one_line_error, export_hashing, mutated_json

REAL_LOCOMO = SHARED_DATA / "locomo10.json"
ODD = "a\u2028b\u2029c\x85d\fe"  # every character str.splitlines() would end a line at, inside one text


def test_a_trec_score_is_read_with_strtods_syntax_and_a_partial_number_is_refused(tmp_path):
    from memrecall.data.trec import parse_trec_score, strtod_prefix

    assert [parse_trec_score(s) for s in ("1", "-2.5", ".5", "+3.", "1e1", "0x1p3", "0X.8")] == [
        1.0,
        -2.5,
        0.5,
        3.0,
        10.0,
        8.0,
        0.5,
    ]
    assert [parse_trec_score(s) for s in ("1_0", "1.0x", "", "abc", "١")] == [None] * 5
    assert strtod_prefix("1_0") == "1" and strtod_prefix("abc") == ""
    rankings = export_hashing(tmp_path)
    lines = []
    for row in map(json.loads, rankings.read_text().split("\n")[:-1]):
        for rank, doc in enumerate(row["ranked_episode_ids"], start=1):
            lines.append(f"{row['probe_id']} Q0 {doc} {rank} {100 - rank} run")
    lines[1] = lines[1].rsplit(" ", 2)[0] + " 1_0 run"
    trec = tmp_path / "run.trec"
    trec.write_text("\n".join(lines) + "\n")
    result = run("evaluate", trec, "--data", MINI_RELEASE, "--output", tmp_path / "r.json")
    assert_one_line_error(result, "line 2: score '1_0' is not a number (trec_eval would read only '1')")
    assert not (tmp_path / "r.json").exists()


def test_trec_fields_split_on_ascii_whitespace_only():
    from memrecall.data.rankings import parse_rankings_text

    rows, problems = parse_rankings_text("q1 Q0 a\u00a0b 1 5 r\nq1\tQ0\ta\t2\t4\tr\n")
    assert problems == [] and rows[0].doc_ids == ("a\u00a0b", "a")  # U+00A0 is part of the docid


@pytest.mark.parametrize(
    ("given", "explained"),
    [
        ("T01E01-F", "only in case"),
        (" t01e01-f", "only in whitespace"),
        (unicodedata.normalize("NFKD", "t01e01-f\u00c5")[:-2] + "-f", None),
    ],
)
def test_an_id_that_differs_only_loosely_is_named_with_repr_and_the_difference(given, explained, tmp_path):
    rankings = export_hashing(tmp_path)
    rows = [json.loads(line) for line in rankings.read_text().split("\n")[:-1]]
    rows[0]["probe_id"] = given
    bad = tmp_path / "bad.jsonl"
    bad.write_text("".join(json.dumps(r) + "\n" for r in rows))
    result = run("evaluate", bad, "--data", MINI_RELEASE, "--output", tmp_path / "r.json")
    assert_one_line_error(result, f"unknown query {given!r}")
    if explained:
        assert f"(differs from 't01e01-f' {explained}; ids are compared exactly)" in result.output


def test_near_miss_names_unicode_normalisation():
    from memrecall.errors import near_miss

    composed, decomposed = "caf\u00e9", "cafe\u0301"
    assert near_miss(decomposed, [composed]) == (
        " (differs from 'café' only in Unicode normalisation; ids are compared exactly)"
    )
    assert near_miss("other", [composed]) == ""


def test_an_episode_dated_after_reference_now_is_an_error(tmp_path):
    def future(data):
        data["personas"][0]["episodes"][0]["date_time"] = "2999-01-01T00:00:00+00:00"

    bad = mutated_json(MINI_RELEASE, tmp_path / "future.json", future)
    result = run("baseline", "--data", bad, "--strategies", "hashing", "--quiet", "--output", tmp_path / "r.json")
    assert_one_line_error(result, "personas[0].episodes[0].date_time: episode ")
    assert "after the release's reference_now" in result.output
    assert not (tmp_path / "r.json").exists()


def _locomo_with_dia_id(tmp_path, dia_id: str, evidence: str, extra: str | None = None):
    from memrecall.data.loaders.locomo import load_locomo

    data = json.loads(LOCOMO.read_text())
    first = data[0]
    turn = {**first["conversation"]["session_1"][0], "dia_id": dia_id}
    first["conversation"]["session_1"].append(turn)
    if extra:
        first["conversation"]["session_1"].append({**turn, "dia_id": extra})
    first["qa"][0]["evidence"] = [evidence]
    path = tmp_path / "locomo.json"
    path.write_text(json.dumps(data))
    return load_locomo(path, "turn")


def test_a_locomo_evidence_id_that_is_exactly_a_dia_id_is_ok(tmp_path):
    loaded = _locomo_with_dia_id(tmp_path, "D1:093", "D1:093")
    query = loaded.task.queries[0]
    assert query.targets == frozenset({"D1:093"})
    assert [i for i in loaded.evidence_issues if i["query_id"] == query.id] == []


def test_a_locomo_evidence_id_written_with_a_leading_zero_is_repaired_to_the_turn(tmp_path):
    loaded = _locomo_with_dia_id(tmp_path, "D1:93", "D1:093")
    query = loaded.task.queries[0]
    assert query.targets == frozenset({"D1:93"})
    issues = [i for i in loaded.evidence_issues if i["query_id"] == query.id]
    assert issues == [{"query_id": query.id, "raw": "D1:093", "outcome": "repaired", "resolved_to": "D1:93"}]


def test_two_locomo_dia_ids_naming_the_same_turn_are_an_error(tmp_path):
    from memrecall.errors import DatasetError

    with pytest.raises(DatasetError, match=r"'D1:093' and 'D1:93' name the same turn \(session 1, turn 93\)"):
        _locomo_with_dia_id(tmp_path, "D1:93", "D1:93", extra="D1:093")


@pytest.mark.skipif(not REAL_LOCOMO.exists(), reason=LOCOMO_MISSING)
def test_the_real_locomo_evidence_outcomes_are_unchanged():
    from memrecall.data.loaders.locomo import load_locomo

    path = REAL_LOCOMO
    counts = load_locomo(path, "turn").issue_counts()
    assert counts["repaired"] == 2 and counts["malformed"] == 1  # "D30:05", "D:11:26"; "D"


@pytest.mark.slow
def test_a_ranking_longer_than_its_store_is_refused_in_memory():
    from memrecall.api import run_system
    from memrecall.errors import RankingsError

    class Flood:
        def index(self, documents):
            self.ids = [d.id for d in documents]

        def rank(self, query):
            return self.ids + [f"extra-{i}" for i in range(1_000_000)]

    with pytest.raises(RankingsError) as caught:
        run_system(Flood(), "epirec", data=MINI_RELEASE, resamples=100)
    assert "rank() returned 1000004 ids but store 't01' holds only 4 documents" in str(caught.value)


def test_a_ranking_longer_than_its_store_is_refused_in_a_file_without_parsing_it_whole(tmp_path, monkeypatch):
    import memrecall.data.rankings as rankings_module

    rankings = export_hashing(tmp_path)
    rows = [json.loads(line) for line in rankings.read_text().split("\n")[:-1]]
    rows[0]["ranked_episode_ids"] += [f"x{i}" for i in range(1_000_000)]
    big = tmp_path / "big.jsonl"
    big.write_text("".join(json.dumps(r) + "\n" for r in rows))
    parsed_lengths = []
    real = rankings_module.loads_strict
    monkeypatch.setattr(rankings_module, "loads_strict", lambda raw: parsed_lengths.append(len(raw)) or real(raw))
    result = run("evaluate", big, "--data", MINI_RELEASE, "--output", tmp_path / "r.json")
    assert_one_line_error(result, "line 1: ranks more than 4 ids, more than any store holds")
    assert max(parsed_lengths) < rankings_module.LONG_LINE  # the long line was counted, never parsed


@pytest.mark.slow
def test_memrecall_reads_back_its_own_epirec_exports_holding_line_break_characters(tmp_path):
    release = json.loads(MINI_RELEASE.read_text())
    changed = copy.deepcopy(release)
    changed["personas"][0]["episodes"][0]["probes"][0]["query"] = ODD
    changed["personas"][0]["episodes"][1]["id"] = "t01e02" + ODD
    data = tmp_path / "odd.json"
    data.write_text(json.dumps(changed))
    out = tmp_path / "out"
    result = run(
        "baseline",
        "--data",
        data,
        "--strategies",
        "hashing",
        "--quiet",
        "--output",
        out / "r.json",
        "--per-query",
        out / "pq.jsonl",
        "--export-rankings",
        out / "rk",
    )
    assert result.exit_code == 0, result.output
    for exported in (out / "pq.jsonl", out / "rk" / "hashing.jsonl"):
        text = exported.read_text(encoding="utf-8")
        assert text.splitlines() == text.split("\n")[:-1]  # nothing a splitlines() reader would break at
    replay = run(
        "evaluate", out / "rk" / "hashing.jsonl", "--data", data, "--output", tmp_path / "e.json", "--name", "hashing"
    )
    assert replay.exit_code == 0, replay.output
    first = json.loads((out / "r.json").read_text())["content"]["systems"]["hashing"]["results"]
    again = json.loads((tmp_path / "e.json").read_text())["content"]["systems"]["hashing"]["results"]
    assert first["overall"] == again["overall"]
    replay = ["--rankings", out / "rk" / "hashing.jsonl", "--data", data]
    card = run("report", out / "r.json", "--per-query", out / "pq.jsonl", *replay, "--out", tmp_path / "card")
    assert card.exit_code == 0, card.output
    rows = [json.loads(line) for line in (out / "pq.jsonl").read_text().split("\n")[:-1]]
    assert ODD in {row["text"] for row in rows}


def test_memrecall_reads_back_its_own_official_log_holding_line_break_characters(tmp_path):
    data = json.loads(LME.read_text())
    data[0]["haystack_sessions"][0][0]["content"] = ODD
    data[0]["question"] = "what? " + ODD
    lme = tmp_path / "odd.json"
    lme.write_text(json.dumps(data))
    log = tmp_path / "log.jsonl"
    result = run(
        "longmemeval",
        "--data",
        lme,
        "--modes",
        "fts5",
        "--quiet",
        "--output",
        tmp_path / "r.json",
        "--export-official-log",
        log,
    )
    assert result.exit_code == 0, result.output
    text = log.read_text(encoding="utf-8")
    assert text.splitlines() == text.split("\n")[:-1] and "\\u2028" in text and "\\f" in text
    back = run("evaluate", log, "--benchmark", "longmemeval", "--data", lme, "--output", tmp_path / "e.json")
    assert back.exit_code == 0, back.output
    assert "read as official LongMemEval retrieval log" in back.output


def test_jsonl_lines_of_ordinary_text_are_exactly_canonical_json():
    from memrecall.io import canonical_json, jsonl_line

    row = {"query_id": "q\u00e9", "ranked_ids": ["a", "b"], "text": "tab\there \u00fc"}
    assert jsonl_line(row) == canonical_json(row)
    assert jsonl_line({"t": ODD}) == '{"t":"a\\u2028b\\u2029c\\u0085d\\fe"}'


@pytest.mark.slow
def test_corpus_sources_rules_and_checksums_refuse_a_fifo_at_once(tmp_path):
    """The corpus readers take only regular files too: a FIFO in the checkout is named, never waited on."""
    import os
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    for target in ("data/SHA256SUMS", "data/memrecall_rules.json"):
        checkout = tmp_path / target.replace("/", "_")
        shutil.copytree(root / "data", checkout / "data")
        (checkout / target).unlink()
        os.mkfifo(checkout / target)
        done = subprocess.run(
            [sys.executable, "-m", "memrecall", "validate", "--root", str(checkout)],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode != 0, target
        assert "not a regular file" in done.stdout + done.stderr, (target, done.stdout, done.stderr)
