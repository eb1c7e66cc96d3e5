"""Power: the smallest paired difference n queries can detect, the queries a difference needs, and where memrecall
shows it (`memrecall power` over reports and rankings, and the report card's detectable-difference column).

Binary hit metrics (recall@k: any target in the top k; recall_all@k) use the paired-proportions (McNemar)
sample size of Connor (1987, Biometrics 43:207-211), with psi the share of discordant queries (one system
hits, the other misses) and delta the difference in hit rates, at two-sided level alpha and power 1 - beta:

    n = (z_{1-alpha/2} sqrt(psi) + z_{1-beta} sqrt(psi - delta^2))^2 / delta^2

Solved for delta at a given n (a quadratic in delta, positive root):

    delta = sqrt(psi) (sqrt(n) z_a + z_b sqrt(n - z_a^2 + z_b^2)) / (n + z_b^2)

Graded metrics (mrr, ndcg, map, ...) use the normal approximation for a paired mean: n = ((z_a + z_b) sd / delta)^2,
where sd is the standard deviation of per-query differences, taken from a seeded paired bootstrap of the mean
difference (sd = its standard error times sqrt(n)), so the same inputs give the same numbers.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from statistics import NormalDist

import numpy as np

from memrecall.benchmarks import Benchmark, get_benchmark
from memrecall.data.jsonfile import read_json
from memrecall.data.model import Task
from memrecall.data.rankings import rankings_sha256
from memrecall.errors import ConfigError, UsageError, short
from memrecall.reports.content import shape_problem
from memrecall.reports.proof.fingerprint import report_fingerprint
from memrecall.reports.proof.replay import load_for
from memrecall.reports.rankings_files import checked_runs, rankings_for
from memrecall.reports.shapes import current_shape
from memrecall.scoring.metrics import DEFAULT_RESAMPLES, GRID, exact_mean, on_grid, parse_metric, resample_counts
from memrecall.scoring.policy import grouping_name, in_headline, per_query_values, strata_in_headline

BINARY_KINDS = frozenset({"recall", "recall_all"})
ASSUMED_DISCORDANCE = 0.25
MCNEMAR = "mcnemar"
MCNEMAR_ASSUMED = "mcnemar, assumed discordance"
RESAMPLED = "paired bootstrap sd, normal approximation"
ALPHA, POWER = 0.05, 0.8  # the levels of every detectable difference memrecall shows unasked (cards, leaderboard)
HEADING = f"detectable Δ (α {ALPHA:g}, power {POWER:g})".replace("0.", ".")  # detectable Δ (α .05, power .8)


def check_levels(alpha: float, power: float) -> None:
    """alpha in (0, 0.5] and power in [0.5, 1): the ranges the formulas hold in; ConfigError naming the value."""
    if not 0.0 < alpha <= 0.5:
        raise ConfigError(f"--alpha must be above 0 and at most 0.5, got {alpha}")
    if not 0.5 <= power < 1.0:
        raise UsageError(f"--power must be from 0.5 to below 1, got {power}")


def quantiles(alpha: float, power: float) -> tuple[float, float]:
    """(z_{1-alpha/2}, z_{power}) of the standard normal."""
    check_levels(alpha, power)
    normal = NormalDist()
    return normal.inv_cdf(1.0 - alpha / 2.0), normal.inv_cdf(power)


def is_binary(metric: str) -> bool:
    """True for hit metrics whose per-query value is 0 or 1 (recall@k, recall_all@k)."""
    return parse_metric(metric).kind in BINARY_KINDS


def mcnemar_queries(discordance: float, difference: float, alpha: float = 0.05, power: float = 0.8) -> float:
    """Connor's paired-proportions n (unrounded) to detect `difference` at this discordance; inf when impossible."""
    za, zb = quantiles(alpha, power)
    delta = abs(difference)
    if delta == 0.0 or delta > discordance:
        return math.inf
    return (za * math.sqrt(discordance) + zb * math.sqrt(discordance - delta * delta)) ** 2 / (delta * delta)


