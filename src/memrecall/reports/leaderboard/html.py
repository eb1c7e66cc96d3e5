"""The leaderboard site as files: index.html (every table, figure, the rows apart, how to submit) and a card
per row. Every string from a report goes through html_text / html_attr; nothing depends on the clock."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from memrecall.reports.escape import html_attr, html_text
from memrecall.reports.leaderboard.diffs import diff_page, diff_path, has_diff
from memrecall.reports.leaderboard.encoder_overview import encoder_names, overview_section
from memrecall.reports.leaderboard.encoders import NO_ENCODER
from memrecall.reports.leaderboard.entries import Entry
from memrecall.reports.leaderboard.figure import figure_svg, per_query_ms
from memrecall.reports.leaderboard.pages import badge, code_badge, link, page, row_page, row_page_path
from memrecall.reports.leaderboard.resolution import resolution_note
from memrecall.reports.leaderboard.tables import (
    ALPHA,
    DENSE_ROW,
    DETECTABLE_NOTE,
    GROUP_CAPTIONS,
    GROUPS_SENTENCE,
    Table,
    ranking_groups,
)
from memrecall.reports.notes import EVERY_STORE, report_notes
from memrecall.reports.power import HEADING
from memrecall.scoring.paired import PERMUTATIONS, smallest_holm_p

SUBMIT = [
    "memrecall run epirec --system my_package:MySystem --sign-key my-lab.key "
    "--output entries/epirec-v3/my-system.report.json --export-rankings entries/epirec-v3/my-system.rankings.jsonl",
    "memrecall verify entries/epirec-v3/my-system.report.json --rankings entries/epirec-v3/my-system.rankings.jsonl",
]
WARM = "warm: no encoding"
ALL_IN = "ms per query, all-in"
COST_HEADERS = ["prepare + index s", "latency p50 ms", "latency p95 ms", ALL_IN, "peak RSS MiB"]


def p_shown(p: float) -> str:
    """p to 4 places, or to as many more as it takes to fall on the same side of ALPHA as p itself."""
    for digits in range(4, 10):
        text = f"{p:.{digits}f}"
        if (float(text) < ALPHA) == (p < ALPHA):
            return text
    return f"< {ALPHA}" if p < ALPHA else f"{p:.9f}"


def num(value: float | None, digits: int) -> str:
    """A right-aligned numeric cell that sorts by its value; blank when unknown."""
    if value is None:
        return '<td class="num" data-sort="">-</td>'
    return f'<td class="num" data-sort="{value:.6g}">{value:.{digits}f}</td>'


def cost_lines(entry: Entry) -> list[str]:
    """Prepare + index seconds, p50 and p95 latency, peak memory, as `label: value` lines for a row's details."""
    cost = entry.cost
    latency = cost.get("query_latency_ms") or {}
    build = None
    if isinstance(cost.get("index_seconds"), (int, float)):
        build = float(cost.get("prepare_seconds") or 0.0) + float(cost["index_seconds"])
    values = [build, latency.get("p50"), latency.get("p95"), cost.get("peak_rss_mib")]
    labels = [h for h in COST_HEADERS if h != ALL_IN]
    digits = [3, 3, 3, 0]
    return [
        f"{html_text(label)}: " + ("-" if value is None else f"{value:.{places}f}")
        for label, value, places in zip(labels, values, digits, strict=True)
    ]


def all_in_cell(entry: Entry) -> str:
    """All-in milliseconds per query, marked when the row's cost leaves encoding out (warm)."""
    cell = num(per_query_ms(entry), 2)
    return cell.replace("</td>", f'<span class="trivial">{html_text(WARM)}</span></td>') if entry.warm else cell


def value_text(table: Table, entry: Entry, group: str, metric: str) -> str | None:
    """value [CI] of a metric in a group, with its trivial cut-off when it has one; None without a value."""
    cell = table.cell(entry, group, metric)
    if cell is None:
        return None
    text = f'{cell["value"]:.3f}<span class="ci">[{cell["ci_low"]:.2f}, {cell["ci_high"]:.2f}]</span>'
    trivial = table.trivial(entry, group, metric)
    if trivial:
        kind = "trivial all" if trivial == EVERY_STORE else "trivial"
        text += f'<span class="{kind}">{html_text(trivial)}</span>'
    return text


