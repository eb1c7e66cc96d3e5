"""Score a Task's rankings: metric values per query, grouped by strata, with bootstrap CIs."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np

from memrecall.data.model import JudgedQuery, Ranking, Task
from memrecall.scoring.depth import at_depth
from memrecall.scoring.metrics import (
    DEFAULT_RESAMPLES,
    Metric,
    cluster_numbers,
    exact_mean,
    graded_target_ranks,
    group_bootstrap_ci,
    metric_values,
    parse_metric,
    rank_matrix,
    target_ranks,
)
from memrecall.scoring.options import check_bootstrap, parse_metric_list

EPIREC_METRICS = ("recall@3", "recall@1", "mrr")
EPIREC_GROUPINGS = ((), ("probe_type",), ("probe_type", "intensity_band"), ("probe_type", "age_bucket"))


@dataclass(frozen=True)
class ScoringConfig:
    """Which metrics, which strata groupings, and how the bootstrap is drawn."""

    metrics: tuple[str, ...] = EPIREC_METRICS
    groupings: tuple[tuple[str, ...], ...] = EPIREC_GROUPINGS
    apart_groupings: tuple[tuple[str, ...], ...] = ()
    seed: int = 0
    resamples: int = DEFAULT_RESAMPLES
    confidence: float = 0.95
    count_without_targets_by: tuple[str, ...] = ()
    requested: tuple[str, ...] = ()
    depth: int | None = None  # rankings are scored down to this rank (None: whole rankings)
    resample_unit: str = "query"  # what the bootstrap and the paired test resample: queries, or whole stores

    def __post_init__(self) -> None:
        check_bootstrap(self.seed, self.resamples, self.resample_unit)

    def clusters(self, queries: Sequence[JudgedQuery]) -> tuple[int, ...] | None:
        """The queries' cluster numbers when whole stores are resampled; None at the query level."""
        return cluster_numbers([q.store_id for q in queries]) if self.resample_unit == "store" else None

    def with_requested(self, names: Sequence[str]) -> ScoringConfig:
        """This policy with the metrics a user asked for (--metrics) added after its own; itself when none is new.

        `requested` keeps only the added names, so the policy's own are the metrics not in it.
        """
        added = tuple(n for n in parse_metric_list(names or None) if n not in self.metrics)
        if not added:
            return self
        return replace(self, metrics=(*self.metrics, *added), requested=(*self.requested, *added))

    def describe(self) -> dict:
        """The config as it is recorded in reports."""
        described = {
            "metrics": list(self.metrics),
            "groupings": [grouping_name(g) for g in self.groupings],
            "bootstrap": {
                "method": "percentile",
                "resamples": self.resamples,
                "seed": self.seed,
                "confidence": self.confidence,
                "unit": self.resample_unit,
            },
        }
        if self.requested:
            described["requested_metrics"] = list(self.requested)
        if self.depth is not None:
            described["depth"] = self.depth
        if self.apart_groupings:
            described["apart_groupings"] = ["apart_" + grouping_name(g) for g in self.apart_groupings]
        return described


def grouping_name(keys: Sequence[str]) -> str:
    """`overall` for no keys, else `by_` + keys joined by `_x_`."""
    return "overall" if not keys else "by_" + "_x_".join(keys)


def per_query_values(
    task: Task, rankings: Mapping[str, Ranking], metrics: Sequence[Metric], depth: int | None
) -> np.ndarray:
    """A (metrics x scored queries) array over the task's queries that have targets, in task order.

    Metrics without a cut-off read each ranking down to `depth` (see scoring_depth); None reads it whole.
    """
    scored = [q for q in task.queries if q.targets]
    missing = [q.id for q in scored if q.id not in rankings]
    if missing:
        raise KeyError(f"no ranking for {len(missing)} quer{'y' if len(missing) == 1 else 'ies'}, e.g. {missing[0]}")
    if not scored:
        return np.zeros((len(metrics), 0))
    uncut = [i for i, m in enumerate(metrics) if m.k is None]
    if depth is None or not uncut:
        return _values(scored, rankings, metrics)
    cut = {q.id: at_depth(rankings[q.id], depth) for q in scored}
    values = np.empty((len(metrics), len(scored)), dtype=np.float64)
    values[uncut] = _values(scored, cut, [metrics[i] for i in uncut])
    own = [i for i in range(len(metrics)) if i not in set(uncut)]  # a cut-off k reads its own k
    if own:
        values[own] = _values(scored, rankings, [metrics[i] for i in own])
    return values


def _values(scored: Sequence[JudgedQuery], rankings: Mapping[str, Ranking], metrics: Sequence[Metric]) -> np.ndarray:
    """A (metrics x queries) array of the queries' values, graded where any judgement carries a grade."""
    if any(q.grades for q in scored):
        return _graded_values(scored, rankings, metrics)
    ranks = rank_matrix([target_ranks(rankings[q.id].doc_ids, q.targets) for q in scored])
    return np.stack([metric_values(m, ranks) for m in metrics])


