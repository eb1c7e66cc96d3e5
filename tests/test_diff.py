"""`memrecall diff`: counts from the per-query files, escaping, determinism, refusals, layouts."""

from __future__ import annotations

import json
import re

import pytest
from conftest import run
from diff_helpers import HOSTILE, MINI, hostile_data, make_run, outcome_counts

from memrecall.reports.diff.content import outcome
from memrecall.reports.diff.page import script_json


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("diff-runs")
    return {name: make_run(folder, name) for name in ("hashing", "fts5", "recency")}


def page_data(page: str) -> dict:
    """The inline JSON of a diff page."""
    text = re.search(r'<script type="application/json" id="diff-data">(.*?)</script>', page, re.S).group(1)
    return json.loads(text)


@pytest.mark.parametrize(
    ("before", "after", "expected"),
    [(1, 2, "both found"), (2, 5, "broken"), (None, 3, "fixed"), (4, None, "both missed"), (None, None, "both missed"),
     (3, 3, "both found"), (3, 4, "broken"), (4, 3, "fixed")],
)  # fmt: skip
def test_outcome_at_k3(before, after, expected):
    assert outcome(before, after, 3) == expected


def test_counts_equal_those_from_the_per_query_files(runs, tmp_path):
    page, markdown = tmp_path / "d.html", tmp_path / "d.md"
    result = run("diff", runs["hashing"], runs["fts5"], "--data", MINI, "--output", page, "--markdown", markdown)
    assert result.exit_code == 0, result.output
    expected = outcome_counts(runs["hashing"].with_name("hashing.pq.jsonl"), runs["fts5"].with_name("fts5.pq.jsonl"), 3)
    data = page_data(page.read_text(encoding="utf-8"))
    overall = data["comparisons"][0]["groups"][0]
    assert overall["stratum"] is None and overall["counts"] == expected
    assert overall["n"] == sum(expected.values()) == 24
    assert overall["difference"] == pytest.approx((expected["fixed"] - expected["broken"]) / 24)
    row = next(line for line in result.output.splitlines() if line.startswith("overall"))
    assert row.split()[1:6] == ["24", *(str(expected[o]) for o in ("fixed", "broken", "both found", "both missed"))]
    table = next(line for line in markdown.read_text(encoding="utf-8").splitlines() if line.startswith("| overall"))
    assert table.split(" | ")[2:6] == [str(expected[o]) for o in ("fixed", "broken", "both found", "both missed")]
    per_stratum = {tuple(g["stratum"]): g["n"] for g in data["comparisons"][0]["groups"] if g["stratum"]}
    assert per_stratum[("probe_type", "factual")] == 8 and ("intensity_band", "low") in per_stratum


def test_rows_are_ordered_by_the_change_in_the_gold_rank(runs, tmp_path):
    page = tmp_path / "d.html"
    assert run("diff", runs["hashing"], runs["recency"], "--data", MINI, "--output", page).exit_code == 0
    changes = [abs(q["changes"][0]) for q in page_data(page.read_text(encoding="utf-8"))["queries"]]
    assert changes == sorted(changes, reverse=True) and changes[0] > 0


def test_the_page_is_self_contained_and_byte_identical_on_rerun(runs, tmp_path):
    pages = [tmp_path / "a.html", tmp_path / "b.html"]
    for page in pages:
        assert run("diff", runs["hashing"], runs["fts5"], "--data", MINI, "--output", page).exit_code == 0
    first = pages[0].read_bytes()
    assert first == pages[1].read_bytes()
    assert not re.search(rb'(src|href)="(https?:)?//', first) and b"<script src" not in first
    assert b"default-src 'none'" in first


def test_every_data_string_is_escaped(tmp_path):
    data = hostile_data(tmp_path)
    folder = tmp_path / "runs"
    reports = [make_run(folder, name, data) for name in ("hashing", "fts5")]
    page, markdown = tmp_path / "d.html", tmp_path / "d.md"
    result = run("diff", *reports, "--data", data, "--output", page, "--markdown", markdown)
    assert result.exit_code == 0, result.output
    text = page.read_text(encoding="utf-8")
    assert HOSTILE not in text and "<img" not in text and text.count("</script>") == 2
    texts = {q["id"]: q["text"] for q in page_data(text)["queries"]}
    assert texts["t01e01-f"] == HOSTILE
    assert script_json({"x": HOSTILE}).count("\\u003c") == 2 and "<" not in script_json({"x": HOSTILE})


