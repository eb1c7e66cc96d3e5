"""A Markdown report card for any memrecall report: provenance, result tables, figures."""

from __future__ import annotations

from pathlib import Path

from memrecall.io import atomic_write_text
from memrecall.reports.card_sections import (
    comparisons_card,
    hardest_card,
    markdown_table,
    sufficiency_table,
    systems_card,
    value_cell,
)
from memrecall.reports.cost_card import cost_card
from memrecall.reports.figures import AGES, BANDS, PROBE_TYPES, epirec_figures, epirec_systems, harness_figures
from memrecall.reports.tables import harness_rows


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
    return ["## Provenance", "", *markdown_table(["field", "value"], rows), ""]


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
    lines += markdown_table(
        ["strategy", *PROBE_TYPES, "overall"],
        [
            [
                name,
                *(value_cell(r.get("by_probe_type", {}).get(t), primary) for t in PROBE_TYPES),
                value_cell(r.get("overall"), primary),
            ]
            for name, r in systems
        ],
    )
    for metric in metrics[1:]:
        lines += ["", f"### {metric} by probe type", ""]
        lines += markdown_table(
            ["strategy", *PROBE_TYPES],
            [
                [name, *(value_cell(r.get("by_probe_type", {}).get(t), metric, False) for t in PROBE_TYPES)]
                for name, r in systems
            ],
        )
    for key, groups, label in (
        ("by_probe_type_x_intensity_band", BANDS, "intensity band"),
        ("by_probe_type_x_age_bucket", AGES, "age bucket"),
    ):
        lines += ["", f"## {primary} by probe type and {label}", ""]
        header = ["strategy", *(f"{t} / {g}" for t in PROBE_TYPES for g in groups)]
        lines += markdown_table(
            header,
            [
                [
                    name,
                    *(value_cell(r.get(key, {}).get(f"{t}/{g}"), primary, False) for t in PROBE_TYPES for g in groups),
                ]
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
        [mode, group, *(value_cell(row, m, i == 0) for i, m in enumerate(metrics)), str(row["n"])]
        for mode, group, row in harness_rows(report, apart_suffix=" (apart)")
    ]
    lines += markdown_table(["mode", "group", *metrics, "n"], rows)
    for mode in content["mode_order"]:
        entry = content["modes"][mode]
        left_out = entry["results"].get("left_out_of_headline")
        if left_out:
            lines += ["", f"{mode}: left out of the headline: " + ", ".join(f"{k} {v}" for k, v in left_out.items())]
        if "sufficiency" in entry:
            lines += sufficiency_table(mode, entry["sufficiency"])
        if "coverage" in entry:
            cov = entry["coverage"]
            lines += ["", f"### {mode}: gold coverage down to depth {cov['depth']}", ""]
            lines += markdown_table(
                ["k", "any gold", "all gold"], [[k, f"{cov['any'][k]:.3f}", f"{cov['all'][k]:.3f}"] for k in cov["any"]]
            )
    if content.get("dataset", {}).get("oracle_split"):
        lines = ["**Oracle split: retrieval is trivial; do not quote these numbers.**", "", *lines]
    for mode in content["mode_order"]:
        session = content["modes"][mode].get("turn_to_session_results")
        if session and "overall" in session:
            cells = ", ".join(f"{m} {session['overall'][m]['value']:.3f}" for m in content["headline_metrics"])
            lines += ["", f"{mode}, turn -> session (LongMemEval's effective-k rule), overall: {cells}"]
    issues = content.get("dataset", {}).get("evidence_issue_counts")
    if issues:
        lines += ["", "Evidence ids handled: " + ", ".join(f"{k} {v}" for k, v in issues.items())]
    return lines + ["", "## Figures", "", *(f"![{p.stem.replace('_', ' ')}]({p.name})" for p in figures), ""]


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
    body = body + comparisons_card(report) + hardest_card(hardest) + cost_card(report)
    title = f"# memrecall report card: {content['task']['name']} {content['task']['version']} ({kind})"
    if unverified:
        title += (
            "\n\n**UNVERIFIED: the report's signature does not match its content; these numbers may have been edited.**"
        )
    card = out / "README.md"
    atomic_write_text(card, "\n".join([title, "", *provenance(report), *body]))
    return [*figures, card]
