"""The cost section of a report card: what each system's run cost, from the report's unsigned env."""

from __future__ import annotations

from memrecall.reports.cards.card_sections import markdown_table
from memrecall.reports.exports.sweep_summary import _markdown_cell


def cost_card(report: dict) -> list[str]:
    """A table of prepare + index seconds, latency p50/p95 (ms), total seconds and peak RSS; [] without cost."""
    cost = (report.get("env") or {}).get("cost")
    if not isinstance(cost, dict) or not cost:
        return []
    rows = []
    for name in sorted(cost):
        facts = cost[name] or {}
        latency = facts.get("query_latency_ms") or {}
        build = (facts.get("prepare_seconds") or 0) + (facts.get("index_seconds") or 0)
        rows.append(
            [
                _markdown_cell(name),
                f"{build:.3f}",
                f"{latency.get('p50', 0):.3f}",
                f"{latency.get('p95', 0):.3f}",
                f"{facts.get('total_seconds', 0):.3f}",
                f"{facts.get('peak_rss_mib', 0):.0f}",
                _markdown_cell(facts.get("latency_basis", "")),
            ]
        )
    header = ["system", "prepare + index s", "latency p50 ms", "latency p95 ms", "total s", "peak RSS MiB", "latency"]
    note = (
        "Unsigned: measured on the machine that ran it and kept in the report's env, outside the fingerprint; "
        "no signature or replay vouches for these figures."
    )
    return ["", "## Cost (unsigned)", "", note, "", *markdown_table(header, rows), ""]