def value_cell(table: Table, entry: Entry, group: str, metric: str, note: str = "") -> str:
    """A sortable cell: a metric's value [CI] in a group, then `note`; a dash without a value."""
    text = value_text(table, entry, group, metric)
    if text is None:
        return '<td class="num" data-sort="">-</td>'
    return f'<td class="num" data-sort="{table.cell(entry, group, metric)["value"]:.6g}">{text}{note}</td>'


def metric_cell(table: Table, entry: Entry, group: str, tested: bool) -> str:
    """The primary metric's value [CI] and, on a tested row, its gap from the group's best and whether it separates."""
    versus = table.versus.get((entry.row, group)) if tested else None
    note = ""
    if versus is not None and versus.best:
        note = '<span class="vs best">best</span>'
    elif versus is not None:
        kind = "separable" if versus.separable else "tied"
        words = "separable" if versus.separable else "not separable"
        note = f'<span class="vs {kind}">{versus.difference:+.3f} from best, {words}</span>'
    return value_cell(table, entry, group, table.primary, note)


def leading_cell(table: Table, entry: Entry, metric: str) -> str:
    """A leading metric's value [CI] over all queries (Table.leading), untested: the paired tests are on the
    primary metric."""
    return value_cell(table, entry, "overall", metric)


def test_lines(table: Table, entry: Entry, group: str) -> list[str]:
    """A tested row's paired tests in one group: against the best row (p_Holm, detectable Δ) and against dense."""
    lines = []
    versus = table.versus.get((entry.row, group))
    if versus is not None and versus.best:
        lines.append("best row: the reference of the column's tests")
    elif versus is not None:
        words = "separable from best" if versus.separable else "not separable from best"
        detectable = "-" if versus.detectable is None else f"{versus.detectable:.3f}"
        lines.append(f"{words}, p<sub>Holm</sub> {p_shown(versus.p_holm)}")
        lines.append(f"{html_text(HEADING)}: {detectable}")
    dense = table.against_dense.get((entry.row, group))
    if dense is not None and dense.difference is not None:
        side = ("above" if dense.difference > 0 else "below") if dense.separable else "not separable from"
        lines.append(f"{side} dense ({dense.difference:+.3f}), p<sub>Holm</sub> {p_shown(dense.p_holm)}")
    return lines


def details_cell(table: Table, entry: Entry, site: Path, tested: bool) -> str:
    """Behind one click: each group's tests and other metrics, the cost in full, and the row's links."""
    parts = []
    for group in ranking_groups(table, table.rows or [entry]):
        lines = test_lines(table, entry, group) if tested else []
        for metric in table.metrics:
            shown = value_text(table, entry, group, metric) if metric != table.primary else None
            lines += [f"{html_text(metric)} {shown}"] if shown else []
        if lines:
            heading = html_text(group if group != "overall" else table.primary)
            parts.append(f"<b>{heading}</b>" + "".join(f"<span>{line}</span>" for line in lines))
    parts.append("<b>cost</b>" + "".join(f"<span>{line}</span>" for line in cost_lines(entry)))
    parts.append(links(table, entry, site))
    return f'<td class="details"><details><summary>tests, cost, links</summary>{"".join(parts)}</details></td>'


def links(table: Table, entry: Entry, site: Path) -> str:
    """Row page, report, rankings and config links of a row, and its diff against dense when it is a comparable row."""
    card = row_page_path(table, entry)
    parts = [
        f'<a href="{html_attr(card)}">card</a>',
        f'<a href="{html_attr(link(entry.report_path, site))}">report</a>',
        f'<a href="{html_attr(link(entry.rankings_path, site))}">rankings</a>',
        f'<a href="{html_attr(card)}#config">config</a>',
    ]
    if has_diff(table) and entry in table.rows:
        dense = entry.row == DENSE_ROW
        target = diff_path(table) if dense else diff_path(table, entry)
        words = "diffs against it" if dense else "diff against dense"
        parts.append(f'<a class="diff" href="{html_attr(target)}">{words}</a>')
    return '<span class="links">' + " &middot; ".join(parts) + "</span>"


