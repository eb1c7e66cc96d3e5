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
        outputs = ["--output", out / f"{name}.json", "--per-query", out / f"{name}.pq.jsonl"]
        result = run(*command, "--quiet", *outputs, "--export-rankings", out / f"{name}.rk.jsonl")
        assert result.exit_code == 0, result.output
    return out


DATA = {"hashing": MINI_RELEASE, "fts5": MINI_RELEASE, "lme": FIXTURES / "lme_format_mini.json"}


def card(runs, report, per_query, tmp_path):
    replay = ["--rankings", runs / f"{report}.rk.jsonl", "--data", DATA[report]]
    return run("report", runs / f"{report}.json", "--per-query", per_query, *replay, "--out", tmp_path / "card")


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
    replay = ["--rankings", rk / "hashing.jsonl", "--rankings", rk / "fts5.jsonl", "--data", MINI_RELEASE]
    refused = run("report", both, "--per-query", half, *replay, "--out", tmp_path / "card")
    assert refused.exit_code == 1 and "no per-query rows of fts5, which the report holds" in refused.output


def test_a_per_query_file_is_shown_only_with_the_rankings_it_is_checked_against(runs, tmp_path):
    result = run("report", runs / "hashing.json", "--per-query", runs / "hashing.pq.jsonl", "--out", tmp_path / "c")
    assert result.exit_code == 2 and "give --rankings (one per system) too" in result.output
    assert not (tmp_path / "c").exists()


EDITS = {
    "first_target_rank": lambda row: {**row, "first_target_rank": 1},
    "hit": lambda row: {**row, "hit": {k: True for k in row["hit"]}},
    "top": lambda row: {**row, "top": row["top"][::-1]},
    "text": lambda row: {**row, "text": "every query was found"},
    "strata": lambda row: {**row, "strata": {**row["strata"], "probe_type": "factual"}},
}


@pytest.mark.parametrize("field", sorted(EDITS))
def test_an_edited_per_query_value_is_refused_naming_the_first_query_that_disagrees(runs, tmp_path, field):
    rows = [json.loads(line) for line in (runs / "hashing.pq.jsonl").read_text().splitlines()]
    index = next(
        i for i, r in enumerate(rows) if r["first_target_rank"] != 1 and r["strata"]["probe_type"] != "factual"
    )
    rows[index] = EDITS[field](rows[index])
    edited = tmp_path / "edited.jsonl"
    edited.write_text("".join(json.dumps(r) + "\n" for r in rows))
    result = card(runs, "hashing", edited, tmp_path)
    assert result.exit_code == 1, result.output
    expected = f"line {index + 1}: query {rows[index]['query_id']} of hashing: {field} is "
    assert expected in result.output and "but the report's rankings give" in result.output
    assert not (tmp_path / "card").exists()
