"""Interchange: --metrics on every scoring command, TREC qrels and runs that ir_measures scores to our numbers,
compare's CSV and LaTeX tables with hostile names, and Result.to_frame()."""

from __future__ import annotations

import csv
import io
import json
import re
import sys

import ir_measures
import pytest
from conftest import FIXTURES, MINI_RELEASE, run
from ir_measures import AP, RR, P, R, Rprec, Success, nDCG

from memrecall.api import evaluate_rankings
from memrecall.benchmarks import get_benchmark
from memrecall.data.model import Task
from memrecall.errors import ConfigError
from memrecall.reports.exports.frames import COLUMNS, PAIRED
from memrecall.reports.exports.trec import qrels_text, trec_id_problem
from memrecall.scoring.metrics import KNOWN_METRICS

LOCOMO = FIXTURES / "locomo_mini.json"
LME = FIXTURES / "lme_format_mini.json"
ALL_KINDS = "frac_recall@3,precision@3,r_precision,map,map@3,mrr@1,ndcg@3,recall_all@3,recall@2"
# our name -> the ir_measures measure that computes the same number (recall@k is ir_measures' Success@k)
SAME_AS = {
    "frac_recall@3": R @ 3,
    "precision@3": P @ 3,
    "r_precision": Rprec,
    "map": AP,
    "map@3": AP @ 3,
    "mrr@1": RR @ 1,
    "mrr": RR,
    "ndcg@3": nDCG @ 3,
    "recall@1": Success @ 1,
    "recall@2": Success @ 2,
    "recall@3": Success @ 3,
}


@pytest.fixture(scope="module")
def baseline_trec(tmp_path_factory, embedding_cache):
    out = tmp_path_factory.mktemp("trec")
    result = run(
        "baseline",
        "--data",
        MINI_RELEASE,
        "--strategies",
        "recency,hashing",
        "--output",
        out / "baseline.json",
        "--export-rankings",
        out / "rk",
        "--rankings-format",
        "trec",
        "--metrics",
        ALL_KINDS,
        "--resamples",
        "200",
        "--quiet",
        "--cache-dir",
        embedding_cache,
    )
    assert result.exit_code == 0, result.output
    assert run("qrels", "epirec", "--data", MINI_RELEASE, "--out", out / "epirec.qrels").exit_code == 0
    return out


@pytest.mark.parametrize("strategy", ["recency", "hashing"])
def test_exported_qrels_and_trec_run_score_to_the_reports_numbers_in_ir_measures(baseline_trec, strategy):
    qrels = list(ir_measures.read_trec_qrels(str(baseline_trec / "epirec.qrels")))
    trec_run = list(ir_measures.read_trec_run(str(baseline_trec / "rk" / f"{strategy}.trec")))
    library = ir_measures.calc_aggregate(list(SAME_AS.values()), qrels, trec_run)
    overall = json.loads((baseline_trec / "baseline.json").read_text())["content"]["systems"][strategy]["results"]
    overall = overall["overall"]
    for name, measure in SAME_AS.items():
        assert overall[name]["value"] == pytest.approx(library[measure], abs=1e-11), name
    assert overall["n"] == len({q.query_id for q in qrels})


def test_a_trec_run_export_reads_back_through_evaluate_to_the_same_results(baseline_trec, tmp_path):
    result = run(
        "evaluate",
        baseline_trec / "rk" / "hashing.trec",
        "--data",
        MINI_RELEASE,
        "--output",
        tmp_path / "e.json",
        "--metrics",
        ALL_KINDS,
        "--resamples",
        "200",
    )
    assert result.exit_code == 0, result.output
    replayed = json.loads((tmp_path / "e.json").read_text())["content"]["systems"]["hashing"]["results"]
    baseline = json.loads((baseline_trec / "baseline.json").read_text())["content"]["systems"]["hashing"]
    assert replayed == baseline["results"]


