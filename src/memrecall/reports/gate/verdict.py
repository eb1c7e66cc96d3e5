"""Non-inferiority per guard: the paired difference candidate - baseline, its one-sided 95 % bounds, and power.

A guard passes when its one-sided 95 % lower bound is above -margin and its queries are enough to detect a drop
of the margin at power 0.8; it fails when the gate has that power and the lower bound is not above -margin, or
when a drop larger than the margin is seen outright (the whole upper bound below zero); otherwise the gate cannot
decide: a gate that cannot see a regression of the declared size says so and never passes.

Power is memrecall power's (reports/power.py) at the one-sided level: McNemar's paired proportions for hit metrics,
the normal approximation with the bootstrap sd for graded ones. The spread it uses is the observed one, but never
below the least a drop of the margin implies (a share `margin` of discordant queries; sd sqrt(margin (1 - margin))),
so two identical systems are not taken for a sure thing on a handful of queries.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass

import numpy as np

from memrecall.data.model import JudgedQuery, Ranking, Task
from memrecall.reports.gate.guards import Guard
from memrecall.reports.power import is_binary, mcnemar_queries, needed, normal_queries, resampled_sd
from memrecall.scoring.metrics import cluster_numbers, exact_mean, group_bootstrap_ci, group_rng, parse_metric
from memrecall.scoring.policy import in_headline, per_query_values

LEVEL = 0.95  # one-sided, so the bounds are those of a two-sided 90 % interval
POWER = 0.8
ALPHA_TWO_SIDED = 2 * (1 - LEVEL)
PASS, FAIL, UNDECIDED = "pass", "fail", "cannot decide"
EXIT_CODES = {PASS: 0, FAIL: 1, UNDECIDED: 2}


@dataclass(frozen=True)
class GuardResult:
    """One guard's numbers and verdict (means over its queries; bounds one-sided 95 %)."""

    metric: str
    stratum: str
    margin: float
    n: int
    baseline: float
    candidate: float
    difference: float
    lower: float
    upper: float
    power_method: str
    spread: float
    queries_needed: int | None
    verdict: str

    def as_dict(self) -> dict:
        """Plain JSON."""
        return asdict(self)


def stratified_sample(queries: Sequence[JudgedQuery], size: int, seed: int, key: str | None) -> frozenset[str]:
    """`size` query ids, split over the values of stratum `key` in proportion (largest remainder), seeded per value."""
    groups: dict[str, list[JudgedQuery]] = {}
    for query in queries:
        groups.setdefault(query.strata.get(key, "") if key else "", []).append(query)
    total = len(queries)
    if size >= total:
        return frozenset(q.id for q in queries)
    exact = {value: size * len(members) / total for value, members in sorted(groups.items())}
    counts = {value: math.floor(share) for value, share in exact.items()}
    left = size - sum(counts.values())
    for value in sorted(exact, key=lambda v: (-(exact[v] - counts[v]), v))[:left]:
        counts[value] += 1
    chosen = []
    for value, members in sorted(groups.items()):
        order = group_rng(seed, f"gate-sample:{value}").permutation(len(members))
        chosen += [members[i].id for i in order[: counts[value]]]
    return frozenset(chosen)


def judge(guard: Guard, n: int, difference: float, lower: float, upper: float, wanted: int | None) -> str:
    """pass, fail or cannot decide, by the rule in this module's docstring."""
    if n == 0:
        return UNDECIDED
    powered = wanted is not None and n >= wanted
    if (powered and lower <= -guard.margin) or (difference < -guard.margin and upper < 0.0):
        return FAIL
    return PASS if powered else UNDECIDED


def guard_results(
    task: Task,
    baseline: Mapping[str, Ranking],
    candidate: Mapping[str, Ranking],
    guards: Sequence[Guard],
    scoring: Mapping,
    sample: frozenset[str] | None,
) -> list[GuardResult]:
    """Each guard on the headline queries of its stratum (within the sample, when one is drawn)."""
    bootstrap, depth = scoring.get("bootstrap", {}), scoring.get("depth")
    seed, resamples = bootstrap.get("seed", 0), bootstrap.get("resamples", 2000)
    by_store = bootstrap.get("unit", "query") == "store"
    scored = [q for q in task.queries if q.targets]
    metrics = list(dict.fromkeys(g.metric for g in guards))
    parsed = [parse_metric(m) for m in metrics]
    base_values = per_query_values(task, baseline, parsed, depth)
    cand_values = per_query_values(task, candidate, parsed, depth)
    out = []
    for guard in guards:
        members = [
            i
            for i, q in enumerate(scored)
            if in_headline(q)
            and (sample is None or q.id in sample)
            and all(q.strata.get(k) == v for k, v in guard.conditions)
        ]
        row = metrics.index(guard.metric)
        before, after = base_values[row, members], cand_values[row, members]
        out.append(
            _one(guard, before, after, [scored[i].store_id for i in members] if by_store else None, seed, resamples)
        )
    return out


def _one(guard: Guard, before: np.ndarray, after: np.ndarray, stores: list[str] | None, seed: int, resamples: int):
    """One guard's GuardResult from its per-query values."""
    n, label = len(before), f"gate:{guard.label()}"
    diff = after - before
    if n == 0:
        return GuardResult(
            guard.metric, guard.stratum, guard.margin, 0, 0.0, 0.0, 0.0, 0.0, 0.0, "none", 0.0, None, UNDECIDED
        )
    clusters = cluster_numbers(stores) if stores is not None else None
    low, high = group_bootstrap_ci(diff[None, :], seed, label, resamples, 1 - ALPHA_TWO_SIDED, clusters)
    least = guard.margin * (1 - guard.margin)
    if is_binary(guard.metric):
        method = "mcnemar"
        spread = max(float(np.count_nonzero(diff)) / n, guard.margin)
        wanted = needed(mcnemar_queries(spread, guard.margin, ALPHA_TWO_SIDED, POWER))
    else:
        method = "paired bootstrap sd, normal approximation"
        spread = max(resampled_sd(diff, seed, label, resamples), math.sqrt(least))
        wanted = needed(normal_queries(spread, guard.margin, ALPHA_TWO_SIDED, POWER))
    difference = float(exact_mean(diff))
    verdict = judge(guard, n, difference, float(low[0]), float(high[0]), wanted)
    return GuardResult(
        guard.metric,
        guard.stratum,
        guard.margin,
        n,
        float(exact_mean(before)),
        float(exact_mean(after)),
        difference,
        float(low[0]),
        float(high[0]),
        method,
        spread,
        wanted,
        verdict,
    )


def overall_verdict(results: Sequence[GuardResult]) -> str:
    """fail when any guard fails, else cannot decide when any cannot, else pass."""
    verdicts = {r.verdict for r in results}
    return FAIL if FAIL in verdicts else UNDECIDED if UNDECIDED in verdicts or not results else PASS
