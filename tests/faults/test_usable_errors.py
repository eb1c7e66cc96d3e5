"""Promise: error output names what is wrong and stays readable: 20 problems, counts by kind, a hint."""

import json

import pytest
from conftest import MINI_RELEASE, run
from helpers import assert_one_line_error, export_hashing


def test_more_than_20_problems_are_cut_with_counts_by_kind(tmp_path):
    rankings = export_hashing(tmp_path)
    rows = [json.loads(line) for line in rankings.read_text().splitlines()]
    for row in rows:
        row["ranked_episode_ids"][0] = "x99"
    bad = tmp_path / "unknown.jsonl"
    bad.write_text("".join(json.dumps(r) + "\n" for r in rows))
    result = run("evaluate", bad, "--data", MINI_RELEASE, "--output", tmp_path / "r.json")
    assert_one_line_error(result, "24 problem(s)")
    assert result.output.count("ranks unknown id(s) 'x99'") == 20
    assert "... and 4 more; all 24 by kind: ranks unknown id 24" in result.output


def test_generic_keys_in_an_epirec_file_get_a_hint(tmp_path):
    rankings = export_hashing(tmp_path)
    rows = [json.loads(line) for line in rankings.read_text().splitlines()]
    odd = [
        {"persona_id": r["persona_id"], "probe_id": r["probe_id"], "ranked_ids": r["ranked_episode_ids"]} for r in rows
    ]
    bad = tmp_path / "odd.jsonl"
    bad.write_text("".join(json.dumps(r) + "\n" for r in odd))
    result = run("evaluate", bad, "--data", MINI_RELEASE, "--output", tmp_path / "r.json")
    assert_one_line_error(
        result, "hint: every line lacks ranked_episode_ids; found ranked_ids: is this a LongMemEval/LoCoMo"
    )
    assert result.output.splitlines()[0].endswith("is this a LongMemEval/LoCoMo rankings file? use --benchmark")


def test_rankings_for_another_benchmark_get_a_hint(tmp_path):
    from helpers import LOCOMO

    assert (
        run(
            "locomo",
            "--data",
            LOCOMO,
            "--modes",
            "fts5",
            "--quiet",
            "--output",
            tmp_path / "l.json",
            "--export-rankings",
            tmp_path / "l.jsonl",
        ).exit_code
        == 0
    )
    result = run("evaluate", tmp_path / "l.jsonl", "--data", MINI_RELEASE, "--output", tmp_path / "r.json")
    assert_one_line_error(result, "hint: no query id is one of epirec's: are these rankings for another benchmark?")
    assert result.output.splitlines()[0].endswith("are these rankings for another benchmark? use --benchmark")


@pytest.mark.parametrize(
    "text, expected",
    [
        ('[{"persona_id": "t01"}]', "the file is one JSON array; rankings are JSON lines"),
        ("\ufeff" + '{"persona_id": "t01"}', "starts with a UTF-8 byte-order mark"),
        ('# my run\n{"persona_id": "t01"}', "line 1 is a comment"),
        ("hello world", "line 1 is neither a JSON object nor a TREC run line"),
    ],
)
def test_the_format_is_told_from_the_content(tmp_path, text, expected):
    path = tmp_path / "run.jsonl"
    path.write_text(text, encoding="utf-8")
    result = run("evaluate", path, "--data", MINI_RELEASE, "--output", tmp_path / "r.json")
    assert_one_line_error(result, expected)
    assert "expected 6 fields" not in result.output and result.output.count("\n") < 5
