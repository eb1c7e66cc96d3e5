"""`memrecall power` on the committed leaderboard entries: issue #34's numbers, determinism, and bad input."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import run

ENTRIES = Path(__file__).resolve().parents[1] / "site" / "leaderboard" / "entries"
V2 = ENTRIES / "epirec-v2"
V2_DATA = ENTRIES.parents[2] / "data" / "epirec_v2.json"  # the entries' data; epirec's default is now v3


def power(*args):
    """`memrecall power ARGS --data data/epirec_v2.json`."""
    return run("power", *args, "--data", V2_DATA)


def report(name: str, folder: Path = V2) -> Path:
    """A committed entry's report (stored gzip-compressed, as scripts/leaderboard.py store_entry stores it)."""
    return folder / f"{name}.report.json.gz"


def test_the_issue_pairs_are_measured_from_the_entries(tmp_path):
    out = tmp_path / "power.json"
    names = ("dense", "gated", "langchain-ensemble", "salience-vader", "hybrid")
    result = power(*map(report, names), "--difference", "0.05", "--output", out)
    assert result.exit_code == 0, result.output
    found = json.loads(out.read_text())
    cells = {c["system"]: c["by_group"]["reflective_implicit"]["recall@3"] for c in found["comparisons"]}
    measured = {
        n: (round(c["difference"], 3), round(c["discordance"], 3), c["queries_needed"]) for n, c in cells.items()
    }
    assert measured == {
        "gated": (0.036, 0.095, 297),
        "langchain-ensemble": (-0.042, 0.256, 802),
        "salience-vader": (-0.012, 0.25, 783),
        "hybrid": (-0.095, 0.274, 858),
    }
    assert round(cells["gated"]["detectable_difference"], 3) == 0.066
    assert all(c["reference"] == "dense" for c in found["comparisons"])
    assert sorted(found["comparisons"][0]["by_group"]) == [
        "factual",
        "overall",
        "reflective_explicit",
        "reflective_implicit",
    ]
    assert "gated - dense               reflective_implicit  168  recall@3  mcnemar  +0.036" in result.output
    assert "Connor (1987)" in result.output


def test_the_output_is_byte_identical_and_sorted(tmp_path):
    args = (report("dense"), report("gated"), "--metric", "mrr,recall@1", "--grouping", "overall")
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    assert power(*args, "--output", first).exit_code == 0
    assert power(*args, "--output", second).exit_code == 0
    assert first.read_bytes() == second.read_bytes()
    found = json.loads(first.read_text())
    assert first.read_text() == json.dumps(found, sort_keys=True, indent=2, ensure_ascii=False) + "\n"
    overall = found["comparisons"][0]["by_group"]["overall"]
    assert list(found["comparisons"][0]["by_group"]) == ["overall"]
    assert overall["mrr"]["method"] == "paired bootstrap sd, normal approximation"
    assert overall["recall@1"]["method"] == "mcnemar"
    assert found["bootstrap"] == {"resamples": 2000, "seed": 0}


def test_one_report_alone_states_the_discordance_it_assumes():
    result = power(report("dense"))
    assert result.exit_code == 0, result.output
    assert "dense (alone)  overall              504  recall@3  mcnemar, assumed discordance  -           0.250" in (
        result.output
    )
    assert "assumed discordance psi = 0.25 (not measured)" in result.output
    assumed = power(report("dense"), "--discordance", "0.1", "--grouping", "overall")
    assert "0.100             0.039" in assumed.output


def test_rankings_given_in_order_are_used_and_checked(tmp_path):
    given = power(
        report("dense"),
        report("gated"),
        "--rankings",
        V2 / "dense.rankings.jsonl.gz",
        "--rankings",
        V2 / "gated.rankings.jsonl.gz",
        "--grouping",
        "overall",
    )
    beside = power(report("dense"), report("gated"), "--grouping", "overall")
    assert given.exit_code == 0 and given.output == beside.output
    swapped = power(
        report("dense"),
        report("gated"),
        "--rankings",
        V2 / "gated.rankings.jsonl.gz",
        "--rankings",
        V2 / "dense.rankings.jsonl.gz",
        "--output",
        tmp_path / "x.json",
    )
    assert swapped.exit_code == 1
    assert swapped.output.strip().splitlines()[-1] == (
        f"error: {V2 / 'gated.rankings.jsonl.gz'}: not the rankings {report('dense')} was made from "
        "(its rankings_sha256 differs)"
    )
    assert not (tmp_path / "x.json").exists()


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (("--alpha", "1.5"), 2, "Invalid value for '--alpha': must be between 0 and 1, got 1.5"),
        (("--power", "0.3"), 2, "error: --power must be from 0.5 to below 1, got 0.3"),
        (("--metric", "hits@3"), 2, "error: --metrics: unknown metric 'hits@3'"),
        (("--grouping", "by_colour"), 2, "error: --grouping by_colour: not one of the report's groupings"),
        (("--metric", "mrr"), 2, "error: mrr is a graded metric: its power needs a second system to pair with"),
    ],
)
def test_bad_options_are_one_line_and_write_nothing(tmp_path, args, code, message):
    out = tmp_path / "power.json"
    result = power(report("dense"), *args, "--output", out)
    assert result.exit_code == code, result.output
    assert message in result.output
    assert not out.exists()


def test_reports_on_other_data_or_without_rankings_are_refused(tmp_path):
    mixed = power(report("dense"), report("dense", ENTRIES / "epirec-v1"))
    assert mixed.exit_code == 1
    assert f"error: {report('dense', ENTRIES / 'epirec-v1')}: data sha256" in mixed.output
    lonely = tmp_path / "dense.report.json.gz"
    shutil.copy(report("dense"), lonely)
    missing = power(lonely)
    assert missing.exit_code == 2
    assert f"error: {lonely}: no rankings beside it" in missing.output
    twice = power(report("dense"), report("dense"))
    assert twice.exit_code == 1 and "system dense is in two of the reports" in twice.output


def test_the_leaderboard_column_is_what_power_gives_for_the_same_pair():
    from memrecall.reports.leaderboard.entries import read_entries
    from memrecall.reports.leaderboard.readme import pick
    from memrecall.reports.leaderboard.tables import build_tables

    minilm = [e for e in read_entries(V2, {}) if e.row == e.system]  # the MiniLM and lexical rows
    table = pick(build_tables(minilm), "epirec-2-0")
    assert table.versus[("gated", "reflective_implicit")].best
    dense = table.versus[("dense", "reflective_implicit")].detectable
    result = power(report("gated"), report("dense"))
    line = next(r for r in result.output.splitlines() if r.startswith("dense - gated") and "reflective_implicit" in r)
    assert round(dense, 3) == 0.066 and line.split()[-1] == "0.066"
