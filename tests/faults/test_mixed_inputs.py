"""Promise: a report where rankings are expected (or the reverse, or a mixture) is named as what it is, once."""

import json

import pytest
from conftest import MINI_RELEASE, run
from helpers import LME, assert_usage_error

RANKINGS = "memrecall rankings (JSONL)"
REPORT = "a memrecall report (JSON)"


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """A report, its two rankings files, a TREC run, per-query rows and a file of neither kind."""
    folder = tmp_path_factory.mktemp("mixed")
    result = run(
        "baseline",
        "--data",
        MINI_RELEASE,
        "--strategies",
        "hashing,recency",
        "--quiet",
        "--resamples",
        "100",
        "--output",
        folder / "b.json",
        "--export-rankings",
        folder / "rk",
        "--per-query",
        folder / "pq.jsonl",
    )
    assert result.exit_code == 0, result.output
    result = run(
        "baseline",
        "--data",
        MINI_RELEASE,
        "--strategies",
        "hashing",
        "--quiet",
        "--resamples",
        "100",
        "--output",
        folder / "t.json",
        "--export-rankings",
        folder / "trec",
        "--rankings-format",
        "trec",
    )
    assert result.exit_code == 0, result.output
    (folder / "notes.txt").write_text("hello\n", encoding="utf-8")
    return {
        "report": folder / "b.json",
        "rankings": folder / "rk" / "hashing.jsonl",
        "rankings2": folder / "rk" / "recency.jsonl",
        "trec": folder / "trec" / "hashing.trec",
        "per-query": folder / "pq.jsonl",
        "other": folder / "notes.txt",
    }


# (command with {placeholders} for files, the kind named for the wrong input, what the line says is expected)
CASES = {
    "compare report+rankings": (["compare", "{report}", "{rankings}"], REPORT, "expected all reports"),
    "compare rankings+report": (["compare", "{rankings}", "{report}"], REPORT, "expected all reports"),
    "compare rankings+per-query": (["compare", "{rankings}", "{per-query}"], "per-query results", "expected rankings"),
    "evaluate report": (["evaluate", "{report}"], REPORT, "expected rankings (memrecall JSONL or a TREC run)"),
    "evaluate --compare report": (["evaluate", "{rankings}", "--compare", "{report}"], REPORT, "expected rankings"),
    "verify --rankings report": (
        ["verify", "{report}", "--rankings", "{report}", "--rankings", "{rankings2}"],
        REPORT,
        "expected rankings",
    ),
    "verify REPORT rankings": (["verify", "{rankings}"], RANKINGS, "expected memrecall reports"),
    "report --rankings per-query": (
        ["report", "{report}", "--rankings", "{per-query}", "--rankings", "{rankings2}"],
        "per-query results",
        "expected rankings",
    ),
    "report --per-query rankings": (
        ["report", "{report}", "--rankings", "{rankings}", "--rankings", "{rankings2}", "--per-query", "{rankings}"],
        RANKINGS,
        "expected per-query results",
    ),
    "power REPORT rankings": (["power", "{rankings}"], RANKINGS, "expected memrecall reports"),
    "power --rankings report": (["power", "{report}", "--rankings", "{report}"], REPORT, "expected rankings"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_wrong_kind_of_input_is_one_line_naming_it(case, files, tmp_path):
    args, named, expected = CASES[case]
    argv = [files[a[1:-1]] if a.startswith("{") else a for a in args]
    replays = args[0] in ("evaluate", "power") or "--rankings" in args and args[0] != "power" or "+" in case
    result = run(*argv, *(["--data", MINI_RELEASE] if replays and "report+" not in case else []))
    assert_usage_error(result, named)
    assert expected in result.output
    assert len(result.output.strip().splitlines()) == 1, result.output
    assert [p.name for p in tmp_path.iterdir()] == []


def test_an_official_log_without_retrieval_results_names_the_missing_field(tmp_path):
    result = run(
        "run",
        "longmemeval",
        "--system",
        "fts5",
        "--data",
        LME,
        "--quiet",
        "--resamples",
        "100",
        "--output",
        tmp_path / "r.json",
        "--export-official-log",
        tmp_path / "log.jsonl",
    )
    assert result.exit_code == 0, result.output
    lines = (tmp_path / "log.jsonl").read_text(encoding="utf-8").splitlines()
    first = json.loads(lines[0])
    del first["retrieval_results"]
    (tmp_path / "log.jsonl").write_text("\n".join([json.dumps(first), *lines[1:]]) + "\n", encoding="utf-8")
    result = run(
        "evaluate", tmp_path / "log.jsonl", "--benchmark", "longmemeval", "--data", LME, "--output", tmp_path / "e.json"
    )
    assert result.exit_code == 1, result.output
    assert result.output.splitlines()[1] == "  line 1: not an official retrieval log line: missing retrieval_results"


def test_a_file_of_no_known_kind_gets_the_strict_readers_own_line(files):
    result = run("compare", files["trec"], files["other"], "--data", MINI_RELEASE)
    assert result.exit_code == 1, result.output
    assert "line 1 is neither a JSON object nor a TREC run line" in result.output
