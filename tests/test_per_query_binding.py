"""`report --per-query` takes only the per-query file written with that report, and says what differs."""

import json

import pytest
from conftest import FIXTURES, MINI_RELEASE, run


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Two EpiRec runs (hashing, fts5) and a LongMemEval run, each with its per-query file."""
    out = tmp_path_factory.mktemp("runs")
    commands = {
        "hashing": ["run", "epirec", "--system", "hashing", "--data", MINI_RELEASE],
        "fts5": ["run", "epirec", "--system", "fts5", "--data", MINI_RELEASE],
        "lme": ["run", "longmemeval", "--system", "fts5", "--data", FIXTURES / "lme_format_mini.json"],
    }
    for name, command in commands.items():
        result = run(*command, "--quiet", "--output", out / f"{name}.json", "--per-query", out / f"{name}.pq.jsonl")
        assert result.exit_code == 0, result.output
    return out


def card(runs, report, per_query, tmp_path):
    return run("report", runs / f"{report}.json", "--per-query", per_query, "--out", tmp_path / "card")


def test_the_report_s_own_per_query_file_gives_the_hardest_queries(runs, tmp_path):
    result = card(runs, "hashing", runs / "hashing.pq.jsonl", tmp_path)
    assert result.exit_code == 0, result.output
    assert "## Hardest queries" in (tmp_path / "card" / "README.md").read_text()


@pytest.mark.parametrize(
    "report,other,differs",
    [
        ("hashing", "fts5", "system 'fts5' is not one of hashing"),
        ("hashing", "lme", "benchmark 'longmemeval' vs 'epirec'"),
        ("lme", "hashing", "benchmark 'epirec' vs 'longmemeval'"),
    ],
)
def test_another_report_s_per_query_file_is_refused_naming_what_differs(runs, tmp_path, report, other, differs):
    result = card(runs, report, runs / f"{other}.pq.jsonl", tmp_path)
    assert result.exit_code == 1, result.output
    assert "line 1 belongs to another report: report content_sha256" in result.output
    assert differs in result.output
    assert not (tmp_path / "card").exists()


def test_a_per_query_file_from_before_the_binding_is_refused_clearly(runs, tmp_path):
    rows = [json.loads(line) for line in (runs / "hashing.pq.jsonl").read_text().splitlines()]
    old = tmp_path / "old.jsonl"
    old.write_text(
        "".join(json.dumps({k: v for k, v in r.items() if k != "report_content_sha256"}) + "\n" for r in rows)
    )
    result = card(runs, "hashing", old, tmp_path)
    assert result.exit_code == 1
    assert "line 1: no report_content_sha256, so it cannot be matched to a report" in result.output


def test_a_file_missing_a_system_of_the_report_is_refused(runs, tmp_path):
    both = tmp_path / "both.json"
    rk = tmp_path / "rk"
    for name in ("hashing", "fts5"):
        result = run(
            "run",
            "epirec",
            "--system",
            name,
            "--data",
            MINI_RELEASE,
            "--quiet",
            "--output",
            tmp_path / f"{name}.json",
            "--export-rankings",
            rk / f"{name}.jsonl",
        )
        assert result.exit_code == 0, result.output
    result = run(
        "compare",
        rk / "hashing.jsonl",
        rk / "fts5.jsonl",
        "--data",
        MINI_RELEASE,
        "--output",
        both,
        "--per-query",
        tmp_path / "both.pq.jsonl",
    )
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in (tmp_path / "both.pq.jsonl").read_text().splitlines()]
    half = tmp_path / "half.jsonl"
    half.write_text("".join(json.dumps(r) + "\n" for r in rows if r["system"] == "hashing"))
    refused = run("report", both, "--per-query", half, "--out", tmp_path / "card")
    assert refused.exit_code == 1 and "no per-query rows of fts5, which the report holds" in refused.output