def mcnemar_detectable(discordance: float, n: int, alpha: float = 0.05, power: float = 0.8) -> float | None:
    """The difference Connor's formula detects with n queries at this discordance; None when above it (unreachable)."""
    za, zb = quantiles(alpha, power)
    if n < 1 or discordance <= 0.0 or n - za * za + zb * zb < 0.0:
        return None
    delta = math.sqrt(discordance) * (math.sqrt(n) * za + zb * math.sqrt(n - za * za + zb * zb)) / (n + zb * zb)
    return delta if delta <= discordance else None


def normal_queries(sd: float, difference: float, alpha: float = 0.05, power: float = 0.8) -> float:
    """Queries (unrounded) a paired mean difference needs: ((z_a + z_b) sd / difference)^2; inf for 0."""
    za, zb = quantiles(alpha, power)
    return math.inf if difference == 0.0 else ((za + zb) * sd / abs(difference)) ** 2


def normal_detectable(sd: float, n: int, alpha: float = 0.05, power: float = 0.8) -> float | None:
    """The paired mean difference n queries detect: (z_a + z_b) sd / sqrt(n); None for no queries or sd 0."""
    za, zb = quantiles(alpha, power)
    return (za + zb) * sd / math.sqrt(n) if n > 0 and sd > 0.0 else None


def resampled_sd(differences: np.ndarray, seed: int, label: str, resamples: int) -> float:
    """The sd of per-query differences as sqrt(n) times the seeded paired bootstrap standard error of their mean."""
    n = differences.shape[0]
    if n < 2:
        return 0.0
    counts = resample_counts(seed, label, n, resamples).astype(np.int64)
    means = (counts @ on_grid(differences)) / (n * GRID)
    return float(np.std(means, ddof=1) * math.sqrt(n))


@dataclass(frozen=True)
class Power:
    """One metric in one group: how it was measured, the spread, and what is detectable (None: nothing reachable)."""

    method: str
    n: int
    difference: float | None
    spread: float
    detectable: float | None
    target: float | None = None
    queries_needed: int | None = None

    def as_dict(self) -> dict:
        """JSON form: discordance for McNemar, sd for the resampling method; queries_needed when a target was given."""
        key = "sd_of_differences" if self.method == RESAMPLED else "discordance"
        out = {"method": self.method, key: self.spread, "detectable_difference": self.detectable}
        if self.difference is not None:
            out["difference"] = self.difference
        if self.target is not None:
            out["queries_needed"] = self.queries_needed
        return out


def needed(value: float) -> int | None:
    """An unrounded sample size rounded up to whole queries; None when no n reaches it."""
    return None if math.isinf(value) else math.ceil(value - 1e-9)


def paired_power(
    metric: str,
    a: np.ndarray,
    b: np.ndarray | None,
    alpha: float = 0.05,
    power: float = 0.8,
    target: float | None = None,
    discordance: float | None = None,
    seed: int = 0,
    label: str = "power",
    resamples: int = DEFAULT_RESAMPLES,
) -> Power:
    """Power of `a` against `b` (per-query values, paired) on one metric; `b` None means one system alone.

    A binary metric uses McNemar at the observed discordance (or `discordance`, assumed; ASSUMED_DISCORDANCE for
    one system alone); a graded one needs `b` and uses the resampled sd. `target` asks for the queries it needs.
    """
    n = int(a.shape[0])
    observed = None if b is None else float(exact_mean(a - b)) if n else 0.0
    if is_binary(metric):
        if discordance is None and b is None:
            discordance = ASSUMED_DISCORDANCE
        method = MCNEMAR if discordance is None else MCNEMAR_ASSUMED
        psi = float(np.count_nonzero(a != b)) / n if discordance is None and n else float(discordance or 0.0)
        detectable = mcnemar_detectable(psi, n, alpha, power)
        queries = needed(mcnemar_queries(psi, target, alpha, power)) if target is not None else None
        return Power(method, n, observed, psi, detectable, target, queries)
    if b is None:
        raise UsageError(f"{metric} is a graded metric: its power needs a second system to pair with")
    sd = resampled_sd(a - b, seed, label, resamples)
    detectable = normal_detectable(sd, n, alpha, power)
    queries = needed(normal_queries(sd, target, alpha, power)) if target is not None and sd > 0 else None
    return Power(RESAMPLED, n, observed, sd, detectable, target, queries)


