"""What a diff shows: per headline query the gold's rank under each system, the outcome, and the paired tests."""

from __future__ import annotations

from dataclasses import replace

from memrecall.reports.diff.inputs import Sides
from memrecall.scoring.metrics import parse_metric
from memrecall.scoring.paired import compare_systems
from memrecall.scoring.per_query import primary_cutoff
from memrecall.scoring.policy import ScoringConfig, in_headline

OUTCOMES = ("fixed", "broken", "both found", "both missed")
SHOWN = 5  # ranked documents shown per system at least (more when the cut-off is deeper)


def outcome(before: int | None, after: int | None, k: int) -> str:
    """fixed (missed within k, now found), broken (the reverse), both found or both missed."""
    was, now = before is not None and before <= k, after is not None and after <= k
    return ("both found" if now else "broken") if was else ("fixed" if now else "both missed")


def strata_keys(sides: Sides) -> list[str]:
    """The strata a benchmark reports by (EpiRec probe type, band, age; LongMemEval question type; LoCoMo category)."""
    keys = [key for grouping in sides.benchmark.groupings for key in grouping]
    return list(dict.fromkeys(keys))


def first_gold_rank(doc_ids: tuple[str, ...], gold: frozenset[str]) -> int | None:
    """The rank (from 1) of the first gold document in a ranking, or None when none is ranked."""
    return next((i for i, doc in enumerate(doc_ids, start=1) if doc in gold), None)


def diff_content(sides: Sides, k: int | None = None) -> dict:
    """The diff of every system against the first, at cut-off `k` (default: the primary metric's)."""
    k = k or primary_cutoff(sides.primary_metric)
    task, runs = sides.loaded.task, sides.sides
    keys = strata_keys(sides)
    show = max(k, SHOWN)
    headline = [q for q in task.queries if q.targets and in_headline(q)]
    floor = 1 + max((len(r.doc_ids) for s in runs for r in s.rankings.values()), default=0)
    texts: dict[str, dict[str, str]] = {}
    queries = []
    for query in headline:
        store = {d.id: d for d in task.stores[query.store_id]}
        used = texts.setdefault(query.store_id, {})
        ranks = [first_gold_rank(s.rankings[query.id].doc_ids, query.targets) for s in runs]
        tops = [list(s.rankings[query.id].doc_ids[:show]) for s in runs]
        for doc_id in [*sorted(query.targets), *(d for top in tops for d in top)]:
            if doc_id in store:
                used[doc_id] = store[doc_id].text
        changes = [(r or floor) - (ranks[0] or floor) for r in ranks[1:]]
        queries.append(
            {
                "id": query.id,
                "store": query.store_id,
                "text": query.text,
                "time": query.time.isoformat() if query.time else None,
                "strata": {key: query.strata[key] for key in keys if key in query.strata},
                "gold": sorted(query.targets),
                "ranks": ranks,
                "top": tops,
                "outcomes": [outcome(ranks[0], r, k) for r in ranks[1:]],
                "changes": changes,
            }
        )
    order = sorted(range(len(queries)), key=lambda i: (-max(map(abs, queries[i]["changes"]), default=0), i))
    queries = [queries[i] for i in order]
    return {
        "benchmark": sides.benchmark.name,
        "task": {"name": task.name, "version": task.version, "source_sha256": task.source_sha256},
        "k": k,
        "metric": f"recall@{k}",
        "unranked": floor,
        "strata_keys": keys,
        "systems": [{"name": s.name, "report_content_sha256": s.fingerprint} for s in runs],
        "comparisons": [_comparison(sides, index, queries, keys, k) for index in range(1, len(runs))],
        "queries": queries,
        "documents": {store: dict(sorted(docs.items())) for store, docs in sorted(texts.items())},
    }


def _comparison(sides: Sides, index: int, queries: list[dict], keys: list[str], k: int) -> dict:
    """One system against the first: outcome counts and the paired test of recall@k, overall and per stratum."""
    config = _config(sides, f"recall@{k}")
    task, first, other = sides.loaded.task, sides.sides[0].rankings, sides.sides[index].rankings
    tests = {key: compare_systems(task, other, first, config, key) for key in keys} or {
        "": compare_systems(task, other, first, config, None)
    }
    overall = next(iter(tests.values()))["overall"]
    groups = [{"stratum": None, **_row(queries, index, None, None, overall, config.metrics[0])}]
    for key, by_value in tests.items():
        for value, row in by_value.items():
            if value != "overall":
                groups.append({"stratum": [key, value], **_row(queries, index, key, value, row, config.metrics[0])})
    return {"system": sides.sides[index].name, "against": sides.sides[0].name, "groups": groups}


def _row(queries: list[dict], index: int, key: str | None, value: str | None, test: dict, metric: str) -> dict:
    """Outcome counts of the queries in one stratum (all for key None), with the paired test's cells."""
    members = [q for q in queries if key is None or q["strata"].get(key) == value]
    counts = {name: sum(q["outcomes"][index - 1] == name for q in members) for name in OUTCOMES}
    cell = test[metric]
    return {
        "n": test["n"],
        "counts": counts,
        "difference": cell["difference"],
        "ci_low": cell["ci_low"],
        "ci_high": cell["ci_high"],
        "p_value": cell["p_value"],
    }


def _config(sides: Sides, metric: str) -> ScoringConfig:
    """The first report's bootstrap (seed, resamples, confidence, unit) and depth, on one metric."""
    bootstrap = sides.scoring.get("bootstrap", {})
    config = ScoringConfig(
        metrics=(parse_metric(metric).name,),
        seed=bootstrap.get("seed", 0),
        resamples=bootstrap.get("resamples", 2000),
        confidence=bootstrap.get("confidence", 0.95),
        resample_unit=bootstrap.get("unit", sides.benchmark.resample_unit),
    )
    return replace(config, depth=sides.scoring.get("depth"))
