"""The sweep's summary table, one row per (benchmark, system, group), as Markdown, CSV and LaTeX."""

from __future__ import annotations

from collections.abc import Sequence

from memrecall.reports.escape import latex_text
from memrecall.reports.exports.table_text import csv_table, latex_table, markdown_table

HEADER = ["benchmark", "system", "status", "group", "metric", "value", "ci_low", "ci_high"]
COST = ["index_s", "latency_p50_ms", "latency_p95_ms", "peak_rss_mib"]


def cost_of(report: dict) -> dict:
    """The report's first system's cost block from env, or {} when the report has none."""
    name = report["content"]["system_order"][0]
    return (report.get("env") or {}).get("cost", {}).get(name) or {}


def summary_rows(outcomes: Sequence) -> list[list[str]]:
    """Rows of the summary in the outcomes' order: the primary metric (then any --metrics) per headline group, cost."""
    rows = []
    for outcome in outcomes:
        if outcome.report is None:
            rows.append([outcome.entry, outcome.system, f"failed: {outcome.error}", "", "", "", "", "", "", "", "", ""])
            continue
        content = outcome.report["content"]
        metric = content["primary_metric"]
        results = content["systems"][content["system_order"][0]]["results"]
        stratum = content.get("primary_stratum")
        groups = results.get(f"by_{stratum}", {}) if content["benchmark"] == "epirec" else {}
        cells = list(groups.items()) if groups else [("overall", results.get("overall", {}))]
        cost = cost_of(outcome.report)
        latency = cost.get("query_latency_ms", {})
        costs = [cost.get("index_seconds"), latency.get("p50"), latency.get("p95"), cost.get("peak_rss_mib")]
        requested = content["scoring"].get("requested_metrics", [])
        for group, row in cells:
            for name in dict.fromkeys([metric, *requested]):
                value = row.get(name, {})
                numbers = [f"{value[k]:.3f}" if k in value else "" for k in ("value", "ci_low", "ci_high")]
                rows.append(
                    [
                        outcome.entry,
                        outcome.system,
                        "ok",
                        group,
                        name,
                        *numbers,
                        *("" if c is None else f"{c:g}" for c in costs),
                    ]
                )
    return rows


def _markdown_cell(text: str) -> str:
    """A table cell with Markdown's active characters backslash-escaped and line breaks flattened."""
    out = " ".join(str(text).split())
    for char in "\\`*_{}[]<>|~":
        out = out.replace(char, "\\" + char)
    return out


def markdown_summary(rows: Sequence[Sequence[str]]) -> str:
    """The summary as a Markdown table."""
    return markdown_table([*HEADER, *COST], rows, _markdown_cell)


def csv_summary(rows: Sequence[Sequence[str]]) -> str:
    """The summary as CSV (RFC 4180 quoting, LF line ends)."""
    return csv_table([*HEADER, *COST], rows)


def latex_cell(text: str) -> str:
    """Text with LaTeX's special characters escaped."""
    return latex_text(text)


def latex_summary(rows: Sequence[Sequence[str]]) -> str:
    """The summary as a LaTeX tabular (booktabs rules)."""
    return latex_table([*HEADER, *COST], rows, 5)
