"""Do two benchmarks rank systems alike? Kendall's tau-b between the systems' means on each, with a percentile
bootstrap interval that redraws whole stores of both benchmarks (each benchmark its own draw, shared by every
system), seeded and exact: the same inputs give the same bits (resample sums are int64 on memrecall's grid)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from memrecall.scoring.metrics import DEFAULT_RESAMPLES, cluster_numbers, exact_mean, on_grid, resample_counts


@dataclass(frozen=True)
class SystemScores:
    """One benchmark's per-query values of one metric: a row per system, a column per query, each query's store."""

    benchmark: str
    systems: tuple[str, ...]
    values: np.ndarray
    stores: tuple[str, ...]

    def __post_init__(self) -> None:
        """Refuse a matrix whose shape does not match its systems and stores."""
        if self.values.shape != (len(self.systems), len(self.stores)):
            raise ValueError(
                f"{self.benchmark}: values are {self.values.shape}, not {len(self.systems)} systems x "
                f"{len(self.stores)} queries"
            )
        if len(set(self.systems)) != len(self.systems):
            raise ValueError(f"{self.benchmark}: a system is named twice")

    def only(self, systems: Sequence[str]) -> SystemScores:
        """The same scores for `systems` only, in that order."""
        rows = [self.systems.index(s) for s in systems]
        return SystemScores(self.benchmark, tuple(systems), self.values[rows], self.stores)

    def means(self) -> np.ndarray:
        """Each system's mean over the queries (correctly rounded)."""
        return np.asarray(exact_mean(self.values), dtype=np.float64)

    def resampled_sums(self, *, seed: int, resamples: int) -> np.ndarray:
        """resamples x systems: each resample's sum on the grid over the queries of the stores it drew.

        A resample's systems share its draw, hence its denominator, so comparing these integer sums orders the
        systems' resample means exactly (ties included).
        """
        clusters = cluster_numbers(self.stores)
        counts = resample_counts(seed, f"rank-agreement:{self.benchmark}", len(self.stores), resamples, clusters)
        return counts.astype(np.int64) @ on_grid(self.values).T


@dataclass(frozen=True)
class Agreement:
    """Kendall's tau-b over the systems both benchmarks score, with its bootstrap interval.

    `undefined` counts the resamples where a benchmark tied every system (tau-b has no value there); the interval
    is over the others.
    """

    systems: tuple[str, ...]
    first: tuple[float, ...]
    second: tuple[float, ...]
    tau: float
    ci_low: float
    ci_high: float
    resamples: int
    undefined: int
    confidence: float
    seed: int


def kendall_tau_b(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """Kendall's tau-b between the last axes of two arrays (..., n): nan where either side ties every pair."""
    first, second = np.asarray(first), np.asarray(second)
    if first.shape != second.shape or first.shape[-1] < 2:
        raise ValueError(f"tau needs two equal shapes of at least 2 systems, not {first.shape} and {second.shape}")
    upper = np.triu_indices(first.shape[-1], 1)
    dx = np.sign(first[..., :, None] - first[..., None, :])[..., upper[0], upper[1]]
    dy = np.sign(second[..., :, None] - second[..., None, :])[..., upper[0], upper[1]]
    untied = np.count_nonzero(dx, axis=-1) * np.count_nonzero(dy, axis=-1)
    concordance = (dx * dy).sum(axis=-1).astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(untied > 0, concordance / np.sqrt(untied.astype(np.float64)), np.nan)


def rank_agreement(
    first: SystemScores,
    second: SystemScores,
    *,
    seed: int = 0,
    resamples: int = DEFAULT_RESAMPLES,
    confidence: float = 0.95,
) -> Agreement:
    """Kendall's tau-b between the systems' means on two benchmarks, over the systems both score (sorted).

    The interval is the percentile bootstrap: each resample draws the stores of each benchmark with replacement
    (the benchmark's own seeded draw), recomputes every system's mean on it, and takes tau-b of the two.
    """
    systems = tuple(sorted(set(first.systems) & set(second.systems)))
    if len(systems) < 3:
        raise ValueError(f"{first.benchmark} and {second.benchmark} share {len(systems)} systems; tau needs 3")
    a, b = first.only(systems), second.only(systems)
    tau = float(kendall_tau_b(a.means(), b.means()))
    drawn = kendall_tau_b(
        a.resampled_sums(seed=seed, resamples=resamples), b.resampled_sums(seed=seed, resamples=resamples)
    )
    defined = drawn[~np.isnan(drawn)]
    tail = (1.0 - confidence) / 2.0 * 100.0
    low, high = np.percentile(defined, [tail, 100.0 - tail]) if len(defined) else (np.nan, np.nan)
    return Agreement(
        systems=systems,
        first=tuple(float(v) for v in a.means()),
        second=tuple(float(v) for v in b.means()),
        tau=tau,
        ci_low=float(low),
        ci_high=float(high),
        resamples=resamples,
        undefined=int(np.isnan(drawn).sum()),
        confidence=confidence,
        seed=seed,
    )