def test_the_chosen_metrics_are_recorded_in_the_signed_content_beside_a_fixed_headline(baseline_trec):
    content = json.loads((baseline_trec / "baseline.json").read_text())["content"]
    assert content["primary_metric"] == "recall@3"
    assert content["scoring"]["metrics"][:3] == ["recall@3", "recall@1", "mrr"]
    assert content["scoring"]["requested_metrics"] == ALL_KINDS.split(",")


def test_without_metrics_the_scoring_block_is_the_policys_own(tmp_path):
    out = tmp_path / "plain.json"
    result = run("run", "locomo", "--system", "fts5", "--data", LOCOMO, "--output", out, "--quiet")
    assert result.exit_code == 0, result.output
    scoring = json.loads(out.read_text())["content"]["scoring"]
    assert "requested_metrics" not in scoring
    assert scoring["metrics"] == list(get_benchmark("locomo").scoring().metrics)


@pytest.mark.parametrize(
    "command",
    [
        ["evaluate", "RANKINGS", "--data", MINI_RELEASE],
        ["compare", "RANKINGS", "RANKINGS", "--data", MINI_RELEASE],
        ["run", "locomo", "--system", "fts5", "--data", LOCOMO],
        ["baseline", "--data", MINI_RELEASE, "--strategies", "recency"],
        ["sweep", "--systems", "fts5", "--benchmarks", "locomo", "--data", f"locomo={LOCOMO}"],
        ["locomo", "--data", LOCOMO, "--modes", "fts5"],
        ["longmemeval", "--data", LME, "--modes", "fts5"],
    ],
)
# An empty item ("recall@3,,mrr") is the comma-list rule's: tests/faults/test_list_options.py.
@pytest.mark.parametrize("bad", ["P@5", "recall@0", "map@", "ndcg@100001"])
def test_an_unknown_metric_is_one_line_naming_the_known_ones_and_nothing_is_written(
    baseline_trec, tmp_path, command, bad
):
    rankings = baseline_trec / "rk" / "recency.trec"
    args = [rankings if a == "RANKINGS" else a for a in command]
    where = "--out" if command[0] == "sweep" else "--output"
    target = tmp_path / ("swept" if command[0] == "sweep" else "r.json")
    result = run(*args, where, target, "--metrics", bad)
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: --metrics: unknown metric"), result.output
    assert KNOWN_METRICS in lines[0]
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("name", "data", "queries", "judgements"),
    [
        ("epirec", MINI_RELEASE, None, None),
        ("epirec-v1", None, 504, 504),
        ("locomo", LOCOMO, None, None),
        ("locomo-turn", LOCOMO, None, None),
        ("longmemeval", LME, None, None),
        ("longmemeval-official", LME, None, None),
    ],
)
def test_qrels_for_every_benchmark_hold_one_line_per_target_of_each_judged_query(
    tmp_path, name, data, queries, judgements
):
    out = tmp_path / "x.qrels"
    result = run("qrels", name, *(["--data", data] if data else []), "--out", out, "--population", "all")
    assert result.exit_code == 0, result.output
    bench = get_benchmark(name.removesuffix("-v1"))
    task = bench.load(bench.resolve_data(data) if data else next_bundled(name)).task
    judged = [q for q in task.queries if q.targets]
    expected = sorted(f"{q.id} 0 {t} 1" for q in judged for t in q.targets)
    assert sorted(out.read_text().splitlines()) == expected
    assert f"(the all population: {len(judged)} queries, {len(expected)} judgements" in result.output
    if queries is not None:
        assert (len(judged), len(expected)) == (queries, judgements)


def next_bundled(name: str):
    from memrecall.running.sweep import sweep_benchmarks

    return sweep_benchmarks([name], {})[0].data


def test_graded_targets_are_written_with_their_grades():
    from conftest import doc, query

    graded = query("q", targets=("a", "b"))
    graded = type(graded)(graded.id, "s", graded.text, graded.time, graded.targets, {}, {"a": 3})
    task = Task("t", "1", "0" * 64, {"s": (doc("a", "x"), doc("b", "y"))}, (graded,))
    assert qrels_text(task)[0] == "q 0 a 3\nq 0 b 1\n"


