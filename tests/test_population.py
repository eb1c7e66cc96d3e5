"""One population everywhere: exported qrels and TREC runs, scored by ir_measures, give the report's headline.

Every benchmark is exported the way a user would (`memrecall run --export-rankings --rankings-format trec`,
then `memrecall qrels`), and ir_measures' numbers must equal the report's `overall` to 1e-9. The real LoCoMo
release joins the fixtures when ../shared/data holds it.
"""

from __future__ import annotations

import json

import ir_measures
import pytest
from conftest import FIXTURES, LOCOMO_MISSING, MINI_RELEASE, SHARED_DATA, run
from ir_measures import AP, RR, P, Rprec, Success, nDCG

from memrecall.benchmarks import get_benchmark
from memrecall.reports.exports.trec import population_queries, qrels_text

LOCOMO_REAL = SHARED_DATA / "locomo10.json"
# full-depth names where rankings are whole (EpiRec); elsewhere rankings are scored to depth 10 and say so
EXTRA = {"epirec": "map,precision@3,r_precision"}
EXTRA_AT_DEPTH = "map@10,precision@3"
# (benchmark, data, granularity option for qrels)
CASES = [
    ("epirec", MINI_RELEASE, ()),
    ("locomo", FIXTURES / "locomo_mini.json", ()),
    ("locomo-turn", FIXTURES / "locomo_mini.json", ()),
    ("longmemeval", FIXTURES / "lme_format_mini.json", ()),
    ("beir", FIXTURES.parents[1] / "examples" / "data" / "beir_tiny", ()),
    ("locomo", LOCOMO_REAL, ()),
    ("locomo-turn", LOCOMO_REAL, ()),
]


def same_as(metric: str):
    """The ir_measures measure memrecall's `metric` means: a name without a depth is the full-depth measure."""
    base, _, k = metric.partition("@")
    kinds = {"recall": Success, "ndcg": nDCG, "precision": P}
    if base in kinds:
        return kinds[base] @ int(k)
    if base == "mrr":
        return RR @ int(k) if k else RR
    if base == "map":
        return AP @ int(k) if k else AP
    if base == "r_precision":
        return Rprec
    return None


@pytest.mark.parametrize(("benchmark", "data", "extra"), CASES, ids=lambda v: getattr(v, "name", str(v)))
@pytest.mark.slow
def test_exported_qrels_and_run_score_the_reports_headline(tmp_path, benchmark, data, extra):
    if data == LOCOMO_REAL and not data.exists():
        pytest.skip(LOCOMO_MISSING)
    trec, report, qrels = tmp_path / "run.trec", tmp_path / "report.json", tmp_path / "q.qrels"
    made = run(
        "run", benchmark, "--system", "fts5", "--data", data, "--quiet", "--output", report,
        "--export-rankings", trec, "--rankings-format", "trec", "--metrics", EXTRA.get(benchmark, EXTRA_AT_DEPTH),
    )  # fmt: skip
    assert made.exit_code == 0, made.output
    exported = run("qrels", benchmark, "--data", data, "--out", qrels, *extra)
    assert exported.exit_code == 0, exported.output
    content = json.loads(report.read_text())["content"]
    overall = content["systems"]["fts5"]["results"]["overall"]
    depth = content["scoring"].get("depth")
    measures = {name: same_as(name) for name in content["scoring"]["metrics"]}
    measures = {name: m for name, m in measures.items() if m is not None}
    if depth is None:
        assert {"recall@1", "map", "mrr", "r_precision", "precision@3"} <= set(measures)
    else:  # every name carries the depth it was scored to
        assert {"recall@1", f"map@{depth}", f"mrr@{depth}", "precision@3"} <= set(measures)
        assert not {"map", "mrr", "r_precision"} & set(content["scoring"]["metrics"])
    scored = ir_measures.calc_aggregate(
        list(measures.values()),
        list(ir_measures.read_trec_qrels(str(qrels))),
        list(ir_measures.read_trec_run(str(trec))),
    )
    for name, measure in measures.items():
        assert scored[measure] == pytest.approx(overall[name]["value"], abs=1e-9), name
    assert f"{overall['n']} queries" in exported.output


def test_the_populations_partition_the_judged_queries():
    task = get_benchmark("locomo").load(FIXTURES / "locomo_mini.json").task
    judged = {q.id for q in task.queries if q.targets}
    headline = {q.id for q in population_queries(task, "headline")[0]}
    apart = {q.id for q in population_queries(task, "apart")[0]}
    assert apart, "the LoCoMo sample needs a category-5 question"
    assert headline | apart == judged and not headline & apart
    assert {q.id for q in population_queries(task, "all")[0]} == judged
    _, _, _, left_out = qrels_text(task)
    assert left_out["reported apart (5-adversarial)"] == len(apart)
    assert qrels_text(task, "apart")[3]["in the headline"] == len(headline)


def test_qrels_say_what_they_left_out_and_population_all_keeps_it(tmp_path):
    data = FIXTURES / "locomo_mini.json"
    task = get_benchmark("locomo").load(data).task
    apart = [q for q in task.queries if q.targets and q.strata.get("in_headline") == "no"]
    default = run("qrels", "locomo", "--data", data, "--out", tmp_path / "h.qrels")
    assert default.exit_code == 0 and f"{len(apart)} reported apart (5-adversarial)" in default.output
    everything = run("qrels", "locomo", "--data", data, "--out", tmp_path / "a.qrels", "--population", "all")
    assert everything.exit_code == 0 and "reported apart" not in everything.output
    held = (tmp_path / "a.qrels").read_text()
    assert all(f"{q.id} 0 " in held and f"{q.id} 0 " not in (tmp_path / "h.qrels").read_text() for q in apart)


@pytest.mark.parametrize("rankings_format", ["jsonl", None])
def test_population_without_a_trec_export_is_refused_and_writes_nothing(tmp_path, rankings_format):
    out = tmp_path / "out"
    args = ["run", "locomo", "--system", "fts5", "--data", FIXTURES / "locomo_mini.json", "--quiet"]
    args += ["--output", out / "r.json", "--population", "all"]
    if rankings_format:
        args += ["--export-rankings", out / "r.jsonl", "--rankings-format", rankings_format]
    result = run(*args)
    assert result.exit_code == 2 and "--population applies to TREC files" in result.output
    assert not out.exists()
