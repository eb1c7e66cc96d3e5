"""`memrecall gate` and memrecall.gate: the four verdict paths, samples, bad input, the baseline update."""

from __future__ import annotations

import json
import re
import shutil

import pytest
from conftest import run
from diff_helpers import MINI, hostile_data, make_reversed, make_run

import memrecall
from memrecall.reports.gate.guards import Guard, read_gate_toml
from memrecall.reports.gate.verdict import FAIL, PASS, UNDECIDED, judge, stratified_sample


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("gate-runs")
    hashing = make_run(folder, "hashing")
    return {"hashing": hashing, "reversed": make_reversed(folder, hashing)}


def gate(*args):
    return run("gate", "--data", MINI, *args)


def test_the_same_system_passes_when_the_queries_can_see_the_margin(runs, tmp_path):
    out = tmp_path / "g.json"
    result = gate("--baseline", runs["hashing"], "--system", "hashing", "--metric", "recall@3", "--margin", "0.4",
                  "--output", out)  # fmt: skip
    assert result.exit_code == 0, result.output
    assert result.output.startswith("gate: PASS\n")
    row = json.loads(out.read_text())["guards"][0]
    assert (row["n"], row["difference"], row["queries_needed"], row["verdict"]) == (24, 0.0, 14, "pass")


def test_a_drop_beyond_the_margin_fails_with_the_queries_that_broke_and_a_page(runs, tmp_path):
    page = tmp_path / "g.html"
    result = gate("--baseline", runs["hashing"], "--candidate", runs["reversed"], "--metric", "recall@3",
                  "--margin", "0.05", "--diff-page", page)  # fmt: skip
    assert result.exit_code == 1, result.output
    lines = result.output.splitlines()
    assert lines[0] == "gate: FAIL" and "-0.458" in lines[2] and lines[2].endswith("fail")
    assert lines[3].startswith("broke most") and len(lines) == 3 + 1 + 5 + 1 and lines[-1] == f"diff page: {page}"
    assert "candidate" in page.read_text(encoding="utf-8")


def test_too_few_queries_for_the_margin_cannot_decide(runs, tmp_path):
    page = tmp_path / "g.html"
    result = gate("--baseline", runs["hashing"], "--candidate", runs["hashing"], "--metric", "recall@3",
                  "--margin", "0.1", "--diff-page", page)  # fmt: skip
    assert result.exit_code == 2
    assert result.output.startswith("gate: CANNOT DECIDE: too few guarded queries")
    assert result.output.splitlines()[2].split()[-3:] == ["60", "cannot", "decide"] and not page.exists()


def test_a_candidate_on_other_data_is_refused_naming_the_field(runs, tmp_path):
    other = make_run(tmp_path / "other", "hashing", hostile_data(tmp_path))
    result = gate("--baseline", runs["hashing"], "--candidate", other, "--metric", "recall@3", "--margin", "0.4")
    assert result.exit_code == 2 and result.output.count("\n") == 1
    assert "not comparable" in result.output and "split.data_sha256" in result.output


def test_a_candidate_run_on_other_data_is_refused_before_it_runs(runs, tmp_path):
    result = run("gate", "--baseline", runs["hashing"], "--system", "hashing", "--data", hostile_data(tmp_path),
                 "--metric", "recall@3", "--margin", "0.4")  # fmt: skip
    assert result.exit_code == 2 and result.output.count("\n") == 1 and "split.data_sha256 is" in result.output


def test_a_baseline_from_another_benchmark_is_refused_naming_it(runs, tmp_path):
    folder = tmp_path / "locomo"
    result = run("run", "locomo-turn", "--data", MINI.with_name("locomo_mini.json"), "--system", "hashing",
                 "--output", folder / "hashing.report.json", "--export-rankings", folder / "hashing.rankings.jsonl",
                 "--quiet")  # fmt: skip
    assert result.exit_code == 0, result.output
    out = tmp_path / "g.json"
    result = gate("--baseline", folder / "hashing.report.json", "--candidate", runs["hashing"], "--metric",
                  "recall@3", "--margin", "0.4", "--output", out)  # fmt: skip
    assert result.exit_code == 2 and result.output.count("\n") == 1
    assert "benchmark is 'epirec', not 'locomo-turn'" in result.output and not out.exists()


def test_missing_rankings_is_one_line_and_writes_nothing(runs, tmp_path):
    lonely = tmp_path / "hashing.report.json"
    shutil.copy(runs["hashing"], lonely)
    out = tmp_path / "g.json"
    result = gate("--baseline", lonely, "--candidate", runs["reversed"], "--metric", "recall@3", "--margin", "0.05",
                  "--output", out)  # fmt: skip
    assert result.exit_code == 2 and result.output.count("\n") == 1 and "no rankings beside it" in result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["hashing.report.json"]