def group_heading(table: Table, group: str) -> str:
    """A metric column's heading: what the group is in plain words (when EpiRec names it), then group and metric."""
    caption = GROUP_CAPTIONS.get(group)
    words = f'<span class="caption">{html_text(caption)}</span>' if caption else ""
    name = table.primary if group == "overall" else f"{group} {table.primary}"
    return f"<th>{words}{html_text(name)}</th>"


def headers(table: Table, extra: Sequence[str] = ()) -> list[str]:
    """Column headings: #, system, encoder, state, the primary metric per group (hardest first), the leading
    metrics (Table.leading), cost, extras, details."""
    cells = [f"<th>{html_text(name)}</th>" for name in ("#", "system", "encoder", "state")]
    cells += [group_heading(table, group) for group in ranking_groups(table, table.rows)]
    cells += [f"<th>{html_text(metric)}</th>" for metric in table.leading]
    return [*cells, *(f"<th>{html_text(name)}</th>" for name in (ALL_IN, *extra, "details"))]


def encoder_cell(entry: Entry) -> str:
    """The row's encoder by name; one read from the run's unsigned config (an adapter's) says so."""
    encoder = entry.encoder
    shown = html_text(encoder.name)
    if not encoder.signed and encoder.name != NO_ENCODER:
        shown += '<span class="ci">its config (unsigned)</span>'
    return f'<td data-sort="{html_attr(encoder.name)}">{shown}</td>'


def encoder_filter(entries: Sequence[Entry], css_id: str) -> list[str]:
    """A checkbox per encoder in the table (with its row count) that shows or hides that encoder's rows."""
    counts = Counter(entry.encoder.name for entry in entries)
    if len(counts) < 2:
        return []
    boxes = "".join(
        f'<label><input type="checkbox" checked value="{html_attr(name)}"> {html_text(name)} ({n})</label>'
        for name, n in sorted(counts.items())
    )
    return [f'<p class="filter" data-table="{html_attr(css_id)}">Encoder: {boxes}</p>']


def rows_table(table: Table, entries: Sequence[Entry], site: Path, tested: bool, css_id: str, extra=None) -> list[str]:
    """A sortable table of rows; `extra(entry)` adds cells before the details."""
    out = encoder_filter(entries, css_id)
    out += [f'<div class="wide"><table class="sortable" id="{html_attr(css_id)}">', "<thead><tr>"]
    out += headers(table, ["manifest fields that differ"] if extra else [])
    out += ["</tr></thead>", "<tbody>"]
    for position, entry in enumerate(entries, start=1):
        cells = [
            num(float(position), 0),
            f'<td data-sort="{html_attr(entry.row)}">{html_text(entry.system)}</td>',
            encoder_cell(entry),
            f"<td>{badge(entry.state)} {code_badge(entry)}</td>",
        ]
        cells += [metric_cell(table, entry, group, tested) for group in ranking_groups(table, table.rows)]
        cells += [leading_cell(table, entry, metric) for metric in table.leading]
        cells.append(all_in_cell(entry))
        cells += [extra(entry)] if extra else []
        cells.append(details_cell(table, entry, site, tested))
        attrs = f'data-system="{html_attr(entry.row)}" data-encoder="{html_attr(entry.encoder.name)}"'
        out.append(f"<tr {attrs}>" + "".join(cells) + "</tr>")
    return [*out, "</tbody>", "</table></div>"]


def holm_floor(table: Table) -> float:
    """The smallest p_Holm the paired test can give on this table (scoring.paired.smallest_holm_p)."""
    stores = table.rows[0].stores if table.rows else None
    return smallest_holm_p(stores, len(table.rows) - 1) if stores and len(table.rows) > 1 else 0.0


