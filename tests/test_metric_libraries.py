"""Every metric name against ir_measures (pytrec_eval, i.e. trec_eval) and ranx, over thousands of random rankings."""

import warnings

import ir_measures
import numpy as np
import pytest
from ir_measures import AP, RR, P, R, Rprec, Success, nDCG

from memrecall.scoring.metrics import graded_target_ranks, metric_values, parse_metric, rank_matrix, target_ranks

KS = (1, 3, 5, 10, 20)
QUERIES = 3000


def random_judged_rankings(seed: int, graded: bool):
    """Queries with 1 to 6 targets (a third with one), rankings cut short at random so some miss targets."""
    rng = np.random.default_rng(seed)
    qrels, rankings = {}, {}
    for index in range(QUERIES):
        size = int(rng.integers(1, 41))
        docs = [f"d{j:02d}" for j in range(size)]
        many = 1 if index % 3 == 0 else int(rng.integers(1, min(6, size) + 1))
        targets = rng.choice(size, size=min(many, size), replace=False)
        grades = rng.integers(1, 4, size=len(targets)) if graded else np.ones(len(targets), dtype=int)
        qid = f"q{index:05d}"
        qrels[qid] = {docs[t]: int(g) for t, g in zip(targets, grades, strict=True)}
        order = rng.permutation(size)[: int(rng.integers(1, size + 1))]
        rankings[qid] = [docs[j] for j in order]
    return qrels, rankings


def ours(names, qrels, rankings, graded: bool) -> dict[str, np.ndarray]:
    """Our per-query values, all queries in one rank matrix, as the scorer builds it."""
    qids = sorted(qrels)
    if graded:
        pairs = [graded_target_ranks(rankings[q], qrels[q]) for q in qids]
        ranks = rank_matrix([[r for r, _ in row] for row in pairs])
        gains = rank_matrix([[g for _, g in row] for row in pairs])
    else:
        ranks = rank_matrix([target_ranks(rankings[q], frozenset(qrels[q])) for q in qids])
        gains = None
    return {name: metric_values(parse_metric(name), ranks, gains) for name in names}


def run_of(rankings) -> dict[str, dict[str, float]]:
    """Scores that count down, so every library reads our order exactly (no ties to re-break)."""
    return {q: {d: float(len(ids) - i) for i, d in enumerate(ids)} for q, ids in rankings.items()}


def ir_measures_values(measures, qrels, rankings) -> dict:
    """Per-query values from ir_measures (trec_eval's definitions through pytrec_eval), by measure."""
    out: dict = {m: {} for m in measures}
    for metric in ir_measures.iter_calc(measures, qrels, run_of(rankings)):
        out[metric.measure][metric.query_id] = metric.value
    return {m: np.array([values[q] for q in sorted(qrels)]) for m, values in out.items()}


def ranx_values(names, qrels, rankings) -> dict:
    """Per-query values from ranx, every metric in one call (ranx orders queries by id)."""
    import ranx

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        values = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run_of(rankings)), list(names), return_mean=False)
    return values if isinstance(values, dict) else {names[0]: values}


# our name -> (ir_measures measure, ranx name); recall_all@k is the share of targets found being 1
def library_names(k: int) -> dict[str, tuple]:
    return {
        f"recall@{k}": (Success @ k, f"hit_rate@{k}"),
        f"recall_all@{k}": (R @ k, f"recall@{k}"),
        f"frac_recall@{k}": (R @ k, f"recall@{k}"),
        f"precision@{k}": (P @ k, f"precision@{k}"),
        f"map@{k}": (AP @ k, f"map@{k}"),
        f"mrr@{k}": (RR @ k, f"mrr@{k}"),
        f"ndcg@{k}": (nDCG @ k, f"ndcg@{k}"),
    }


UNCUT = {"map": (AP, "map"), "mrr": (RR, "mrr"), "r_precision": (Rprec, "r-precision")}
TABLE = {name: pair for k in KS for name, pair in library_names(k).items()} | UNCUT


def library_expected(name: str, value: np.ndarray) -> np.ndarray:
    """The library value turned into ours where the definitions differ by a step (recall_all: all found)."""
    return (value >= 1.0 - 1e-15).astype(float) if name.startswith("recall_all@") else value


@pytest.fixture(scope="module")
def binary():
    qrels, rankings = random_judged_rankings(24, graded=False)
    names = list(TABLE)
    return (
        ours(names, qrels, rankings, graded=False),
        ir_measures_values({TABLE[n][0] for n in names}, qrels, rankings),
        ranx_values(list(dict.fromkeys(TABLE[n][1] for n in names)), qrels, rankings),
    )


def test_the_random_rankings_cover_single_and_several_targets_and_missing_targets():
    qrels, rankings = random_judged_rankings(24, graded=False)
    sizes = [len(t) for t in qrels.values()]
    missing = sum(any(d not in rankings[q] for d in t) for q, t in qrels.items())
    assert sizes.count(1) >= QUERIES // 3 and max(sizes) == 6
    assert QUERIES // 4 < missing < QUERIES


@pytest.mark.parametrize("name", list(TABLE))
@pytest.mark.slow
def test_each_metric_equals_ir_measures_per_query(binary, name):
    mine, lib, _ = binary
    expected = library_expected(name, lib[TABLE[name][0]])
    assert np.max(np.abs(mine[name] - expected)) <= 1e-12
    assert np.ptp(mine[name]) > 0  # the rankings tell queries apart: a constant column would prove nothing


@pytest.mark.parametrize("name", list(TABLE))
@pytest.mark.slow
def test_each_metric_equals_ranx_per_query(binary, name):
    mine, _, lib = binary
    expected = library_expected(name, np.asarray(lib[TABLE[name][1]], dtype=float))
    assert np.max(np.abs(mine[name] - expected)) <= 1e-12


