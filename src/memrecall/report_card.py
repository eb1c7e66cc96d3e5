"""A Markdown report card for any memrecall report: provenance, result tables, figures."""

from __future__ import annotations

from pathlib import Path

from memrecall.figures import AGES, BANDS, PROBE_TYPES, epirec_figures, epirec_systems, harness_figures
from memrecall.io import atomic_write_text
from memrecall.table import harness_rows


def _value(row: dict, metric: str, with_ci: bool = True) -> str:
    """`0.935 [0.89, 0.97]` (three decimals, CI to two) or `-` when absent."""
    if not row or metric not in row:
        return "-"
    value = row[metric]
    return (
        f"{value['value']:.3f} [{value['ci_low']:.2f}, {value['ci_high']:.2f}]" if with_ci else f"{value['value']:.3f}"
    )


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    """A Markdown table."""
    return ["| " + " | ".join(header) + " |", "|" + "---|" * len(header), *("| " + " | ".join(r) + " |" for r in rows)]


def provenance(report: dict) -> list[str]:
    """The provenance block: data, model, version, bootstrap, signature."""
    content = report["content"]
    task = content["task"]
    model = content.get("model")
    bootstrap = content["scoring"]["bootstrap"]
    rows = [
        [
            "task",
            f"{task['name']} {task['version']} ({task['stores']} stores, {task['documents']} documents, "
            f"{task['queries']} queries)",
        ],
        ["data sha256", f"`{task['source_sha256']}`"],
    ]
    for name in content.get("system_order", []):
        rows.append([f"rankings sha256 ({name})", f"`{content['systems'][name]['rankings_sha256']}`"])
    if model:
        rows.append(["model", f"{model['id']}, weights sha256 `{model['weights_sha256']}`"])
    rows += [
        [
            "bootstrap",
            f"{bootstrap['method']}, {bootstrap['resamples']} resamples of {bootstrap['unit']}-level values, "
            f"seed {bootstrap['seed']}, {bootstrap['confidence']:.0%} CI",
        ],
        ["memrecall version", content["memrecall_version"]],
        ["report signature", f"`{report['signature']}`"],
    ]
    return ["## Provenance", "", *_table(["field", "value"], rows), ""]


def epirec_card(report: dict, figures: list[Path]) -> list[str]:
    """Tables by probe type (primary metric with CI, then the others), by band and by age; figures."""
    content = report["content"]
    metrics = content["scoring"]["metrics"]
    primary = content["primary_metric"]
    systems = epirec_systems(report)
    lines = [
        f"## {primary} by probe type (95% CI)",
        "",
        "The three probe types are shown side by side; no single number is the headline.",
        "",
    ]
    lines += _table(
        ["strategy", *PROBE_TYPES, "overall"],
        [
            [
                name,
                *(_value(r.get("by_probe_type", {}).get(t), primary) for t in PROBE_TYPES),
                _value(r.get("overall"), primary),
            ]
            for name, r in systems
        ],
    )
    for metric in metrics[1:]:
        lines += ["", f"### {metric} by probe type", ""]
        lines += _table(
            ["strategy", *PROBE_TYPES],
            [
                [name, *(_value(r.get("by_probe_type", {}).get(t), metric, False) for t in PROBE_TYPES)]
                for name, r in systems
            ],
        )
    for key, groups, label in (
        ("by_probe_type_x_intensity_band", BANDS, "intensity band"),
        ("by_probe_type_x_age_bucket", AGES, "age bucket"),
    ):
        lines += ["", f"## {primary} by probe type and {label}", ""]
        header = ["strategy", *(f"{t} / {g}" for t in PROBE_TYPES for g in groups)]
        lines += _table(
            header,
            [
                [name, *(_value(r.get(key, {}).get(f"{t}/{g}"), primary, False) for t in PROBE_TYPES for g in groups)]
                for name, r in systems
            ],
        )
    return lines + ["", "## Figures", "", *(f"![{p.stem.replace('_', ' ')}]({p.name})" for p in figures), ""]


def harness_card(report: dict, figures: list[Path]) -> list[str]:
    """Headline metrics per mode and group, coverage, token efficiency, dataset notes; figures."""
    content = report["content"]
    metrics = [*content["headline_metrics"], "mrr"]
    lines = [f"## Results (headline metric {content['primary_metric']}, 95% CI on the first column)", ""]
    rows = [
        [mode, group, *(_value(row, m, i == 0) for i, m in enumerate(metrics)), str(row["n"])]
        for mode, group, row in harness_rows(report, apart_suffix=" (apart)")
    ]
    lines += _table(["mode", "group", *metrics, "n"], rows)
    for mode in content["mode_order"]:
        entry = content["modes"][mode]
        left_out = entry["results"].get("left_out_of_headline")
        if left_out:
            lines += ["", f"{mode}: left out of the headline: " + ", ".join(f"{k} {v}" for k, v in left_out.items())]
        if "coverage" in entry:
            cov = entry["coverage"]
            lines += ["", f"### {mode}: gold coverage down to depth {cov['depth']}", ""]
            lines += _table(
                ["k", "any gold", "all gold"], [[k, f"{cov['any'][k]:.3f}", f"{cov['all'][k]:.3f}"] for k in cov["any"]]
            )
    issues = content.get("dataset", {}).get("evidence_issue_counts")
    if issues:
        lines += ["", "Evidence ids handled: " + ", ".join(f"{k} {v}" for k, v in issues.items())]
    return lines + ["", "## Figures", "", *(f"![{p.stem.replace('_', ' ')}]({p.name})" for p in figures), ""]


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
        rows += [[name, g, *(_value(r, m, i == 0) for i, m in enumerate(metrics)), str(r["n"])] for g, r in groups if r]
    return lines + _table(["system", "group", *metrics, "n"], rows) + [""]


def comparisons_card(report: dict) -> list[str]:
    """Each system minus the first, by group, for the primary metric: difference, CI, Holm-adjusted p."""
    from memrecall.compare import format_p

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
    return lines + _table(["comparison", "group", "difference", "95% CI", "p", "p (Holm)", "n"], rows) + [""]


def hardest_card(hardest: list[dict] | None, k: int | None = None) -> list[str]:
    """The queries every system missed, at most 20, hardest first."""
    if hardest is None:
        return []
    from memrecall.per_query import HARDEST_LIMIT

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
    return lines + _table(["query", "type", "text", "best rank of any system"], rows) + [""]


def write_report_card(
    report: dict, out: Path, hardest: list[dict] | None = None, unverified: bool = False
) -> list[Path]:
    """Figures and README.md for the report into `out` (with a hardest-queries table when given)."""
    content = report["content"]
    kind = content.get("kind", content["task"]["name"])
    if "modes" in content:
        figures = harness_figures(report, out)
        body = harness_card(report, figures)
    elif kind == "baseline" or content.get("benchmark") == "epirec":
        figures = epirec_figures(report, out)
        body = epirec_card(report, figures)
    else:
        figures, body = [], systems_card(report)
    body = body + comparisons_card(report) + hardest_card(hardest)
    title = f"# memrecall report card: {content['task']['name']} {content['task']['version']} ({kind})"
    if unverified:
        title += (
            "\n\n**UNVERIFIED: the report's signature does not match its content; these numbers may have been edited.**"
        )
    card = out / "README.md"
    atomic_write_text(card, "\n".join([title, "", *provenance(report), *body]))
    return [*figures, card]
