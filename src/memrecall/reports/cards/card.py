"""The Markdown report card of any memrecall report: provenance, result tables, comparisons, hardest queries, cost,
the detectable difference (from reports/power.py) and the figures (from figures.py)."""

from __future__ import annotations

from pathlib import Path

from memrecall.data.official import official_note
from memrecall.encoding.vector_cache import cache_check_text
from memrecall.io import atomic_write_text
from memrecall.reports.cards.figures import AGES, BANDS, PROBE_TYPES, epirec_figures, epirec_systems, harness_figures
from memrecall.reports.escape import markdown_cell, markdown_link_target, markdown_text
from memrecall.reports.escape import markdown_cell as cell
from memrecall.reports.escape import markdown_code as code
from memrecall.reports.exports.sweep_summary import _markdown_cell
from memrecall.reports.exports.tables import harness_rows, rank_metrics
from memrecall.reports.notes import depth_note, trivial_text, unmeasured_note
from memrecall.reports.power import HEADING, detectable_cells
from memrecall.reports.proof.fingerprint import report_fingerprint
from memrecall.reports.proof.identity import describe_identity


def _encoder_text(encoder: dict) -> str:
    """An encoder claim as a card cell: its id, weights sha256 and the cache check it signs (or that none is)."""
    identity = f"{cell(encoder.get('id'))}, weights sha256 {code(encoder.get('weights_sha256'))}"
    return f"{identity}; {markdown_text(cache_check_text(encoder))}"


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


# --- sections every kind of report shares: cells, tables, comparisons, hardest queries, cost -----------------
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
    from memrecall.reports.power import HEADING, detectable_cells

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