def _graded_values(scored: Sequence[JudgedQuery], rankings: Mapping[str, Ranking], metrics: Sequence[Metric]):
    """Metric values where some judgements carry grades: ndcg@k takes them as gains, the rest count relevance."""
    pairs = [graded_target_ranks(rankings[q.id].doc_ids, {t: q.gain(t) for t in q.targets}) for q in scored]
    ranks = rank_matrix([[rank for rank, _ in row] for row in pairs])
    gains = rank_matrix([[gain for _, gain in row] for row in pairs])
    return np.stack([metric_values(m, ranks, gains) for m in metrics])


TRIVIAL_KINDS = frozenset({"recall", "recall_all"})
TRIVIAL_KEY = "stores_within_k"


def summarize(
    values: np.ndarray,
    names: Sequence[str],
    group: str,
    config: ScoringConfig,
    store_sizes: np.ndarray,
    clusters: tuple[int, ...] | None = None,
) -> dict:
    """Mean and bootstrap CI of each metric over the queries in `values`, with n.

    Each recall@k and recall_all@k cell also counts the queries whose store holds k documents or fewer
    (`stores_within_k`): for them the top k is the whole store, so a hit there says nothing.
    """
    n = values.shape[1]
    means = exact_mean(values)
    low, high = group_bootstrap_ci(values, config.seed, group, config.resamples, config.confidence, clusters)
    row: dict = {"n": int(n)}
    for i, name in enumerate(names):
        row[name] = {"value": float(means[i]), "ci_low": float(low[i]), "ci_high": float(high[i])}
        metric = parse_metric(name)
        if metric.kind in TRIVIAL_KINDS and metric.k is not None:
            row[name][TRIVIAL_KEY] = int(np.count_nonzero(store_sizes <= metric.k))
    return row


HEADLINE_KEY = "in_headline"
HEADLINE_REASON_KEY = "left_out_because"


def in_headline(query: JudgedQuery) -> bool:
    """True unless the query's strata mark it in_headline = no."""
    return strata_in_headline(query.strata)


def strata_in_headline(strata: Mapping[str, str]) -> bool:
    """True unless these strata (of a query, or of a per-query row) mark it in_headline = no."""
    return strata.get(HEADLINE_KEY, "yes") == "yes"


def score_task(task: Task, rankings: Mapping[str, Ranking], config: ScoringConfig = ScoringConfig()) -> dict:
    """Results overall and per stratum group; queries without targets are counted, not scored.

    Queries whose strata say in_headline = no (abstention or adversarial questions, for example)
    stay out of `overall` and the groupings, are counted by reason under left_out_of_headline,
    and appear in the `apart_*` groupings, which cover every scored query.
    A query lacking a stratum key (e.g. an EpiRec episode marked label_disputed has no band or
    valence) is left out of the groupings using that key, and counted under left_out_of_grouping.
    """
    metrics = [parse_metric(m) for m in config.metrics]
    names = [m.name for m in metrics]
    scored = [q for q in task.queries if q.targets]
    values = per_query_values(task, rankings, metrics, config.depth)
    results: dict = {"n_queries": len(task.queries), "n_without_targets": len(task.queries) - len(scored)}
    for key in config.count_without_targets_by:
        counts = _counts_without_targets(task, key)
        if counts:
            results[f"without_targets_by_{key}"] = counts
    headline = [i for i, q in enumerate(scored) if in_headline(q)]
    if len(headline) < len(scored):
        reasons: dict[str, int] = {}
        for query in scored:
            if not in_headline(query):
                reason = query.strata.get(HEADLINE_REASON_KEY, "unspecified")
                reasons[reason] = reasons.get(reason, 0) + 1
        results["left_out_of_headline"] = dict(sorted(reasons.items()))
    headline_values = values if len(headline) == len(scored) else values[:, headline]
    sizes = np.array([len(task.stores[q.store_id]) for q in scored], dtype=np.int64)
    chosen = ([scored[i] for i in headline], headline_values, sizes[headline])
    for keys in config.groupings:
        _group(results, grouping_name(keys), keys, chosen, names, config)
    for keys in config.apart_groupings:
        _group(results, "apart_" + grouping_name(keys), keys, (scored, values, sizes), names, config)
    return results


def _counts_without_targets(task: Task, key: str) -> dict[str, int]:
    """How many target-less queries carry each value of stratum `key` (counted, never scored)."""
    counts: dict[str, int] = {}
    for query in task.queries:
        if not query.targets and key in query.strata:
            counts[query.strata[key]] = counts.get(query.strata[key], 0) + 1
    return dict(sorted(counts.items()))


def _group(results: dict, label: str, keys: Sequence[str], scored: tuple, names, config: ScoringConfig) -> None:
    """Summarise (queries, values: metrics x queries, their store sizes) overall (no keys) or per stratum values."""
    queries, values, sizes = scored
    if not keys:
        if queries:
            results[label] = summarize(values, names, label, config, sizes, config.clusters(queries))
        return
    members: dict[str, list[int]] = {}
    for index, query in enumerate(queries):
        if all(k in query.strata for k in keys):
            members.setdefault("/".join(query.strata[k] for k in keys), []).append(index)
    left_out = len(queries) - sum(len(m) for m in members.values())
    if left_out:
        results.setdefault("left_out_of_grouping", {})[label] = left_out
    results[label] = {
        group: summarize(
            values[:, idx], names, f"{label}:{group}", config, sizes[idx], config.clusters([queries[i] for i in idx])
        )
        for group, idx in sorted(members.items())
    }