def tests_note(table: Table) -> str:
    """How the table is ranked and tested, and the p_Holm floor, said once per table."""
    groups = ranking_groups(table, table.rows)
    order = " in the hardest group (" + html_text(", then ".join(groups)) + ")" if len(groups) > 1 else ""
    floor = holm_floor(table)
    floor_text = (
        f" The smallest p<sub>Holm</sub> this test can give here is {p_shown(floor)}: {PERMUTATIONS} sign flips "
        f"cannot show a raw p below 1/{PERMUTATIONS + 1}, and Holm multiplies the smallest by the "
        f"{len(table.rows) - 1} rows tested, so a row at {p_shown(floor)} is as separable as this test can say."
        if 0 < floor < ALPHA
        else ""
    )
    return (
        f'<p class="note">{len(table.rows)} comparable rows, best first on {html_text(table.primary)}{order}; the '
        "columns follow that order. Under each value, its difference from the best row of its column and whether "
        "the two are separable: a two-sided paired sign-flip randomisation test on per-query values (a store's "
        "queries flip together where they share a store, as on EpiRec and LoCoMo), Holm-adjusted across the rows, "
        f"separable when p<sub>Holm</sub> &lt; {ALPHA}.{floor_text} <em>tests, cost, links</em> opens a row's "
        "p-values, its test against dense (MiniLM, Holm across the rows tested), its detectable difference, its "
        "other metrics and its full cost. Click a heading to sort.</p>"
    )


def table_section(table: Table, site: Path) -> list[str]:
    """One benchmark's section: notes, figure, comparable rows, oracle rows, rows apart."""
    out = [f'<h2 id="{html_attr(table.slug)}">{html_text(table.title)}</h2>']
    if any(g in GROUP_CAPTIONS for g in table.groups):
        out.append(f'<p class="note">{html_text(GROUPS_SENTENCE[0].upper() + GROUPS_SENTENCE[1:])}.</p>')
    out.append(tests_note(table))
    out += resolution_note(table)
    out += rows_table(table, table.rows, site, True, f"{table.slug}-main")
    out.append(
        f'<img class="figure" src="figures/{html_attr(table.slug)}.svg" alt="{html_attr(table.title)}: '
        f'{html_attr(table.primary)} against time per query">'
    )
    out.append(f'<p class="note">{html_text(DETECTABLE_NOTE)}</p>')
    notes = report_notes(table.rows[0].content) if table.rows else []
    out += [f'<p class="note">{html_text(note[0].upper() + note[1:])}.</p>' for note in notes]
    if table.oracle:
        out.append("<h3>Oracle systems (they read gold labels; not ranked)</h3>")
        out += rows_table(table, table.oracle, site, False, f"{table.slug}-oracle")
    if table.apart:
        fields = {e.row: f for e, f in table.apart}
        out.append("<h3>Not comparable (their comparability manifest differs from this table's reference)</h3>")
        out += rows_table(
            table,
            [e for e, _ in table.apart],
            site,
            False,
            f"{table.slug}-apart",
            lambda e: "<td>" + html_text(", ".join(fields[e.row])) + "</td>",
        )
    return out


def row_words(entry: Entry) -> str:
    """`dense with mpnet`, or the system alone when no encoder ranked it."""
    name = html_text(entry.system)
    return name if entry.encoder.name == NO_ENCODER else f"{name} with {html_text(entry.encoder.name)}"


