"""The trec_eval-style measures over a rank matrix: fractional recall, precision, R-precision, AP, RR@k, graded nDCG.

Each follows trec_eval (and so ir_measures and ranx): a target the ranking lacks (rank inf) counts as
not retrieved; P@k divides by k even when fewer than k documents were returned; R-precision cuts the
ranking at R, the number of targets; AP (and AP@k, trec_eval's map_cut) divides by R, all targets,
whether retrieved or not; RR@k is 0 when the first target lies below k; graded nDCG@k takes each
target's grade as its gain (trec_eval's ndcg_cut), discounted by 1/log2(rank + 1).
"""

from __future__ import annotations

import numpy as np


def measure_values(kind: str, k: int | None, ranks: np.ndarray) -> np.ndarray:
    """Per-query values of a trec_eval-style measure from a rank matrix (NaN pads, inf for a missing target)."""
    present = ~np.isnan(ranks)
    safe = np.where(present, ranks, np.inf)
    relevant = present.sum(axis=1).astype(float)
    if kind == "frac_recall":
        return (safe <= k).sum(axis=1) / relevant
    if kind == "precision":
        return (safe <= k).sum(axis=1) / float(k)
    if kind == "r_precision":
        return (safe <= relevant[:, None]).sum(axis=1) / relevant
    if kind == "map":
        return _average_precision(safe, relevant, np.inf if k is None else float(k))
    if kind == "mrr":
        first = safe.min(axis=1)
        return np.where(first <= k, 1.0 / first, 0.0)
    raise ValueError(f"no measure kernel for {kind!r}")


def _average_precision(safe: np.ndarray, relevant: np.ndarray, cut: float) -> np.ndarray:
    """Sum over retrieved targets ranked <= cut of (targets so far / rank), divided by all targets."""
    ordered = np.sort(safe, axis=1)
    found = np.arange(1, ordered.shape[1] + 1, dtype=float)[None, :]
    counted = ordered <= cut
    precision = np.where(counted, found / np.where(counted, ordered, 1.0), 0.0)
    return precision.sum(axis=1) / relevant


def graded_ndcg(k: int, ranks: np.ndarray, gains: np.ndarray) -> np.ndarray:
    """nDCG@k with each target's gain (its grade): DCG over targets ranked <= k, over the ideal of the top-k gains."""
    present = ~np.isnan(ranks)
    safe = np.where(present, ranks, np.inf)
    gain = np.where(present, gains, 0.0)
    within = safe <= k
    dcg = np.where(within, gain / np.log2(np.where(within, safe, 1.0) + 1.0), 0.0).sum(axis=1)
    width = min(k, gain.shape[1])
    best = -np.sort(-gain, axis=1)[:, :width]
    ideal = (best / np.log2(np.arange(2, width + 2, dtype=float))[None, :]).sum(axis=1)
    return np.where(ideal > 0, dcg / np.where(ideal > 0, ideal, 1.0), 0.0)
