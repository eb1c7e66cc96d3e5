"""Paired comparison of two systems on the same queries: bootstrap CI of the difference, randomisation p."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from memrecall.data.model import Ranking, Task
from memrecall.scoring.metrics import exact_mean, group_bootstrap_ci, group_rng, on_grid, parse_metric
from memrecall.scoring.policy import ScoringConfig, in_headline, per_query_values

PERMUTATIONS = 2000


def smallest_holm_p(clusters: int, rows: int, permutations: int = PERMUTATIONS) -> float:
    """About the smallest p_Holm `rows` sign-flip tests can show when `clusters` units flip whole.

    Only the observed sign pattern and its mirror are as extreme as an all-one-sign difference, so a raw p
    is at least about (1 + permutations * 2**(1 - clusters)) / (1 + permutations); Holm's first step
    multiplies it by `rows`.
    """
    return min(1.0, rows * (1 + permutations * 2.0 ** (1 - clusters)) / (1 + permutations))


def randomisation_p(
    differences: np.ndarray, rng: np.random.Generator, permutations: int, clusters: tuple[int, ...] | None = None
) -> float:
    """Two-sided paired sign-flip test of mean difference 0: (1 + extreme flips) / (1 + permutations).

    With `clusters` (cluster_numbers) one sign flips a whole cluster's summed difference, so queries that share
    a store are never treated as independent; clusters of one query each give the query-level test exactly.
    """
    n = differences.shape[0]
    if n == 0:
        return 1.0
    grid = on_grid(differences)
    observed = abs(int(grid.sum()))
    if clusters is not None:
        sums = np.zeros(max(clusters) + 1, dtype=np.int64)
        np.add.at(sums, np.array(clusters), grid)
        grid, n = sums, len(sums)
    signs = rng.choice(np.array([-1, 1], dtype=np.int64), size=(permutations, n))
    flipped = np.abs(signs @ grid)
    return float((1 + np.count_nonzero(flipped >= observed)) / (1 + permutations))


def compare_systems(
    task: Task,
    system_a: Mapping[str, Ranking],
    system_b: Mapping[str, Ranking],
    config: ScoringConfig,
    group_key: str | None = "probe_type",
    permutations: int = PERMUTATIONS,
) -> dict:
    """A minus B per metric, overall and per `group_key` value, with paired CI, p-value and n.

    Like scoring, it covers the headline queries only: queries the strata leave out of the
    headline (abstention, LoCoMo category 5) are in neither `overall` nor the groups.
    """
    metrics = [parse_metric(m) for m in config.metrics]
    values_a = per_query_values(task, system_a, metrics, config.depth)
    values_b = per_query_values(task, system_b, metrics, config.depth)
    scored = [q for q in task.queries if q.targets]
    headline = [i for i, q in enumerate(scored) if in_headline(q)]
    groups: dict[str, list[int]] = {"overall": headline}
    if group_key:
        for index in headline:
            query = scored[index]
            if group_key in query.strata:
                groups.setdefault(query.strata[group_key], []).append(index)
    out = {}
    for group in [*sorted(g for g in groups if g != "overall"), "overall"]:
        members = groups[group]
        diff = values_a[:, members] - values_b[:, members]
        clusters = config.clusters([scored[i] for i in members])
        low, high = group_bootstrap_ci(
            diff, config.seed, f"compare:{group}", config.resamples, config.confidence, clusters
        )
        row: dict = {"n": len(members)}
        for i, metric in enumerate(metrics):
            rng = group_rng(config.seed, f"randomise:{group}:{metric.name}")
            p = randomisation_p(diff[i], rng, permutations, clusters)
            row[metric.name] = {
                "a": float(exact_mean(values_a[i, members])),
                "b": float(exact_mean(values_b[i, members])),
                "difference": float(exact_mean(diff[i])),
                "ci_low": float(low[i]),
                "ci_high": float(high[i]),
                "p_value": p,
            }
        out[group] = row
    return out


def holm_adjust(p_values: Sequence[float]) -> list[float]:
    """Holm step-down adjusted p-values, in the input order (capped at 1, kept monotone)."""
    order = sorted(range(len(p_values)), key=lambda i: (p_values[i], i))
    adjusted = [0.0] * len(p_values)
    running = 0.0
    for step, index in enumerate(order):
        running = max(running, min(1.0, (len(p_values) - step) * p_values[index]))
        adjusted[index] = running
    return adjusted


def compare_to_first(
    task: Task,
    runs: Sequence[tuple[str, Mapping[str, Ranking]]],
    config: ScoringConfig,
    group_key: str | None,
) -> list[dict]:
    """Every system after the first minus the first, paired, with Holm-adjusted p across the comparisons."""
    base_name, base = runs[0]
    out = [
        {"system": name, "baseline": base_name, "by_group": compare_systems(task, rankings, base, config, group_key)}
        for name, rankings in runs[1:]
    ]
    if not out:
        return out
    for group, row in out[0]["by_group"].items():
        for metric in (m for m in row if m != "n"):
            family = [c["by_group"][group][metric] for c in out]
            for cell, adjusted in zip(family, holm_adjust([c["p_value"] for c in family]), strict=True):
                cell["p_holm"] = adjusted
    return out


def format_p(p: float, permutations: int = PERMUTATIONS) -> str:
    """`p=0.031`, or `p < 0.0005` at the smallest value the permutation count can give."""
    if p <= 1.0 / (1 + permutations) + 1e-12:
        return f"p < {1.0 / permutations:.4f}".rstrip("0")
    return f"p={p:.3f}"


def comparison_rows(comparison: dict, metrics: Sequence[str]) -> list[list[str]]:
    """Printable rows: group, then per metric 'diff [lo, hi] p' (Holm-adjusted when present), then n."""
    rows = []
    for group, row in comparison.items():
        cells = [
            f"{row[m]['difference']:+.3f} [{row[m]['ci_low']:+.2f}, {row[m]['ci_high']:+.2f}] "
            + format_p(row[m].get("p_holm", row[m]["p_value"]))
            for m in metrics
        ]
        rows.append([group, *cells, str(row["n"])])
    return rows
