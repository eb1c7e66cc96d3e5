"""Ranking metrics over target ranks, vectorised with numpy, and bootstrap confidence intervals.

Names follow one grammar, parsed rather than hard-coded: `recall@k` is 1 when any target is in
the top k (TREC's Success@k), `recall_all@k` when every target is, `mrr` is the reciprocal rank
of the first target, `ndcg@k` is nDCG with the 1/log2(rank + 1) discount (binary, or graded when
the judgements carry grades), and `ndcg_lme@k` is the variant in LongMemEval's own retrieval
evaluation, whose DCG gives rank 1 weight 1 and rank r >= 2 weight 1/log2(r) (so ranks 1 and 2
count the same). `frac_recall@k`, `precision@k`, `r_precision`, `map`, `map@k` and `mrr@k` are
trec_eval's R@k, P@k, Rprec, AP, AP@k and RR@k (see measures.py).
"""

from __future__ import annotations

import hashlib
import math
import re
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from memrecall.scoring.measures import graded_ndcg, measure_values

DEFAULT_RESAMPLES = 2000  # bootstrap resamples, wherever a caller does not choose

_CUT = ("recall", "recall_all", "frac_recall", "precision", "ndcg", "ndcg_lme", "map", "mrr")
_UNCUT = ("mrr", "map", "r_precision")
_METRIC = re.compile(rf"^({'|'.join(_CUT)})@([1-9][0-9]*)$|^({'|'.join(_UNCUT)})$")
MAX_K = 100_000
KNOWN_METRICS = (
    "recall@k, recall_all@k, frac_recall@k, precision@k, r_precision, map, map@k, mrr, mrr@k, ndcg@k, ndcg_lme@k"
)


@dataclass(frozen=True)
class Metric:
    """A parsed metric name: its kind (recall, map, ndcg...) and cut-off k, None for mrr, map and r_precision."""

    kind: str
    k: int | None

    @property
    def name(self) -> str:
        """The canonical name, e.g. recall@3 or mrr."""
        return self.kind if self.k is None else f"{self.kind}@{self.k}"


def parse_metric(name: str) -> Metric:
    """Parse a metric name such as `recall@3`, `map@10` or `mrr`; raise ValueError naming the known ones otherwise."""
    match = _METRIC.match(name.strip().lower())
    if not match or (match.group(2) and int(match.group(2)) > MAX_K):
        raise ValueError(f"unknown metric {name!r}; known: {KNOWN_METRICS} (k from 1 to {MAX_K})")
    if match.group(3):
        return Metric(match.group(3), None)
    return Metric(match.group(1), int(match.group(2)))


def target_ranks(doc_ids: Sequence[str], targets: frozenset[str]) -> list[float]:
    """1-based ranks of the targets in a ranking, sorted; inf for a target the ranking lacks."""
    position = {doc_id: i + 1 for i, doc_id in enumerate(doc_ids)}
    return sorted(float(position.get(t, np.inf)) for t in targets)


def graded_target_ranks(doc_ids: Sequence[str], grades: Mapping[str, float]) -> list[tuple[float, float]]:
    """(1-based rank, grade) of each graded target, by rank; inf for a target the ranking lacks."""
    position = {doc_id: i + 1 for i, doc_id in enumerate(doc_ids)}
    return sorted((float(position.get(t, np.inf)), float(g)) for t, g in grades.items())


def rank_matrix(rank_lists: Sequence[Sequence[float]]) -> np.ndarray:
    """Pad per-query target ranks into an (n_queries, max_targets) array, NaN where absent."""
    width = max((len(r) for r in rank_lists), default=1) or 1
    matrix = np.full((len(rank_lists), width), np.nan)
    for row, ranks in enumerate(rank_lists):
        matrix[row, : len(ranks)] = ranks
    return matrix


def metric_values(metric: Metric, ranks: np.ndarray, gains: np.ndarray | None = None) -> np.ndarray:
    """Per-query values of one metric from a rank matrix (every row needs at least one target).

    `gains` (the same shape, each target's grade) makes ndcg@k graded; every other metric counts a
    target as relevant whatever its grade, as trec_eval does.
    """
    if metric.kind in ("frac_recall", "precision", "r_precision", "map") or (metric.kind == "mrr" and metric.k):
        return measure_values(metric.kind, metric.k, ranks)
    if metric.kind == "ndcg" and gains is not None:
        return graded_ndcg(int(metric.k or 0), ranks, gains)
    present = ~np.isnan(ranks)
    safe = np.where(present, ranks, np.inf)
    first = safe.min(axis=1)
    if metric.kind == "mrr":
        return 1.0 / first
    k = metric.k
    if metric.kind == "recall":
        return (first <= k).astype(float)
    if metric.kind == "recall_all":
        return np.where(present, safe <= k, True).all(axis=1).astype(float)
    discount = _lme_discount if metric.kind == "ndcg_lme" else _standard_discount
    gains = np.where(safe <= k, discount(np.where(safe <= k, safe, 1.0)), 0.0).sum(axis=1)
    ideal_count = np.minimum(present.sum(axis=1), k)
    ideal = np.cumsum(discount(np.arange(1, k + 1, dtype=float)))[ideal_count - 1]
    return gains / ideal


