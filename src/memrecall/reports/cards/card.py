"""A Markdown report card for any memrecall report: provenance, result tables, figures."""

from __future__ import annotations

from pathlib import Path

from memrecall.data.official import official_note
from memrecall.io import atomic_write_text
from memrecall.reports.cards.card_power import HEADING, detectable_cells
from memrecall.reports.cards.card_sections import (
    comparisons_card,
    figure_lines,
    hardest_card,
    markdown_table,
    sufficiency_table,
    systems_card,
    value_cell,
)
from memrecall.reports.cards.cost_card import cost_card
from memrecall.reports.cards.figures import AGES, BANDS, PROBE_TYPES, epirec_figures, epirec_systems, harness_figures
from memrecall.reports.escape import markdown_cell as cell
from memrecall.reports.escape import markdown_code as code
from memrecall.reports.escape import markdown_text
from memrecall.reports.exports.tables import harness_rows, rank_metrics
from memrecall.reports.notes import depth_note, unmeasured_note
from memrecall.reports.proof.fingerprint import report_fingerprint
from memrecall.reports.proof.identity import describe_identity


def _encoder_text(encoder: dict) -> str:
    """An encoder claim as a card cell: its id and weights sha256."""
    return f"{cell(encoder.get('id'))}, weights sha256 {code(encoder.get('weights_sha256'))}"


def provenance(report: dict, state: str) -> list[str]:
    """The provenance block: data, model, version, bootstrap, fingerprint, signatures, verification."""
    content = report["content"]
    task = content["task"]
    model = content.get("model")  # an old report's one encoder; a current one names it per system
    bootstrap = content["scoring"]["bootstrap"]
    rows = [
        [
            "task",
            f"{cell(task['name'])} {cell(task['version'])} ({cell(task.get('stores'))} stores, "
            f"{cell(task.get('documents'))} documents, {cell(task['queries'])} queries)",
        ],
        ["data sha256", code(task.get("source_sha256"))],
    ]
    notes = (
        ("data", official_note(content.get("data"))),
        ("scoring depth", depth_note(content)),
        ("not measurable", unmeasured_note(content.get("dataset") or {})),
    )
    for label, note in notes:
        if note:
            rows.append([label, markdown_text(note)])
    for name in content.get("system_order", []):
        rows.append([f"rankings sha256 ({cell(name)})", code(content["systems"][name].get("rankings_sha256"))])
        rows.append([f"code ({cell(name)})", markdown_text(describe_identity(content, name))])
        encoder = content["systems"][name].get("encoder")
        if isinstance(encoder, dict):
            rows.append([f"encoder ({cell(name)})", _encoder_text(encoder)])
    if model:
        rows.append(["model", _encoder_text(model)])
    rows += [
        [
            "bootstrap",
            f"{cell(bootstrap.get('method'))}, {cell(bootstrap.get('resamples'))} resamples of "
            f"{_resampled(bootstrap.get('unit'))}, seed {cell(bootstrap.get('seed'))}, "
            f"{cell(_percent(bootstrap.get('confidence')))} CI",
        ],
        ["memrecall version", cell(content.get("memrecall_version"))],
        ["report fingerprint (content sha256)", code(report_fingerprint(report))],
    ]
    for entry in report.get("signatures") or []:
        if isinstance(entry, dict):
            rows.append([f"signature by {cell(entry.get('key_id'))}", f"public key {code(entry.get('public_key'))}"])
    rows.append(["verification", cell(state)])
    return ["## Provenance", "", *markdown_table(["field", "value"], rows), ""]


def _percent(value) -> str:
    """`0.95` -> `95%`; anything else as it is."""
    return f"{value:.0%}" if isinstance(value, (int, float)) else str(value)


def epirec_card(report: dict, figures: list[Path], rows: list[dict] | None = None) -> list[str]:
    """Tables by probe type (primary metric with CI and detectable difference, then the others), by band and by age;
    figures."""
    content = report["content"]
    metrics = content["scoring"]["metrics"]
    primary = content["primary_metric"]
    systems = epirec_systems(report)
    named = [(n, content["systems"][n]["results"]) for n in content["system_order"]]
    seed = content["scoring"]["bootstrap"].get("seed", 0)
    groups = [*PROBE_TYPES, "overall"]
    found, note = detectable_cells(primary, "probe_type", named, rows, seed)
    detectable = {
        (shown, g): found[(n, g)]
        for (n, _), (shown, _) in zip(named, systems, strict=True)
        for g in groups
        if (n, g) in found
    }
    lines = [
        f"## {cell(primary)} by probe type (95% CI)",
        "",
        "The three probe types are shown side by side; no single number is the headline.",
        "",
    ]
    lines += markdown_table(
        ["system", *(h for g in groups for h in (g, f"{g} {HEADING}"))],
        [
            [
                cell(name),
                *(
                    c
                    for g in groups
                    for c in (
                        value_cell(r.get("overall") if g == "overall" else r.get("by_probe_type", {}).get(g), primary),
                        detectable.get((name, g), "-"),
                    )
                ),
            ]
            for name, r in systems
        ],
    )
    lines += ["", markdown_text(note)]
    for metric in metrics[1:]:
        lines += ["", f"### {cell(metric)} by probe type", ""]
        lines += markdown_table(
            ["system", *PROBE_TYPES],
            [
                [cell(name), *(value_cell(r.get("by_probe_type", {}).get(t), metric, False) for t in PROBE_TYPES)]
                for name, r in systems
            ],
        )
    for key, groups, label in (
        ("by_probe_type_x_intensity_band", BANDS, "intensity band"),
        ("by_probe_type_x_age_bucket", AGES, "age bucket"),
    ):
        lines += ["", f"## {cell(primary)} by probe type and {label}", ""]
        header = ["system", *(f"{t} / {g}" for t in PROBE_TYPES for g in groups)]
        lines += markdown_table(
            header,
            [
                [
                    cell(name),
                    *(value_cell(r.get(key, {}).get(f"{t}/{g}"), primary, False) for t in PROBE_TYPES for g in groups),
                ]
                for name, r in systems
            ],
        )
    return lines + figure_lines(figures)