# --- `memrecall power`: reports and their rankings, scored on the task -------------------------------------
@dataclass
class PowerInputs:
    """Per-query values of each system (metrics x headline queries), the groups of queries, and where they came from."""

    benchmark: Benchmark
    task: Task
    systems: list[str]
    values: dict[str, np.ndarray]
    groups: dict[str, list[int]]
    grouping: str
    metrics: list[str]
    seed: int
    resamples: int
    fingerprints: list[str]


def read_reports(paths: Sequence[Path], say: Callable[[str], None] = lambda _: None) -> list[dict]:
    """Each report (an old shape read through the normaliser, and `say` told so), refused unless on the same data
    as the first."""
    reports = []
    for path in paths:
        report, note = current_shape(read_json(path))
        problem = shape_problem(report)
        if problem:
            raise ConfigError(f"{path}: {problem}")
        if note:
            say(f"{path}: {note}")
        first = reports[0]["content"] if reports else report["content"]
        content = report["content"]
        for key, value, other in (
            ("benchmark", content.get("benchmark"), first.get("benchmark")),
            ("data sha256", content["task"].get("source_sha256"), first["task"].get("source_sha256")),
        ):
            if value != other:
                raise ConfigError(
                    f"{path}: {key} {short(str(value))[:16]} differs from {paths[0]}'s {short(str(other))[:16]}"
                )
        reports.append(report)
    return reports


def power_inputs(
    paths: Sequence[Path],
    given: Sequence[Path],
    data: Path | None,
    metrics: Sequence[str],
    grouping: str | None,
    say: Callable[[str], None] = lambda _: None,
) -> PowerInputs:
    """Score every system's rankings on the task; a rankings file the report does not name is an error naming it."""
    reports = read_reports(paths, say)
    first = reports[0]["content"]
    bench = get_benchmark(first["benchmark"])
    loaded = load_for(bench, first, data)
    task, values, systems = loaded.task, {}, []
    metrics = list(metrics or [first["primary_metric"]])
    parsed = [parse_metric(m) for m in metrics]
    for path, report, files in zip(paths, reports, rankings_for(paths, reports, given), strict=True):
        names = list(report["content"]["system_order"])
        runs, _, _ = checked_runs(files, names, bench, loaded)
        for (name, rankings), file in zip(runs, files, strict=True):
            recorded = report["content"]["systems"][name].get("rankings_sha256")
            if rankings_sha256(task, rankings, bench.row_keys) != recorded:
                raise ConfigError(f"{file}: not the rankings {path} was made from (its rankings_sha256 differs)")
            if name in values:
                raise ConfigError(f"{path}: system {short(name)} is in two of the reports")
            values[name] = per_query_values(task, rankings, parsed, report["content"]["scoring"].get("depth"))
            systems.append(name)
    headline = [i for i, q in enumerate(q for q in task.queries if q.targets) if in_headline(q)]
    for name in systems:
        values[name] = values[name][:, headline]
    keys, label = _grouping(bench, first, grouping)
    scored = [q for q in task.queries if q.targets]
    groups: dict[str, list[int]] = {}
    for position, index in enumerate(headline):
        strata = scored[index].strata
        if keys and all(k in strata for k in keys):
            groups.setdefault("/".join(strata[k] for k in keys), []).append(position)
    groups = {**dict(sorted(groups.items())), "overall": list(range(len(headline)))}
    bootstrap = first["scoring"]["bootstrap"]
    fingerprints = [str(report_fingerprint(r)) for r in reports]
    return PowerInputs(
        bench, task, systems, values, groups, label, metrics, bootstrap["seed"], bootstrap["resamples"], fingerprints
    )


def _grouping(bench: Benchmark, content: dict, grouping: str | None) -> tuple[tuple[str, ...], str]:
    """The stratum keys of `grouping` (default: by the report's primary stratum, else overall only)."""
    known = {grouping_name(keys): keys for keys in bench.groupings}
    if grouping is None:
        stratum = content.get("primary_stratum")
        grouping = f"by_{stratum}" if stratum and f"by_{stratum}" in known else "overall"
    if grouping not in known:
        raise UsageError(f"--grouping {short(grouping)}: not one of the report's groupings ({', '.join(known)})")
    return known[grouping], grouping