@pytest.mark.parametrize("bad_id", ["conv a", "conv\ta", "conv\u000ba", "conv\ra", " conv"])
def test_an_id_a_trec_file_cannot_carry_is_refused_before_anything_is_written(tmp_path, bad_id):
    records = json.loads(LOCOMO.read_text())
    records[0]["sample_id"] = bad_id + "x"
    data = tmp_path / "locomo.json"
    data.write_text(json.dumps(records))
    task = get_benchmark("locomo").load(data).task
    assert "holds whitespace" in (trec_id_problem(task) or "")
    for args in (
        ["qrels", "locomo", "--data", data, "--out", tmp_path / "out" / "q.qrels"],
        ["run", "locomo", "--system", "fts5", "--data", data, "--output", tmp_path / "out" / "r.json"]
        + ["--export-rankings", tmp_path / "out" / "r.trec", "--rankings-format", "trec", "--quiet"],
    ):
        result = run(*args)
        assert result.exit_code == 1, result.output
        (line,) = result.output.strip().splitlines()
        assert "TREC" in line and "holds whitespace" in line and repr(bad_id + "x")[1:-1] in line
        assert not (tmp_path / "out").exists() or list((tmp_path / "out").iterdir()) == []


HOSTILE = ["a&b%c$d#e_f{g}h~i^j\\k<l>m|n", 'quote"and,comma', "dollar$ sign 50%", "=1+2", "-x@y"]


@pytest.fixture(scope="module")
def hostile_compare(baseline_trec, tmp_path_factory):
    folder = tmp_path_factory.mktemp("hostile")
    files = []
    for name, source in zip(HOSTILE, ["recency", "hashing", "recency", "hashing", "recency"], strict=True):
        path = folder / f"{name}.trec"
        path.write_text((baseline_trec / "rk" / f"{source}.trec").read_text())
        files.append(path)
    result = run(
        "compare",
        *files,
        "--data",
        MINI_RELEASE,
        "--output",
        folder / "c.json",
        "--csv",
        folder / "c.csv",
        "--latex",
        folder / "c.tex",
        "--metrics",
        "map,precision@3",
        "--resamples",
        "200",
        "--quiet",
    )
    assert result.exit_code == 0, result.output
    return folder


def test_compare_writes_a_csv_table_whose_cells_read_back_exactly(hostile_compare):
    """Exactly, but for the formula rule: a text cell beginning with = + - @ tab or CR reads back behind a '."""
    rows = list(csv.reader(io.StringIO((hostile_compare / "c.csv").read_text())))
    assert rows[0] == [*COLUMNS, *PAIRED]
    assert {r[0] for r in rows[1:]} == {"'" + n if n[0] in "=+-@" else n for n in HOSTILE}
    numbers = [c for r in rows[1:] for c in r[4:8] + r[8:] if c]
    assert any(c.startswith("-") for c in numbers)  # a negative paired difference, written as a number
    assert all(float(c) == float(c) for c in numbers)
    content = json.loads((hostile_compare / "c.json").read_text())["content"]
    overall = content["systems"][HOSTILE[1]]["results"]["overall"]
    (row,) = [r for r in rows if r[0] == HOSTILE[1] and r[1] == "overall" and r[3] == "map"]
    assert float(row[4]) == pytest.approx(overall["map"]["value"], abs=5e-5)
    assert row[8] != "" and row[11] != ""  # the second system carries its paired difference and Holm p
    (first,) = [r for r in rows if r[0] == HOSTILE[0] and r[1] == "overall" and r[3] == "map"]
    assert first[8:] == ["", "", "", ""]
    metrics = {r[3] for r in rows[1:]}
    assert {"recall@3", "recall@1", "mrr", "map", "precision@3"} == metrics


