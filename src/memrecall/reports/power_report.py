"""`memrecall power` results: each system against the first, per group and metric, as JSON and as a text table."""

from __future__ import annotations

from memrecall.reports.power_inputs import PowerInputs
from memrecall.scoring.power import ASSUMED_DISCORDANCE, MCNEMAR, RESAMPLED, paired_power

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