# --- its results, as JSON and as a text table ---------------------------------------------------------------
FORMULAS = {
    MCNEMAR: "Connor (1987) paired proportions: n = (z_{1-a/2} sqrt(psi) + z_{1-b} sqrt(psi - d^2))^2 / d^2, "
    "psi the observed share of discordant queries",
    RESAMPLED: "normal approximation n = ((z_{1-a/2} + z_{1-b}) sd / d)^2, sd of per-query differences from a "
    "seeded paired bootstrap",
}


def power_results(
    inputs: PowerInputs, alpha: float, power: float, target: float | None, discordance: float | None
) -> dict:
    """Every later system minus the first (or the one system alone) per group and metric, as plain JSON."""
    reference = inputs.systems[0] if len(inputs.systems) > 1 else None
    others = inputs.systems[1:] if reference else inputs.systems
    comparisons = []
    for name in others:
        by_group: dict = {}
        for group, members in inputs.groups.items():
            row: dict = {"n": len(members)}
            for index, metric in enumerate(inputs.metrics):
                a = inputs.values[name][index, members]
                b = inputs.values[reference][index, members] if reference else None
                label = f"power:{group}:{metric}:{name}"
                found = paired_power(
                    metric, a, b, alpha, power, target, discordance, inputs.seed, label, inputs.resamples
                )
                row[metric] = found.as_dict()
            by_group[group] = row
        comparisons.append({"system": name, "reference": reference, "by_group": by_group})
    methods = sorted({cell["method"] for c in comparisons for r in c["by_group"].values() for cell in _cells(r)})
    out = {
        "alpha": alpha,
        "power": power,
        "benchmark": inputs.benchmark.name,
        "task": {"name": inputs.task.name, "version": inputs.task.version, "source_sha256": inputs.task.source_sha256},
        "report_content_sha256": inputs.fingerprints,
        "grouping": inputs.grouping,
        "metrics": inputs.metrics,
        "methods": {m: FORMULAS.get(m, _assumed_formula(discordance)) for m in methods},
        "comparisons": comparisons,
        "bootstrap": {"seed": inputs.seed, "resamples": inputs.resamples},
    }
    if target is not None:
        out["difference"] = target
    return out


def _assumed_formula(discordance: float | None) -> str:
    """The McNemar line for an assumed discordance."""
    psi = ASSUMED_DISCORDANCE if discordance is None else discordance
    return f"Connor (1987) paired proportions at an assumed discordance psi = {psi:g} (not measured)"


def _cells(row: dict) -> list[dict]:
    """The metric cells of a group row."""
    return [v for k, v in row.items() if k != "n"]


def _number(value: float | None, spec: str) -> str:
    """A number, or `unreachable` for None."""
    return "unreachable" if value is None else format(value, spec)


def power_lines(results: dict) -> list[str]:
    """A readable table: comparison, group, n, metric, method, difference, discordance or sd, detectable, needed."""
    asked = "difference" in results
    header = ["comparison", "group", "n", "metric", "method", "difference", "discordance / sd", "detectable"]
    header += [f"queries for {results['difference']:g}"] if asked else []
    rows = []
    for comparison in results["comparisons"]:
        ref = comparison["reference"]
        label = f"{comparison['system']} - {ref}" if ref else f"{comparison['system']} (alone)"
        for group, row in comparison["by_group"].items():
            for metric in results["metrics"]:
                cell: dict = row[metric]
                spread = cell.get("discordance", cell.get("sd_of_differences"))
                line = [label, group, str(row["n"]), metric, cell["method"]]
                line += ["-" if "difference" not in cell else f"{cell['difference']:+.3f}", f"{spread:.3f}"]
                line += [_number(cell["detectable_difference"], ".3f")]
                line += [_number(cell.get("queries_needed"), "d")] if asked else []
                rows.append(line)
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in [header, *rows]]
    levels = f"alpha {results['alpha']:g} (two-sided), power {results['power']:g}"
    notes = [f"{method}: {formula}" for method, formula in results["methods"].items()]
    if any(r[-1] == "unreachable" or r[7] == "unreachable" for r in rows):
        notes.append("unreachable: no difference the discordance allows (at most the discordance itself) is detectable")
    return [f"detectable paired difference at {levels}; {results['grouping']}", *lines, *notes]


# --- the report card's detectable-difference column -------------------------------------------------------
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