def test_three_systems_give_two_comparisons_and_a_picker(runs, tmp_path):
    page = tmp_path / "d.html"
    result = run("diff", runs["hashing"], runs["fts5"], runs["recency"], "--data", MINI, "--output", page)
    assert result.exit_code == 0, result.output
    text = page.read_text(encoding="utf-8")
    data = page_data(text)
    assert [(c["system"], c["against"]) for c in data["comparisons"]] == [("fts5", "hashing"), ("recency", "hashing")]
    assert '<select id="comparison">' in text and len(data["queries"][0]["ranks"]) == 3


def test_bare_rankings_files_with_benchmark_and_data(runs, tmp_path):
    page = tmp_path / "d.html"
    files = [runs[n].with_name(f"{n}.rankings.jsonl") for n in ("hashing", "fts5")]
    result = run("diff", *files, "--benchmark", "epirec", "--data", MINI, "--output", page)
    assert result.exit_code == 0, result.output
    expected = outcome_counts(runs["hashing"].with_name("hashing.pq.jsonl"), runs["fts5"].with_name("fts5.pq.jsonl"), 3)
    assert page_data(page.read_text(encoding="utf-8"))["comparisons"][0]["groups"][0]["counts"] == expected


def test_missing_rankings_is_one_line_and_writes_nothing(runs, tmp_path):
    folder = tmp_path / "lonely"
    report = make_run(folder, "hashing")
    report.with_name("hashing.rankings.jsonl").unlink()
    page = tmp_path / "d.html"
    result = run("diff", report, runs["fts5"], "--data", MINI, "--output", page)
    assert result.exit_code == 2
    assert result.output.count("\n") == 1 and "no rankings beside it" in result.output
    assert not page.exists()


def test_rankings_that_are_not_the_reports_are_refused(runs, tmp_path):
    page = tmp_path / "d.html"
    wrong = runs["fts5"].with_name("fts5.rankings.jsonl")
    result = run("diff", runs["hashing"], runs["fts5"], "--rankings", wrong, "--rankings", wrong, "--data", MINI,
                 "--output", page)  # fmt: skip
    assert result.exit_code == 1 and "not the ones it was made from" in result.output and not page.exists()


def test_a_report_on_other_data_is_refused_naming_the_field(runs, tmp_path):
    other = make_run(tmp_path / "other", "fts5", hostile_data(tmp_path))
    page = tmp_path / "d.html"
    result = run("diff", runs["hashing"], other, "--data", MINI, "--output", page)
    assert result.exit_code == 1 and result.output.count("\n") == 1
    assert "not comparable" in result.output and "split.data_sha256" in result.output and not page.exists()


def test_a_report_of_another_benchmark_is_refused_naming_it(runs, tmp_path):
    locomo = tmp_path / "locomo"
    locomo.mkdir()
    result = run("run", "locomo-turn", "--data", MINI.with_name("locomo_mini.json"), "--system", "hashing",
                 "--output", locomo / "hashing.report.json", "--export-rankings", locomo / "hashing.rankings.jsonl",
                 "--quiet")  # fmt: skip
    assert result.exit_code == 0, result.output
    page = tmp_path / "d.html"
    result = run("diff", runs["hashing"], locomo / "hashing.report.json", "--data", MINI, "--output", page)
    assert result.exit_code == 1 and "benchmark is 'locomo-turn', not 'epirec'" in result.output
    assert not page.exists()


MODES = ("fts5", "bm25-official")


def harness_diff(folder, data, k: int) -> dict:
    """`memrecall locomo --granularity turn --modes fts5,bm25-official` (per-query rows split per mode beside it),
    then diff its one report of two modes at k; the page's data."""
    out = ["--output", folder / "lm.report.json", "--export-rankings", folder / "lm.rankings.jsonl"]
    result = run("locomo", "--data", data, "--granularity", "turn", "--modes", ",".join(MODES), *out,
                 "--per-query", folder / "pq.jsonl", "--quiet")  # fmt: skip
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in (folder / "pq.jsonl").open(encoding="utf-8")]
    for mode in MODES:
        with (folder / f"{mode}.pq.jsonl").open("w", encoding="utf-8") as handle:
            handle.writelines(json.dumps(r) + "\n" for r in rows if r["system"] == mode)
    files = [folder / f"lm.rankings.{mode}.jsonl" for mode in MODES]
    page = folder / "d.html"
    result = run("diff", folder / "lm.report.json", "--rankings", files[0], "--rankings", files[1], "--data", data,
                 "--output", page, "--k", str(k))  # fmt: skip
    assert result.exit_code == 0, result.output
    return page_data(page.read_text(encoding="utf-8"))


