"""The detectable-difference column of report cards: each row against the card's first row, from per-query rows."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from memrecall.scoring.metrics import parse_metric
from memrecall.scoring.policy import strata_in_headline
from memrecall.scoring.power import ASSUMED_DISCORDANCE, is_binary, paired_power

ALPHA, POWER = 0.05, 0.8
HEADING = "detectable Δ (α .05, power .8)"
HOW = (
    "two-sided; McNemar's paired-proportions formula (Connor 1987) for hit metrics, a seeded paired bootstrap sd "
    "of per-query differences otherwise; a smaller gap is one these queries cannot tell from noise"
)


def row_value(row: dict, metric: str) -> float | None:
    """A metric's value for one per-query row (recall@k, recall_all@k, mrr, mrr@k), or None for one it cannot give."""
    parsed = parse_metric(metric)
    first = row["first_target_rank"]
    if parsed.kind == "recall":
        return float(first is not None and first <= parsed.k)
    if parsed.kind == "recall_all":
        return float(all(r is not None and r <= parsed.k for r in row["target_ranks"].values()))
    if parsed.kind == "mrr":
        return 0.0 if first is None or (parsed.k is not None and first > parsed.k) else 1.0 / first
    return None


def _values(rows: Sequence[dict], system: str, stratum: str | None, metric: str) -> dict[str, dict[str, float]]:
    """Per-query values by group (and overall) of one system's headline rows, by query id; {} when not derivable."""
    out: dict[str, dict[str, float]] = {}
    for row in rows:
        if row["system"] != system or row["hit"] is None or not strata_in_headline(row["strata"]):
            continue
        value = row_value(row, metric)
        if value is None:
            return {}
        out.setdefault("overall", {})[row["query_id"]] = value
        if stratum and stratum in row["strata"]:
            out.setdefault(row["strata"][stratum], {})[row["query_id"]] = value
    return out


def detectable_cells(
    primary: str, stratum: str | None, systems: Sequence[tuple[str, dict]], rows: Sequence[dict] | None, seed: int = 0
) -> tuple[dict[tuple[str, str], str], str]:
    """Cells by (system, group) and the line explaining them: against the first system from per-query rows, or
    for one system alone at the assumed discordance (hit metrics only)."""
    if len(systems) == 1:
        if not is_binary(primary):
            return {}, f"{HEADING}: needs a second system for a graded metric (memrecall power)."
        name, results = systems[0]
        groups = [("overall", results.get("overall")), *(results.get(f"by_{stratum}") or {}).items()]
        cells = {}
        for group, row in groups:
            if row:
                found = paired_power(primary, np.zeros(int(row["n"])), None, ALPHA, POWER)
                cells[(name, group)] = "-" if found.detectable is None else f"{found.detectable:.3f}"
        note = f"at an assumed discordance of {ASSUMED_DISCORDANCE:g} (one system alone: nothing to measure it on)"
        return cells, f"{HEADING}: the smallest paired difference from a second system {note}; {HOW}."
    if rows is None:
        return {}, f"{HEADING}: needs per-query hits (write the card with --per-query, or run memrecall power)."
    reference = systems[0][0]
    base = _values(rows, reference, stratum, primary)
    if not base:
        return {}, f"{HEADING}: per-query rows do not give {primary}; memrecall power scores the rankings instead."
    cells = {(reference, group): "reference" for group in base}
    for name, _ in systems[1:]:
        mine = _values(rows, name, stratum, primary)
        for group, members in base.items():
            ids = sorted(members)
            if sorted(mine.get(group, {})) != ids:
                continue
            a = np.array([mine[group][q] for q in ids])
            b = np.array([members[q] for q in ids])
            found = paired_power(primary, a, b, ALPHA, POWER, seed=seed, label=f"card-power:{group}:{name}")
            cells[(name, group)] = "-" if found.detectable is None else f"{found.detectable:.3f}"
    how = f"{HOW}; - means none is detectable"
    return cells, f"{HEADING}: the smallest paired difference from {reference} that these queries detect ({how})."