def answer(tables: Sequence[Table]) -> list[str]:
    """The page's first answer: the best row on the hardest group of the first table with groups, and its margins."""
    table = next((t for t in tables if len(t.groups) > 1 and len(t.rows) > 1), None)
    if table is None:
        return []
    group = ranking_groups(table, table.rows)[0]
    best, runner_up = table.rows[0], table.rows[1]
    cell = table.cell(best, group, table.primary)
    if cell is None:
        return []
    caption = GROUP_CAPTIONS.get(group)
    named = f"{html_text(caption[0].upper() + caption[1:])} ({html_text(group)})" if caption else html_text(group)
    text = (
        f"<b>{named}</b>, the hardest probes on {html_text(table.title.split(',')[0])}: <b>{row_words(best)}</b> "
        f"recalls best, {html_text(table.primary)} {cell['value']:.3f} [{cell['ci_low']:.2f}, {cell['ci_high']:.2f}]."
    )
    dense = [e for e in table.rows if e.row == DENSE_ROW and e is not runner_up]
    for other in [runner_up, *dense]:
        versus = table.versus.get((other.row, group))
        if other is best or versus is None or versus.difference is None:
            continue
        verdict = "separable" if versus.separable else "not separable"
        text += (
            f" {row_words(other)} (#{table.rows.index(other) + 1}) is {-versus.difference:.3f} below "
            f"({verdict}, p<sub>Holm</sub> {p_shown(versus.p_holm)})."
        )
    return [f'<p class="answer">{text} <a href="#{html_attr(table.slug)}">The table</a>.</p>']


def index_page(tables: Sequence[Table], site: Path) -> str:
    """The leaderboard's index.html."""
    body = [
        "<h1>memrecall leaderboard</h1>",
        *answer(tables),
        '<p class="toc">Tables: '
        + " &middot; ".join(
            [f'<a href="#{html_attr(t.slug)}">{html_text(t.title)}</a>' for t in tables]
            + (['<a href="#encoders">Encoders across the tables</a>'] if len(encoder_names(tables)) > 1 else [])
        )
        + "</p>",
        '<details class="note"><summary>How to read a row</summary><p>'
        "Retrieval for agent memory, measured by memrecall. Each row is one report with its "
        "rankings, checked when this page was built; its badge says how far the check went. Cells: headline "
        "metric with its 95 % bootstrap CI. Cost comes from each report's unsigned env (the machine that ran it); "
        f"<em>{html_text(WARM)}</em> marks a row that found every text in the embedding cache (one encoder's sweep "
        "shares a cache per benchmark, so only its first row there pays for encoding), and such a row is never "
        "on a figure's front. "
        "State: <em>replayed</em> = the rankings were scored again here and gave identical content; "
        "<em>signed by KEY</em> = a signature by that key checks; <em>fingerprint only</em> = the content hash "
        "and rankings hash check, nothing more; <em>UNVERIFIED</em> = a check failed. Code: <em>isolated</em> = a "
        "plug-in that ran in its own worker process on opaque ids; <em>memrecall's own</em> = a built-in or an "
        "adapter shipped with memrecall; <em>rankings file</em> = scored from a file, the code not recorded. A "
        "plug-in that shared the scorer's interpreter (--in-process) is refused.</p></details>",
    ]
    for table in tables:
        body += table_section(table, site)
    body += overview_section(tables)
    body += [
        '<h2 id="submit">How to submit</h2>',
        "<p>Two commands give a verifiable entry: a report with its "
        "rankings, then this page rebuilt from the folder (it replays every entry whose data it has).</p>",
    ]
    body += [f"<pre><code>{html_text(command)}</code></pre>" for command in SUBMIT]
    return page("memrecall leaderboard", body)


def site_files(tables: Sequence[Table], site: Path) -> dict[str, bytes]:
    """Every file of the site by relative path: index, one card per row, one figure and diff page per table."""
    files = {"index.html": index_page(tables, site).encode("utf-8")}
    for table in tables:
        files[f"figures/{table.slug}.svg"] = figure_svg(table, table.rows)
        if has_diff(table):
            files[diff_path(table)] = diff_page(table, site).encode("utf-8")
        for entry in [*table.rows, *table.oracle, *(e for e, _ in table.apart)]:
            path = row_page_path(table, entry)
            if path in files:
                from memrecall.errors import DatasetError

                raise DatasetError(str(entry.report_path), "", f"row {entry.row!r} clashes with another's card")
            files[path] = row_page(table, entry, site).encode("utf-8")
    return dict(sorted(files.items()))