@pytest.mark.parametrize(
    ("toml", "message"),
    [
        ('[[guard]]\nmetric = "recal@3"\nmargin = 0.02\n', "guard 1: unknown metric 'recal@3'"),
        ('[[guard]]\nmetric = "recall@3"\nmargin = "two percent"\n', "guard 1: the margin must be a number"),
        ('[[guard]]\nmetric = "recall@3"\nmargin = true\n', "guard 1: the margin must be a number"),
        ('[[guard]]\nmetric = "recall@3"\nmargin = 1.5\n', "between 0 and 1, got 1.5"),
        ('[[guard]]\nmetric = "recall@3"\nmargin = 0.1\nstrata = "x"\n', "guard 1: unknown key 'strata'"),
        ('margins = 1\n[[guard]]\nmetric = "recall@3"\nmargin = 0.1\n', "unknown key 'margins'"),
        ('[[guard]]\nmetric = "recall@3"\n', "guard 1: needs metric and margin"),
        ("sample = 5\n", "no [[guard]] tables"),
        ('[[guard]\nmetric = "recall@3"\n', "not TOML"),
        ('[[guard]]\nmetric = "recall@3"\nmargin = 0.1\nstratum = "probe_type=joyful"\n', "no probe_type 'joyful'"),
    ],
)
def test_a_bad_guard_file_is_one_line_naming_it_and_writes_nothing(runs, tmp_path, toml, message):
    config = tmp_path / "gate.toml"
    config.write_text(toml, encoding="utf-8")
    out = tmp_path / "g.json"
    result = gate("--baseline", runs["hashing"], "--candidate", runs["reversed"], "--config", config, "--output", out)
    assert result.exit_code == 2, result.output
    assert result.output.count("\n") == 1 and message in result.output, result.output
    assert not out.exists()


@pytest.mark.parametrize("margin", ["abc", "", "nan", "0", "-0.1", "2"])
def test_a_margin_option_that_is_not_a_number_in_range_is_one_line(runs, margin):
    result = gate("--baseline", runs["hashing"], "--candidate", runs["reversed"], "--metric", "recall@3",
                  "--margin", margin)  # fmt: skip
    assert result.exit_code == 2 and result.output.count("\n") == 1 and "--margin: the margin must be" in result.output


def test_the_guard_file_sets_strata_sample_and_seed(tmp_path):
    config = tmp_path / "gate.toml"
    config.write_text(
        'sample = 12\nseed = 3\n[[guard]]\nmetric = "Recall@3"\nmargin = 0.02\n'
        '[[guard]]\nmetric = "mrr"\nstratum = "probe_type=reflective_implicit"\nmargin = 0.05\n',
        encoding="utf-8",
    )
    settings = read_gate_toml(config)
    assert settings.guards == (Guard("recall@3", "overall", 0.02), Guard("mrr", "probe_type=reflective_implicit", 0.05))
    assert (settings.sample, settings.seed) == (12, 3)


@pytest.mark.parametrize(
    ("n", "difference", "lower", "upper", "wanted", "expected"),
    [
        (100, 0.0, -0.01, 0.01, 50, PASS),  # powered, bound above -margin
        (100, 0.0, -0.03, 0.01, 50, FAIL),  # powered, bound at or below -margin
        (100, -0.02, -0.02, 0.0, 50, FAIL),  # the bound exactly at -margin is not above it
        (10, 0.0, 0.0, 0.0, 50, UNDECIDED),  # identical on too few queries: never a pass
        (10, 0.05, 0.01, 0.09, 50, UNDECIDED),  # better, but too few to see the margin
        (10, -0.3, -0.5, -0.1, 50, FAIL),  # a drop beyond the margin seen outright
        (10, -0.3, -0.5, 0.01, 50, UNDECIDED),  # a large drop not yet significant
        (100, 0.0, 0.0, 0.0, None, UNDECIDED),  # no number of queries reaches the margin
        (0, 0.0, 0.0, 0.0, 1, UNDECIDED),  # no guarded query
    ],
)
def test_judge(n, difference, lower, upper, wanted, expected):
    assert judge(Guard("recall@3", "overall", 0.02), n, difference, lower, upper, wanted) == expected


def test_the_stratified_sample_is_proportional_seeded_and_within_the_task():
    from memrecall.benchmarks import get_benchmark

    queries = [q for q in get_benchmark("epirec").load(MINI).task.queries]
    for size in (1, 5, 12, 23, 24, 30):
        chosen = stratified_sample(queries, size, 0, "probe_type")
        assert len(chosen) == min(size, 24) and chosen <= {q.id for q in queries}
        per_type = sorted(sum(q.id in chosen for q in queries if q.strata["probe_type"] == t) for t in
                          ("factual", "reflective_explicit", "reflective_implicit"))  # fmt: skip
        assert per_type[-1] - per_type[0] <= 1
        assert stratified_sample(queries, size, 0, "probe_type") == chosen
    assert stratified_sample(queries, 6, 0, "probe_type") != stratified_sample(queries, 6, 1, "probe_type")