def test_graded_ndcg_equals_ir_measures_and_ranx_and_the_rest_count_any_grade_as_relevant():
    qrels, rankings = random_judged_rankings(7, graded=True)
    names = [f"ndcg@{k}" for k in KS] + ["map", "precision@5", "recall@3"]
    mine = ours(names, qrels, rankings, graded=True)
    lib = ir_measures_values({nDCG @ k for k in KS} | {AP, P @ 5, Success @ 3}, qrels, rankings)
    rx = ranx_values([f"ndcg@{k}" for k in KS], qrels, rankings)
    for k in KS:
        assert np.max(np.abs(mine[f"ndcg@{k}"] - lib[nDCG @ k])) <= 1e-12
        assert np.max(np.abs(mine[f"ndcg@{k}"] - np.asarray(rx[f"ndcg@{k}"]))) <= 1e-12
    for name, measure in (("map", AP), ("precision@5", P @ 5), ("recall@3", Success @ 3)):
        assert np.max(np.abs(mine[name] - lib[measure])) <= 1e-12
    binary_ndcg = ours(["ndcg@10"], qrels, rankings, graded=False)["ndcg@10"]
    assert np.max(np.abs(binary_ndcg - mine["ndcg@10"])) > 0.01  # grades change nDCG, as they should


# --- every name a report prints, on a real run: memrecall's report against ir_measures on the same files ------


def library_measure(name: str):
    """The ir_measures measure a memrecall metric name means (recall_all@k: R@k reaching 1)."""
    metric = parse_metric(name)
    cut = {
        "recall": Success,
        "recall_all": R,
        "frac_recall": R,
        "precision": P,
        "ndcg": nDCG,
        "map": AP,
        "mrr": RR,
    }
    if metric.k is None:
        return {"map": AP, "mrr": RR, "r_precision": Rprec}[metric.kind]
    return cut[metric.kind] @ metric.k


def report_against_ir_measures(tmp_path, benchmark: str, data, metrics: str) -> dict:
    """Run fts5 on `benchmark`, export its TREC run and the qrels, and compare every printed metric's overall value."""
    import json

    from conftest import run

    report, trec, qrels = tmp_path / "r.json", tmp_path / "r.trec", tmp_path / "q.qrels"
    made = run("run", benchmark, "--system", "fts5", "--data", data, "--metrics", metrics, "--resamples", "100",
               "--quiet", "--output", report, "--export-rankings", trec, "--rankings-format", "trec")  # fmt: skip
    assert made.exit_code == 0, made.output
    written = run("qrels", benchmark, "--data", data, "--out", qrels)
    assert written.exit_code == 0, written.output
    content = json.loads(report.read_text())["content"]
    overall = content["systems"]["fts5"]["results"]["overall"]
    names = content["scoring"]["metrics"]
    per_query: dict = {}
    measures = {library_measure(n) for n in names}
    for value in ir_measures.iter_calc(
        measures, ir_measures.read_trec_qrels(str(qrels)), ir_measures.read_trec_run(str(trec))
    ):
        per_query.setdefault(value.measure, {})[value.query_id] = value.value
    out = {}
    for name in names:
        values = np.array(list(per_query[library_measure(name)].values()))
        if name.startswith("recall_all@"):
            values = (values >= 1.0 - 1e-15).astype(float)
        assert len(values) == overall["n"], name
        out[name] = (overall[name]["value"], float(np.mean(values)))
    return out


def test_every_metric_an_epirec_report_prints_is_ir_measures_value(tmp_path):
    from conftest import MINI_RELEASE

    asked = "map,r_precision,map@10,mrr@10,precision@5,frac_recall@3,ndcg@10,recall_all@3"
    pairs = report_against_ir_measures(tmp_path, "epirec", MINI_RELEASE, asked)
    assert set(pairs) == {"recall@3", "recall@1", "mrr", *asked.split(",")}
    for name, (ours_value, library) in pairs.items():
        assert ours_value == pytest.approx(library, abs=1e-10), name


@pytest.mark.realdata
@pytest.mark.slow
def test_every_metric_a_locomo_turn_report_prints_is_ir_measures_value(tmp_path):
    from conftest import shared_file

    asked = "map@10,precision@5,frac_recall@10,ndcg@5"
    pairs = report_against_ir_measures(tmp_path, "locomo-turn", shared_file("locomo10.json"), asked)
    assert "mrr@10" in pairs and "mrr" not in pairs and "map" not in pairs
    assert len(pairs) == 16  # recall@1,3,5,10, recall_all@1,3,5,10, ndcg@1,3,5,10, mrr@10 and 3 more asked
    for name, (ours_value, library) in pairs.items():
        assert ours_value == pytest.approx(library, abs=1e-10), name


@pytest.mark.parametrize("benchmark", ["locomo", "locomo-turn", "longmemeval"])
@pytest.mark.parametrize("name", ["map", "mrr", "r_precision"])
def test_a_full_depth_metric_is_refused_where_rankings_are_scored_to_a_depth(tmp_path, benchmark, name):
    from conftest import run

    data = {"locomo": "locomo_tiny.json", "locomo-turn": "locomo_tiny.json", "longmemeval": "longmemeval_tiny.json"}
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "examples" / "data" / data[benchmark]
    result = run(
        "run", benchmark, "--system", "fts5", "--data", path, "--metrics", name, "--output", tmp_path / "r.json"
    )
    assert result.exit_code == 1, result.output
    assert f"{name}: not measurable on {benchmark}, whose rankings are scored to depth 10" in result.output
    assert not (tmp_path / "r.json").exists()