def test_compare_writes_a_latex_table_with_every_special_character_escaped(hostile_compare):
    text = (hostile_compare / "c.tex").read_text()
    assert text.startswith("\\begin{tabular}{llll") and text.rstrip().endswith("\\end{tabular}")
    body = [line for line in text.splitlines() if "&" in line and not line.startswith("\\")]
    assert len(body) > len(HOSTILE)
    for line in body:
        for cell in re.split(r"(?<!\\) & ", line.removesuffix(r" \\")):
            bare = re.sub(
                r"\\(textbackslash|textasciitilde|textasciicircum|textless|textgreater|textbar)\{\}", "", cell
            )
            bare = re.sub(r"\\[&%$#_{}]", "", bare)
            assert not set(bare) & set("\\&%$#_{}~^<>|"), cell
    assert r"a\&b\%c\$d\#e\_f\{g\}h\textasciitilde{}i\textasciicircum{}j\textbackslash{}k\textless{}l" in text


def test_compare_tables_are_refused_for_reports(baseline_trec, tmp_path):
    report = baseline_trec / "baseline.json"
    result = run("compare", report, report, "--csv", tmp_path / "c.csv", "--output", tmp_path / "c.json")
    assert (
        result.exit_code == 2 and "--csv cannot apply to a compare of reports: it needs rankings files" in result.output
    )
    assert list(tmp_path.iterdir()) == []


def test_result_to_frame_has_a_row_per_system_group_and_metric(baseline_trec):
    result = evaluate_rankings(baseline_trec / "rk" / "hashing.trec", "epirec", data=MINI_RELEASE, metrics=["map"])
    frame = result.to_frame()
    assert list(frame.columns) == list(COLUMNS)
    overall = frame[(frame.grouping == "overall") & (frame.metric == "map")]
    assert overall.value.tolist() == [result.metrics["overall"]["map"]["value"]]
    by_probe = frame[(frame.grouping == "by_probe_type") & (frame.metric == "recall@3")]
    assert sorted(by_probe.group) == sorted(result.metrics["by_probe_type"])
    assert set(frame.metric) == {"recall@3", "recall@1", "mrr", "map"}


def test_result_to_frame_without_pandas_says_how_to_install_it(baseline_trec, monkeypatch):
    result = evaluate_rankings(baseline_trec / "rk" / "hashing.trec", "epirec", data=MINI_RELEASE)
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(ConfigError, match=r"needs pandas.*pip install pandas"):
        result.to_frame()


def test_harness_metrics_and_trec_exports_per_mode(tmp_path):
    result = run(
        "locomo",
        "--data",
        LOCOMO,
        "--modes",
        "fts5",
        "--output",
        tmp_path / "h.json",
        "--export-rankings",
        tmp_path / "h.trec",
        "--rankings-format",
        "trec",
        "--metrics",
        "map@10,precision@2",
        "--resamples",
        "200",
        "--quiet",
    )
    assert result.exit_code == 0, result.output
    content = json.loads((tmp_path / "h.json").read_text())["content"]
    assert content["scoring"]["requested_metrics"] == ["map@10", "precision@2"]
    assert {"map@10", "precision@2"} <= set(content["systems"]["fts5"]["results"]["overall"])
    lines = (tmp_path / "h.trec").read_text().splitlines()
    assert lines and all(len(line.split()) == 6 and line.endswith(" fts5") for line in lines)


def test_sweep_adds_the_chosen_metrics_to_reports_and_summaries_and_writes_trec_runs(tmp_path):
    out = tmp_path / "swept"
    result = run(
        "sweep",
        "--systems",
        "fts5",
        "--benchmarks",
        "locomo",
        "--data",
        f"locomo={LOCOMO}",
        "--out",
        out,
        "--metrics",
        "map@10,ndcg@2",
        "--rankings-format",
        "trec",
        "--resamples",
        "200",
    )
    assert result.exit_code == 0, result.output
    report = json.loads((out / "locomo" / "fts5.report.json").read_text())
    assert report["content"]["scoring"]["requested_metrics"] == ["map@10", "ndcg@2"]
    rows = list(csv.DictReader(io.StringIO((out / "summary.csv").read_text())))
    assert [r["metric"] for r in rows] == ["recall@1", "map@10", "ndcg@2"]
    overall = report["content"]["systems"]["fts5"]["results"]["overall"]
    assert rows[1]["value"] == f"{overall['map@10']['value']:.3f}"
    assert not (out / "locomo" / "fts5.rankings.jsonl").exists()
    trec = (out / "locomo" / "fts5.rankings.trec").read_text().splitlines()
    assert trec[0].split()[1] == "Q0" and trec[0].split()[-1] == "fts5"
    replay = run("evaluate", out / "locomo" / "fts5.rankings.trec", "--benchmark", "locomo", "--data", LOCOMO)
    assert replay.exit_code == 0, replay.output


