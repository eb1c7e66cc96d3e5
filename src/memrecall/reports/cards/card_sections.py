"""Sections of report cards shared by every kind of report: cells, tables, comparisons, hardest queries."""

from __future__ import annotations

from pathlib import Path

from memrecall.reports.escape import markdown_cell, markdown_link_target, markdown_text
from memrecall.reports.notes import trivial_text


def value_cell(row: dict, metric: str, with_ci: bool = True) -> str:
    """`0.935 [0.89, 0.97]` (three decimals, CI to two) or `-` when absent; a trivial cut-off is said beside it."""
    if not row or metric not in row:
        return "-"
    value = row[metric] if isinstance(row[metric], dict) else {"value": row[metric]}
    shown = number(value.get("value"), ".3f")
    if with_ci:
        shown = f"{shown} [{number(value.get('ci_low'), '.2f')}, {number(value.get('ci_high'), '.2f')}]"
    trivial = trivial_text(value, row.get("n"))
    return f"{shown} ({markdown_text(trivial)})" if trivial else shown


def number(value, spec: str) -> str:
    """A number formatted by `spec`; anything else (a hand-edited report) escaped as text."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return format(value, spec)
    return markdown_cell(value)


def markdown_table(header: list[str], rows: list[list[str]]) -> list[str]:
    """A Markdown table of cells already escaped (markdown_cell); a row of the wrong width is an error."""
    for row in rows:
        if len(row) != len(header):
            raise ValueError(f"a table row has {len(row)} cells for {len(header)} columns")
    return ["| " + " | ".join(header) + " |", "|" + "---|" * len(header), *("| " + " | ".join(r) + " |" for r in rows)]


def figure_lines(figures: list[Path]) -> list[str]:
    """The Figures section: one image per figure file, alt text and link target escaped."""
    images = [f"![{markdown_text(p.stem.replace('_', ' '))}]({markdown_link_target(p.name)})" for p in figures]
    return ["", "## Figures", "", *images, ""]


def sufficiency_table(mode: str, block: dict) -> list[str]:
    """Evidence sufficiency by group: any, all and latest gold within k; missing and partial evidence."""
    ks = block["ks"]
    has_latest = any("latest" in row for row in block["by_group"].values())
    depth = markdown_cell(block["depth"])
    header = ["group", "n", *(markdown_cell(f"any@{k}") for k in ks), *(markdown_cell(f"all@{k}") for k in ks)]
    header += [markdown_cell(f"latest@{k}") for k in ks] if has_latest else []
    header += ["worst rank (median)", f"missing at {depth}", f"partial at {depth}"]
    rows = []
    for group, row in block["by_group"].items():
        cells = [
            markdown_cell(group),
            markdown_cell(row["n"]),
            *(f"{row['any'][str(k)]:.2f}" for k in ks),
            *(f"{row['all'][str(k)]:.2f}" for k in ks),
        ]
        if has_latest:
            cells += [f"{row['latest'][str(k)]:.2f}" if "latest" in row else "-" for k in ks]
        median = row["worst_required_rank"]["median"]
        cells += [
            f"{median:g}" if median is not None else "absent",
            markdown_cell(row["missing_evidence"]),
            markdown_cell(row["partial_evidence"]),
        ]
        rows.append(cells)
    note = "latest = the gold session with the latest date, knowledge-update"
    title = f"### {markdown_text(mode)}: evidence sufficiency ({note})"
    return ["", title, "", *markdown_table(header, rows)]


def systems_card(report: dict, per_query: list[dict] | None = None) -> list[str]:
    """For run/evaluate/compare reports outside EpiRec: metrics overall and per primary-stratum group, and the
    primary metric's detectable difference against the first system."""
    from memrecall.reports.cards.card_power import HEADING, detectable_cells

    content = report["content"]
    stratum = content.get("primary_stratum")
    metrics = content["scoring"]["metrics"]
    systems = [(name, content["systems"][name]["results"]) for name in content["system_order"]]
    seed = content["scoring"]["bootstrap"].get("seed", 0)
    detectable, note = detectable_cells(content["primary_metric"], stratum, systems, per_query, seed)
    lines = [f"## Results (primary metric {markdown_text(content['primary_metric'])}, 95% CI on the first column)", ""]
    rows = []
    for name, results in systems:
        groups = [("overall", results.get("overall")), *(results.get(f"by_{stratum}", {}).items() if stratum else [])]
        for g, r in groups:
            if r:
                cells = [value_cell(r, m, i == 0) for i, m in enumerate(metrics)]
                cells.insert(1, detectable.get((name, g), "-"))
                rows.append([markdown_cell(name), markdown_cell(g), *cells, markdown_cell(r["n"])])
    names = list(map(markdown_cell, metrics))
    header = ["system", "group", names[0], HEADING, *names[1:], "n"]
    return lines + markdown_table(header, rows) + ["", markdown_text(note), ""]


def comparisons_card(report: dict) -> list[str]:
    """Each system minus the first, by group, for the primary metric: difference, CI, Holm-adjusted p."""
    from memrecall.scoring.paired import format_p

    content = report["content"]
    comparisons = content.get("comparisons") or []
    if not comparisons:
        return []
    primary = content["primary_metric"]
    first = content["system_order"][0]
    heading = f"## Paired differences against {markdown_text(first)} ({markdown_text(primary)})"
    lines = [heading, "", markdown_text(content.get("comparison_test", "")), ""]
    rows = []
    for comparison in comparisons:
        for group, row in comparison["by_group"].items():
            cell = row[primary]
            rows.append(
                [
                    markdown_cell(f"{comparison['system']} - {first}"),
                    markdown_cell(group),
                    f"{cell['difference']:+.3f}",
                    f"[{cell['ci_low']:+.3f}, {cell['ci_high']:+.3f}]",
                    format_p(cell["p_value"]),
                    format_p(cell.get("p_holm", cell["p_value"])),
                    markdown_cell(row["n"]),
                ]
            )
    return lines + markdown_table(["comparison", "group", "difference", "95% CI", "p", "p (Holm)", "n"], rows) + [""]


def hardest_card(hardest: list[dict] | None, k: int | None = None) -> list[str]:
    """The queries every system missed, at most 20, hardest first."""
    if hardest is None:
        return []
    from memrecall.scoring.per_query import HARDEST_LIMIT

    lines = ["## Hardest queries", ""]
    if not hardest:
        return lines + ["Every query was found by at least one system.", ""]
    count = f"{len(hardest)} query was" if len(hardest) == 1 else f"{len(hardest)} queries were"
    lines += [f"{count} missed by every system; the {min(len(hardest), HARDEST_LIMIT)} hardest:", ""]
    rows = []
    for row in hardest[:HARDEST_LIMIT]:
        kind = (
            row["strata"].get("probe_type") or row["strata"].get("question_type") or row["strata"].get("category", "")
        )
        text = str(row["text"])
        text = text if len(text) <= 80 else text[:77] + "..."
        cells = [row["query_id"], kind, text, row["best_rank"] or "absent"]
        rows.append([markdown_cell(c) for c in cells])
    return lines + markdown_table(["query", "type", "text", "best rank of any system"], rows) + [""]
