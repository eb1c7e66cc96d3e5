"""Paired comparison of two systems on the same queries: bootstrap CI of the difference, randomisation p."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from memrecall.metrics import bootstrap_ci, group_rng, parse_metric
from memrecall.model import Ranking, Task
from memrecall.scoring import ScoringConfig, per_query_values


def randomisation_p(differences: np.ndarray, rng: np.random.Generator, permutations: int) -> float:
    """Two-sided paired sign-flip test of mean difference 0: (1 + extreme flips) / (1 + permutations)."""
    n = differences.shape[0]
    if n == 0:
        return 1.0
    observed = abs(differences.mean())
    signs = rng.choice(np.array([-1.0, 1.0]), size=(permutations, n))
    flipped = np.abs(signs @ differences / n)
    return float((1 + np.count_nonzero(flipped >= observed - 1e-12)) / (1 + permutations))


def compare_systems(
    task: Task,
    system_a: Mapping[str, Ranking],
    system_b: Mapping[str, Ranking],
    config: ScoringConfig,
    group_key: str | None = "probe_type",
    permutations: int = 2000,
) -> dict:
    """A minus B per metric, overall and per `group_key` value, with paired CI, p-value and n."""
    metrics = [parse_metric(m) for m in config.metrics]
    values_a = per_query_values(task, system_a, metrics)
    values_b = per_query_values(task, system_b, metrics)
    scored = [q for q in task.queries if q.targets]
    groups: dict[str, list[int]] = {"overall": list(range(len(scored)))}
    if group_key:
        for index, query in enumerate(scored):
            if group_key in query.strata:
                groups.setdefault(query.strata[group_key], []).append(index)
    out = {}
    for group in [*sorted(g for g in groups if g != "overall"), "overall"]:
        members = groups[group]
        diff = values_a[:, members] - values_b[:, members]
        low, high = bootstrap_ci(diff, group_rng(config.seed, f"compare:{group}"), config.resamples, config.confidence)
        row: dict = {"n": len(members)}
        for i, metric in enumerate(metrics):
            p = randomisation_p(diff[i], group_rng(config.seed, f"randomise:{group}:{metric.name}"), permutations)
            row[metric.name] = {
                "a": float(values_a[i, members].mean()),
                "b": float(values_b[i, members].mean()),
                "difference": float(diff[i].mean()),
                "ci_low": float(low[i]),
                "ci_high": float(high[i]),
                "p_value": p,
            }
        out[group] = row
    return out


def comparison_rows(comparison: dict, metrics: Sequence[str]) -> list[list[str]]:
    """Printable rows: group, then per metric 'diff [lo, hi] p=...', then n."""
    rows = []
    for group, row in comparison.items():
        cells = [
            f"{row[m]['difference']:+.3f} [{row[m]['ci_low']:+.2f}, {row[m]['ci_high']:+.2f}] p={row[m]['p_value']:.3f}"
            for m in metrics
        ]
        rows.append([group, *cells, str(row["n"])])
    return rows