def harness_card(report: dict, figures: list[Path]) -> list[str]:
    """Headline metrics per system and group, coverage, token efficiency, dataset notes; figures."""
    content = report["content"]
    metrics = [*content["headline_metrics"], *rank_metrics(content)]
    lines = [f"## Results (headline metric {cell(content['primary_metric'])}, 95% CI on the first column)", ""]
    rows = [
        [cell(mode), cell(group), *(value_cell(row, m, i == 0) for i, m in enumerate(metrics)), cell(row["n"])]
        for mode, group, row in harness_rows(report, apart_suffix=" (apart)")
    ]
    lines += markdown_table(["system", "group", *map(cell, metrics), "n"], rows)
    for mode in content["system_order"]:
        entry = content["systems"][mode]
        left_out = entry["results"].get("left_out_of_headline")
        if left_out:
            left = ", ".join(f"{cell(k)} {cell(v)}" for k, v in left_out.items())
            lines += ["", f"{markdown_text(mode)}: left out of the headline: {left}"]
        if "sufficiency" in entry:
            lines += sufficiency_table(mode, entry["sufficiency"])
        if "coverage" in entry:
            cov = entry["coverage"]
            lines += ["", f"### {cell(mode)}: gold coverage down to depth {cell(cov['depth'])}", ""]
            lines += markdown_table(
                ["k", "any gold", "all gold"],
                [[cell(k), f"{cov['any'][k]:.3f}", f"{cov['all'][k]:.3f}"] for k in cov["any"]],
            )
    if content.get("dataset", {}).get("oracle_split"):
        lines = ["**Oracle split: retrieval is trivial; do not quote these numbers.**", "", *lines]
    for mode in content["system_order"]:
        session = content["systems"][mode].get("turn_to_session_results")
        if session and "overall" in session:
            cells = ", ".join(f"{cell(m)} {session['overall'][m]['value']:.3f}" for m in content["headline_metrics"])
            lines += ["", f"{markdown_text(mode)}, turn -> session (LongMemEval's effective-k rule), overall: {cells}"]
    issues = content.get("dataset", {}).get("evidence_issue_counts")
    if issues:
        lines += ["", "Evidence ids handled: " + ", ".join(f"{cell(k)} {cell(v)}" for k, v in issues.items())]
    return lines + figure_lines(figures)


def write_report_card(
    report: dict,
    out: Path,
    hardest: list[dict] | None = None,
    unverified: bool = False,
    state: str | None = None,
    reason: str = "",
    rows: list[dict] | None = None,
) -> list[Path]:
    """Figures and README.md for the report into `out` (with a hardest-queries table when given; the detectable
    differences against the first system need its per-query `rows`).

    `state` is the report's verification state (memrecall.reports.proof.verification.report_state); without one it
    is worked out from the report alone (fingerprint and signatures), or UNVERIFIED when `unverified`.
    """
    from memrecall.reports.proof.verification import report_state, state_meaning, verify_report

    if state is None:
        checks = verify_report(report)
        state = "UNVERIFIED" if unverified else report_state(report, checks)
        failed = [check for check in checks if not check.ok]
        reason = reason or (f"{failed[0].name}: {failed[0].detail}" if failed else "marked unverified by the caller")
    content = report["content"]
    kind = content.get("benchmark", content["task"]["name"])
    if "diagnostics" in content:
        figures = harness_figures(report, out)
        body = harness_card(report, figures)
    elif content.get("benchmark") == "epirec":
        figures = epirec_figures(report, out)
        body = epirec_card(report, figures, rows)
    else:
        figures, body = [], systems_card(report, rows)
    body = body + comparisons_card(report) + hardest_card(hardest) + cost_card(report)
    task = content["task"]
    title = f"# memrecall report card: {cell(task['name'])} {cell(task['version'])} ({cell(kind)})"
    if state == "UNVERIFIED":
        title += f"\n\n**UNVERIFIED: {cell(reason)}; these numbers may have been edited.**"
    else:
        title += f"\n\nVerification: **{cell(state)}**: {state_meaning(state)} (`memrecall verify` checks it)."
    card = out / "README.md"
    atomic_write_text(card, "\n".join([title, "", *provenance(report, state), *body]))
    return [*figures, card]


def _resampled(unit: object) -> str:
    """What one bootstrap draw takes, in words: whole stores, or single queries."""
    if unit == "store":
        return "whole stores (each store's queries drawn together; the paired test flips stores)"
    return "queries" if unit == "query" else f"{cell(unit)}-level values"