def _standard_discount(ranks: np.ndarray) -> np.ndarray:
    """1 / log2(rank + 1)."""
    return 1.0 / np.log2(ranks + 1.0)


def _lme_discount(ranks: np.ndarray) -> np.ndarray:
    """1 at rank 1, 1 / log2(rank) after (LongMemEval's eval_utils DCG)."""
    return np.where(ranks <= 1.0, 1.0, 1.0 / np.log2(np.maximum(ranks, 2.0)))


def group_rng(seed: int, group: str) -> np.random.Generator:
    """A Generator seeded by (seed, sha256 of the group name): same group, same resamples."""
    return np.random.default_rng([seed, int.from_bytes(hashlib.sha256(group.encode()).digest()[:8], "big")])


# No sum here depends on a BLAS kernel or a summation order: means are correctly rounded sums
# (math.fsum), and bootstrap resample means are exact int64 sums of values put on a fixed grid
# of 2**-40, so the same inputs give the same bits on any machine.
GRID = 2**40


def on_grid(values: np.ndarray) -> np.ndarray:
    """Values as int64 multiples of 2**-40 (exact integer sums follow)."""
    return np.rint(np.asarray(values, dtype=np.float64) * GRID).astype(np.int64)


def exact_mean(values: np.ndarray) -> np.ndarray | float:
    """Mean of each row (or of a 1-d array): a correctly rounded sum (math.fsum) divided once."""
    values = np.asarray(values, dtype=np.float64)
    if values.ndim == 1:
        return math.fsum(values.tolist()) / len(values) if len(values) else 0.0
    return np.array([exact_mean(row) for row in values])


def bootstrap_ci(
    values: np.ndarray, rng: np.random.Generator, resamples: int = DEFAULT_RESAMPLES, confidence: float = 0.95
) -> tuple[np.ndarray, np.ndarray]:
    """Percentile bootstrap CI of the mean over queries for each row of `values` (metrics x queries)."""
    values = np.atleast_2d(values)
    return ci_from_counts(values, draw_counts(rng, values.shape[1], resamples), confidence)


def group_bootstrap_ci(
    values: np.ndarray,
    seed: int,
    group: str,
    resamples: int = DEFAULT_RESAMPLES,
    confidence: float = 0.95,
    clusters: tuple[int, ...] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """bootstrap_ci with group_rng(seed, group), its resamples drawn once and shared by every system scored;
    with `clusters` (each query's cluster number, see cluster_numbers) whole clusters are drawn."""
    values = np.atleast_2d(values)
    return ci_from_counts(values, resample_counts(seed, group, values.shape[1], resamples, clusters), confidence)


def cluster_numbers(labels: Sequence[str]) -> tuple[int, ...]:
    """Each label's cluster number, numbered in order of first appearance (one label per query)."""
    numbers: dict[str, int] = {}
    return tuple(numbers.setdefault(label, len(numbers)) for label in labels)


def draw_counts(rng: np.random.Generator, n: int, resamples: int) -> np.ndarray:
    """How often each of n queries is drawn in each resample (resamples x n)."""
    return rng.multinomial(n, np.full(n, 1.0 / n), size=resamples)


RESAMPLE_CACHE_BYTES = 256 << 20
_resamples: OrderedDict[tuple, np.ndarray] = OrderedDict()


def resample_counts(
    seed: int, group: str, n: int, resamples: int, clusters: tuple[int, ...] | None = None
) -> np.ndarray:
    """draw_counts(group_rng(seed, group), ...), kept (least recently used out first) within RESAMPLE_CACHE_BYTES.

    With `clusters` the draw is of clusters, and each query counts as often as its cluster was drawn; clusters
    of one query each give exactly the query-level counts.
    """
    key = (seed, group, n, resamples, clusters)
    if key in _resamples:
        _resamples.move_to_end(key)
        return _resamples[key]
    if clusters is None:
        drawn = draw_counts(group_rng(seed, group), n, resamples)
    else:
        if len(clusters) != n:
            raise ValueError(f"{len(clusters)} cluster numbers for {n} queries")
        drawn = draw_counts(group_rng(seed, group), max(clusters, default=-1) + 1, resamples)[:, list(clusters)]
    counts = drawn.astype(np.uint16 if n < 2**16 else np.int64)
    counts.flags.writeable = False
    _resamples[key] = counts
    while sum(c.nbytes for c in _resamples.values()) > RESAMPLE_CACHE_BYTES and len(_resamples) > 1:
        _resamples.popitem(last=False)
    return counts


def ci_from_counts(values: np.ndarray, counts: np.ndarray, confidence: float) -> tuple[np.ndarray, np.ndarray]:
    """Percentile CI of the resample means; they are exact: integer counts times grid values, summed in int64.

    Each resample's mean divides by the queries it drew (always n at the query level; it varies with cluster sizes).
    """
    counts = counts.astype(np.int64)
    drawn = counts.sum(axis=1, keepdims=True) * GRID
    means = (counts @ on_grid(values).T) / drawn
    tail = (1.0 - confidence) / 2.0 * 100.0
    low, high = np.percentile(means, [tail, 100.0 - tail], axis=0)
    return low, high
