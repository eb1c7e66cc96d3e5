"""A report's results as rows (system, grouping, group, metric, value, CI, n): for DataFrames, CSV and LaTeX."""

from __future__ import annotations

from memrecall.errors import ConfigError

COLUMNS = ("system", "grouping", "group", "metric", "value", "ci_low", "ci_high", "n")
PAIRED = ("difference", "diff_ci_low", "diff_ci_high", "p_holm")


def result_rows(report: dict) -> list[tuple]:
    """One row per system, grouping (overall, by_*, apart_by_*), group and scored metric, in the report's order."""
    content = report["content"]
    metrics = content["scoring"]["metrics"]
    order, entries = content["system_order"], content["systems"]
    rows = []
    for system in order:
        for grouping, block in entries[system]["results"].items():
            if grouping == "overall":
                rows += _rows(system, grouping, "overall", block, metrics)
            elif grouping.startswith(("by_", "apart_")) and isinstance(block, dict):
                for group, row in block.items():
                    rows += _rows(system, grouping, group, row, metrics)
    return rows


def _rows(system: str, grouping: str, group: str, row: dict, metrics) -> list[tuple]:
    """The rows of one results cell (a dict with n and one entry per metric)."""
    out = []
    for metric in metrics:
        if metric in row:
            cell = row[metric]
            out.append((system, grouping, group, metric, cell["value"], cell["ci_low"], cell["ci_high"], row["n"]))
    return out


def paired_rows(report: dict) -> list[tuple]:
    """result_rows with each later system's paired difference from the first (CI, Holm p) where compared."""
    content = report["content"]
    by_system = {c["system"]: c["by_group"] for c in content.get("comparisons", [])}
    stratum_grouping = f"by_{content.get('primary_stratum')}"
    rows = []
    for row in result_rows(report):
        system, grouping, group, metric = row[:4]
        groups = by_system.get(system, {})
        key = "overall" if grouping == "overall" else group if grouping == stratum_grouping else None
        cell = groups.get(key, {}).get(metric) if key is not None else None
        extra = (
            (cell["difference"], cell["ci_low"], cell["ci_high"], cell.get("p_holm", cell["p_value"]))
            if cell
            else ("",) * 4
        )
        rows.append((*row, *extra))
    return rows


def results_frame(report: dict):
    """The rows of result_rows as a pandas DataFrame (pandas is optional: pip install pandas)."""
    try:
        import pandas as pd
    except ImportError:
        raise ConfigError("Result.to_frame() needs pandas, which is not installed: pip install pandas") from None
    return pd.DataFrame(result_rows(report), columns=list(COLUMNS))


def table_rows(report: dict, digits: int = 4) -> list[list[str]]:
    """paired_rows with numbers printed to `digits` decimals, for the CSV and LaTeX tables of compare."""
    out = []
    for row in paired_rows(report):
        cells = [str(c) for c in row[:4]]
        cells += [f"{c:.{digits}f}" if isinstance(c, float) else str(c) for c in row[4:7]]
        cells.append(str(row[7]))
        cells += [f"{c:.{digits}f}" if isinstance(c, float) else str(c) for c in row[8:]]
        out.append(cells)
    return out