def test_a_sample_gates_on_its_queries_and_states_its_power(runs):
    result = gate("--baseline", runs["hashing"], "--candidate", runs["hashing"], "--metric", "recall@3",
                  "--margin", "0.4", "--sample", "9", "--seed", "2")  # fmt: skip
    assert result.exit_code == 2
    lines = result.output.splitlines()
    assert lines[1] == ("sample: 9 queries stratified by probe_type, seed 2; the power statement below is for this "
                        "sample")  # fmt: skip
    assert lines[3].split()[2] == "9" and lines[3].split()[-4:] == ["-0.4", "14", "cannot", "decide"]


def test_update_baseline_replaces_it_and_keeps_the_old_one(runs, tmp_path):
    base = tmp_path / "hashing.report.json"
    shutil.copy(runs["hashing"], base)
    shutil.copy(runs["hashing"].with_name("hashing.rankings.jsonl"), tmp_path / "hashing.rankings.jsonl")
    old = base.read_bytes(), (tmp_path / "hashing.rankings.jsonl").read_bytes()
    result = gate("--baseline", base, "--candidate", runs["reversed"], "--metric", "recall@3", "--margin", "0.05",
                  "--diff-page", tmp_path / "g.html", "--update-baseline")  # fmt: skip
    assert result.exit_code == 1 and result.output.splitlines()[-1].startswith(f"baseline: {base} replaced")
    assert (tmp_path / "hashing.previous.report.json").read_bytes() == old[0]
    assert (tmp_path / "hashing.previous.rankings.jsonl").read_bytes() == old[1]
    assert base.read_bytes() == runs["reversed"].read_bytes()
    assert (tmp_path / "hashing.rankings.jsonl").read_bytes() == runs["reversed"].with_name(
        "reversed.rankings.jsonl"
    ).read_bytes()


def test_without_update_baseline_the_baseline_is_untouched(runs):
    before = runs["hashing"].read_bytes()
    gate("--baseline", runs["hashing"], "--candidate", runs["reversed"], "--metric", "recall@3", "--margin", "0.05",
         "--diff-page", runs["hashing"].with_name("g.html"))  # fmt: skip
    assert runs["hashing"].read_bytes() == before
    assert not list(runs["hashing"].parent.glob("*.previous.*"))


def test_the_python_api_returns_a_result_and_the_assertion_helper_raises_on_a_fail(runs):
    result = memrecall.gate(runs["hashing"], "hashing", [("recall@3", "overall", 0.4)], data=MINI)
    assert (result.verdict, result.exit_code, result.passed, result.guards[0].n) == ("pass", 0, True, 24)
    assert memrecall.assert_gate_passes(runs["hashing"], "hashing", guards=[("recall@3", "overall", 0.4)], data=MINI)
    with pytest.raises(AssertionError, match=r"(?s)gate: FAIL.*broke most"):
        memrecall.assert_gate_passes(runs["hashing"], runs["reversed"], guards=[("recall@3", "overall", 0.05)],
                                     data=MINI)  # fmt: skip
    failed = memrecall.gate(runs["hashing"], runs["reversed"], [Guard("recall@3", "overall", 0.05)], data=MINI)
    assert failed.exit_code == 1 and len(failed.broke_most) == 5 and failed.as_dict()["verdict"] == "fail"


def test_update_baseline_with_a_run_candidate_is_refused_before_anything_runs(runs, tmp_path):
    out = tmp_path / "g.json"
    result = gate("--baseline", runs["hashing"], "--system", "hashing", "--metric", "recall@3", "--margin", "0.4",
                  "--output", out, "--update-baseline")  # fmt: skip
    assert result.exit_code == 2 and result.output.count("\n") == 1 and "--update-baseline needs" in result.output
    assert not out.exists() and not list(runs["hashing"].parent.glob("*.previous.*"))


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"guards": [("recall@3", "overall")]}, "guard 1: expected a Guard or (metric, stratum, margin)"),
        ({"guards": [("recall@3", "overall", "x")]}, "guard 1: the margin must be a number"),
        ({"guards": []}, "no guards"),
        ({"guards": [("recall@3", "overall", 0.4)], "sample": 0}, "sample must be a whole number from 1"),
        ({"guards": [("recall@3", "overall", 0.4)], "baseline_rankings": [3]}, "rankings must be a report or"),
    ],
)
def test_the_python_api_refuses_bad_arguments_in_one_line(runs, options, message):
    from memrecall.errors import ConfigError

    with pytest.raises(ConfigError, match=re.escape(message)):
        memrecall.gate(runs["hashing"], runs["reversed"], data=MINI, **options)