def test_verify_replays_a_report_made_with_metrics(baseline_trec, tmp_path):
    for name in ("recency", "hashing"):
        (tmp_path / f"{name}.trec").write_text((baseline_trec / "rk" / f"{name}.trec").read_text())
    report = baseline_trec / "baseline.json"
    files = [a for name in ("recency", "hashing") for a in ("--rankings", tmp_path / f"{name}.trec")]
    result = run("verify", report, *files, "--data", MINI_RELEASE)
    assert result.exit_code == 0, result.output
    assert "replayed" in result.output
    evaluated = tmp_path / "e.json"
    args = ["--data", MINI_RELEASE, "--output", evaluated, "--metrics", "map@2,r_precision", "--resamples", "200"]
    assert run("evaluate", tmp_path / "hashing.trec", *args).exit_code == 0
    result = run("verify", evaluated, "--rankings", tmp_path / "hashing.trec", "--data", MINI_RELEASE)
    assert result.exit_code == 0 and "replayed" in result.output, result.output


def test_asking_for_metrics_the_policy_scores_already_changes_nothing(baseline_trec, tmp_path):
    rankings = baseline_trec / "rk" / "hashing.trec"
    common = ["--data", MINI_RELEASE, "--resamples", "200"]
    assert run("evaluate", rankings, *common, "--output", tmp_path / "a.json").exit_code == 0
    assert (
        run("evaluate", rankings, *common, "--output", tmp_path / "b.json", "--metrics", "MRR, recall@3").exit_code == 0
    )
    assert (tmp_path / "a.json").read_text() != ""
    first, second = (json.loads((tmp_path / n).read_text()) for n in ("a.json", "b.json"))
    assert first["content"] == second["content"]


def test_metrics_beside_the_policy_leave_the_comparability_manifest_alone(tmp_path):
    outputs = []
    for extra in ([], ["--metrics", "ndcg@20,map@50,precision@7"]):
        out = tmp_path / f"r{len(extra)}.json"
        assert (
            run("run", "locomo", "--system", "fts5", "--data", LOCOMO, "--output", out, "--quiet", *extra).exit_code
            == 0
        )
        outputs.append(json.loads(out.read_text())["content"])
    assert outputs[0]["comparability"] == outputs[1]["comparability"]
    assert outputs[0]["comparability"]["k"] == [1, 3, 5, 10]
    assert outputs[1]["scoring"]["requested_metrics"] == ["ndcg@20", "map@50", "precision@7"]


def test_longmemeval_qrels_at_turn_granularity_name_turns(tmp_path):
    out = tmp_path / "turn.qrels"
    result = run("qrels", "longmemeval", "--data", LME, "--granularity", "turn", "--out", out)
    assert result.exit_code == 0, result.output
    task = get_benchmark("longmemeval").load(LME, granularity="turn").task
    expected = sorted(f"{q.id} 0 {t} 1" for q in task.queries if q.targets for t in q.targets)
    assert sorted(out.read_text().splitlines()) == expected
    sessions = {d.id for docs in get_benchmark("longmemeval").load(LME).task.stores.values() for d in docs}
    assert not {line.split()[2] for line in expected} & sessions
    refused = run("qrels", "locomo", "--data", LOCOMO, "--granularity", "turn", "--out", tmp_path / "x.qrels")
    assert refused.exit_code == 2 and "only for the longmemeval benchmarks" in refused.output
    assert not (tmp_path / "x.qrels").exists()