def test_a_harness_report_of_two_modes_diffs_alone_by_category(tmp_path):
    data = MINI.with_name("locomo_mini.json")
    content = harness_diff(tmp_path, data, 3)
    assert content["benchmark"] == "locomo-turn" and content["strata_keys"] == ["category"]
    assert [s["name"] for s in content["systems"]] == list(MODES)
    assert all(not q["strata"]["category"].startswith("5") for q in content["queries"])  # adversarial is apart
    expected = outcome_counts(tmp_path / "fts5.pq.jsonl", tmp_path / "bm25-official.pq.jsonl", 3)
    assert content["comparisons"][0]["groups"][0]["counts"] == expected
    files = [tmp_path / f"lm.rankings.{mode}.jsonl" for mode in reversed(MODES)]
    swapped = run("diff", tmp_path / "lm.report.json", "--rankings", files[0], "--rankings", files[1], "--data", data,
                  "--output", tmp_path / "e.html")  # fmt: skip
    assert swapped.exit_code == 1 and "the rankings given for fts5 are not the ones it was made from" in swapped.output
    assert not (tmp_path / "e.html").exists()


def test_a_baseline_report_of_strategies_diffs_with_its_exported_rankings(tmp_path):
    result = run("baseline", "--data", MINI, "--strategies", "hashing,fts5", "--output", tmp_path / "b.json",
                 "--export-rankings", tmp_path / "bl", "--quiet")  # fmt: skip
    assert result.exit_code == 0, result.output
    page = tmp_path / "d.html"
    result = run("diff", tmp_path / "b.json", "--rankings", tmp_path / "bl" / "hashing.jsonl", "--rankings",
                 tmp_path / "bl" / "fts5.jsonl", "--data", MINI, "--output", page)  # fmt: skip
    assert result.exit_code == 0, result.output
    overall = page_data(page.read_text(encoding="utf-8"))["comparisons"][0]["groups"][0]
    assert overall["counts"] == {"fixed": 0, "broken": 1, "both found": 19, "both missed": 4}


def test_longmemeval_diffs_by_question_type(tmp_path):
    data = MINI.with_name("lme_format_mini.json")
    reports = []
    for system in ("hashing", "fts5"):
        reports.append(tmp_path / f"{system}.report.json")
        result = run("run", "longmemeval", "--data", data, "--system", system, "--output", reports[-1],
                     "--export-rankings", tmp_path / f"{system}.rankings.jsonl", "--quiet")  # fmt: skip
        assert result.exit_code == 0, result.output
    page = tmp_path / "d.html"
    result = run("diff", *reports, "--data", data, "--output", page)
    assert result.exit_code == 0, result.output
    content = page_data(page.read_text(encoding="utf-8"))
    assert content["strata_keys"] == ["question_type"] and content["metric"] == "recall@1"
    assert {q["strata"]["question_type"] for q in content["queries"]} <= {
        g["stratum"][1] for g in content["comparisons"][0]["groups"] if g["stratum"]
    }


def test_one_report_of_one_system_is_a_usage_line(runs, tmp_path):
    result = run("diff", runs["hashing"], "--data", MINI, "--output", tmp_path / "d.html")
    assert result.exit_code == 2 and "holds one system" in result.output and not (tmp_path / "d.html").exists()


@pytest.mark.realdata
@pytest.mark.slow
def test_on_real_locomo_turns_the_counts_are_the_per_query_files(tmp_path):
    from conftest import shared_file

    content = harness_diff(tmp_path, shared_file("locomo10.json"), 10)
    expected = outcome_counts(tmp_path / "fts5.pq.jsonl", tmp_path / "bm25-official.pq.jsonl", 10)
    overall = content["comparisons"][0]["groups"][0]
    assert overall["counts"] == expected and overall["n"] == 1536 == len(content["queries"])
    assert (tmp_path / "d.html").stat().st_size < 10_000_000


def test_a_beir_folder_diffs_overall_only(tmp_path):
    data = MINI.parents[2] / "examples" / "data" / "beir_memory"
    reports = []
    for system in ("hashing", "recency"):
        reports.append(tmp_path / f"{system}.report.json")
        result = run("run", "beir", "--data", data, "--system", system, "--output", reports[-1],
                     "--export-rankings", tmp_path / f"{system}.rankings.jsonl", "--quiet")  # fmt: skip
        assert result.exit_code == 0, result.output
    page = tmp_path / "d.html"
    result = run("diff", *reports, "--data", data, "--output", page)
    assert result.exit_code == 0, result.output
    content = page_data(page.read_text(encoding="utf-8"))
    assert content["strata_keys"] == [] and content["metric"] == "recall@10"
    assert [g["stratum"] for g in content["comparisons"][0]["groups"]] == [None]
    assert "<select data-stratum" not in page.read_text(encoding="utf-8")
