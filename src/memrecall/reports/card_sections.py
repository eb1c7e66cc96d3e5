"""Sections of report cards shared by every kind of report: cells, tables, comparisons, hardest queries."""

from __future__ import annotations


def value_cell(row: dict, metric: str, with_ci: bool = True) -> str:
    """`0.935 [0.89, 0.97]` (three decimals, CI to two) or `-` when absent."""
    if not row or metric not in row:
        return "-"
    value = row[metric]
    return (
        f"{value['value']:.3f} [{value['ci_low']:.2f}, {value['ci_high']:.2f}]" if with_ci else f"{value['value']:.3f}"
    )


def markdown_table(header: list[str], rows: list[list[str]]) -> list[str]:
    """A Markdown table."""
    return ["| " + " | ".join(header) + " |", "|" + "---|" * len(header), *("| " + " | ".join(r) + " |" for r in rows)]


def sufficiency_table(mode: str, block: dict) -> list[str]:
    """Evidence sufficiency by group: any, all and latest gold within k; missing and partial evidence."""
    ks = block["ks"]
    has_latest = any("latest" in row for row in block["by_group"].values())
    header = ["group", "n", *(f"any@{k}" for k in ks), *(f"all@{k}" for k in ks)]
    header += [f"latest@{k}" for k in ks] if has_latest else []
    header += ["worst rank (median)", f"missing at {block['depth']}", f"partial at {block['depth']}"]
    rows = []
    for group, row in block["by_group"].items():
        cells = [
            group,
            str(row["n"]),
            *(f"{row['any'][str(k)]:.2f}" for k in ks),
            *(f"{row['all'][str(k)]:.2f}" for k in ks),
        ]
        if has_latest:
            cells += [f"{row['latest'][str(k)]:.2f}" if "latest" in row else "-" for k in ks]
        median = row["worst_required_rank"]["median"]
        cells += [
            f"{median:g}" if median is not None else "absent",
            str(row["missing_evidence"]),
            str(row["partial_evidence"]),
        ]
        rows.append(cells)
    title = f"### {mode}: evidence sufficiency (latest = the gold session with the latest date, knowledge-update)"
    return ["", title, "", *markdown_table(header, rows)]


def systems_card(report: dict) -> list[str]:
    """For run/evaluate/compare reports outside EpiRec: metrics overall and per primary-stratum group."""
    content = report["content"]
    stratum = content.get("primary_stratum")
    metrics = content["scoring"]["metrics"]
    lines = [f"## Results (primary metric {content['primary_metric']}, 95% CI on the first column)", ""]
    rows = []
    for name in content["system_order"]:
        results = content["systems"][name]["results"]
        groups = [("overall", results.get("overall")), *(results.get(f"by_{stratum}", {}).items() if stratum else [])]
        rows += [
            [name, g, *(value_cell(r, m, i == 0) for i, m in enumerate(metrics)), str(r["n"])] for g, r in groups if r
        ]
    return lines + markdown_table(["system", "group", *metrics, "n"], rows) + [""]


def comparisons_card(report: dict) -> list[str]:
    """Each system minus the first, by group, for the primary metric: difference, CI, Holm-adjusted p."""
    from memrecall.scoring.paired import format_p

    content = report["content"]
    comparisons = content.get("comparisons") or []
    if not comparisons:
        return []
    primary = content["primary_metric"]
    first = content["system_order"][0]
    lines = [f"## Paired differences against {first} ({primary})", "", content.get("comparison_test", ""), ""]
    rows = []
    for comparison in comparisons:
        for group, row in comparison["by_group"].items():
            cell = row[primary]
            rows.append(
                [
                    f"{comparison['system']} - {first}",
                    group,
                    f"{cell['difference']:+.3f}",
                    f"[{cell['ci_low']:+.3f}, {cell['ci_high']:+.3f}]",
                    format_p(cell["p_value"]),
                    format_p(cell.get("p_holm", cell["p_value"])),
                    str(row["n"]),
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
        text = row["text"] if len(row["text"]) <= 80 else row["text"][:77] + "..."
        rows.append([row["query_id"], kind, text.replace("|", "/"), str(row["best_rank"] or "absent")])
    return lines + markdown_table(["query", "type", "text", "best rank of any system"], rows) + [""]