class DepthRecorder:
    """Ranks a store in order and remembers how deep it was asked to rank."""

    name = "depth-recorder"

    def __init__(self):
        self.depths = []
        self.documents = []

    def prepare(self, public_task):
        self.depths.append(public_task.depth)

    def index(self, documents):
        self.documents = [d.id for d in documents]

    def rank(self, query):
        return list(self.documents)


@pytest.mark.parametrize(("metrics", "depth"), [((), 10), (("map@10",), 10), (("ndcg@25", "precision@12"), 25)])
def test_run_asks_a_system_for_the_deepest_cut_off_scored(metrics, depth):
    from memrecall.api import run_system

    system = DepthRecorder()
    run_system(system, "locomo", data=LOCOMO, metrics=metrics, resamples=100)
    assert system.depths == [depth]


def test_graded_judgements_reach_ndcg_through_the_scorer_and_match_ir_measures():
    from conftest import doc, query

    from memrecall.data.model import Ranking
    from memrecall.scoring.policy import ScoringConfig, score_task

    base = query("q", targets=("a", "c", "d"))
    graded = type(base)("q", "s", "q", base.time, base.targets, {}, {"a": 1, "c": 3, "d": 2})
    store = {"s": tuple(doc(i, i) for i in "abcde")}
    ranking = Ranking("q", ("b", "a", "e", "c", "d"), (5.0, 4.0, 3.0, 2.0, 1.0))
    names = ("ndcg@3", "ndcg@5", "map", "precision@2")
    config = ScoringConfig(metrics=names, groupings=((),), resamples=100)
    overall = score_task(Task("t", "1", "0" * 64, store, (graded,)), {"q": ranking}, config)["overall"]
    qrels = {"q": {"a": 1, "c": 3, "d": 2}}
    run_scores = {"q": dict(zip(ranking.doc_ids, ranking.scores, strict=True))}
    library = ir_measures.calc_aggregate([nDCG @ 3, nDCG @ 5, AP, P @ 2], qrels, run_scores)
    for name, measure in zip(names, (nDCG @ 3, nDCG @ 5, AP, P @ 2), strict=True):
        assert overall[name]["value"] == pytest.approx(library[measure], abs=1e-12), name
    ungraded = Task("t", "1", "0" * 64, store, (base,))
    plain = score_task(ungraded, {"q": ranking}, config)["overall"]
    assert plain["map"] == overall["map"] and plain["ndcg@5"]["value"] != overall["ndcg@5"]["value"]


def test_the_beir_samples_graded_qrels_and_trec_run_give_the_reports_graded_ndcg_in_ir_measures(tmp_path):
    data = FIXTURES.parent.parent / "examples" / "data" / "beir_memory"
    report, trec, qrels = tmp_path / "r.json", tmp_path / "r.trec", tmp_path / "q.qrels"
    args = ["--output", report, "--export-rankings", trec, "--rankings-format", "trec", "--quiet"]
    assert run("run", "beir", "--data", data, "--system", "fts5", *args, "--metrics", "map@10").exit_code == 0
    assert run("qrels", "beir", "--data", data, "--out", qrels).exit_code == 0
    grades = {line.split()[3] for line in qrels.read_text().splitlines()}
    assert grades == {"1", "2"}
    measures = [nDCG @ 10, nDCG @ 3, AP @ 10, RR @ 10, Success @ 1]
    library = ir_measures.calc_aggregate(
        measures, list(ir_measures.read_trec_qrels(str(qrels))), list(ir_measures.read_trec_run(str(trec)))
    )
    overall = json.loads(report.read_text())["content"]["systems"]["fts5"]["results"]["overall"]
    for name, measure in zip(["ndcg@10", "ndcg@3", "map@10", "mrr@10", "recall@1"], measures, strict=True):
        assert overall[name]["value"] == pytest.approx(library[measure], abs=1e-11), name
