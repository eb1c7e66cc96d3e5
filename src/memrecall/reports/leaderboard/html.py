"""The leaderboard site as files: index.html (every table, figure, the rows apart, how to submit) and a card
per row. Every string from a report goes through html_text / html_attr; nothing depends on the clock."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from memrecall.reports.escape import html_attr, html_text
from memrecall.reports.leaderboard.cards import badge, card_page, card_path, code_badge, link, page
from memrecall.reports.leaderboard.encoder_overview import encoder_names, overview_section
from memrecall.reports.leaderboard.encoders import NO_ENCODER
from memrecall.reports.leaderboard.entries import Entry
from memrecall.reports.leaderboard.figure import figure_svg, per_query_ms
from memrecall.reports.leaderboard.resolution import resolution_note
from memrecall.reports.leaderboard.tables import ALPHA, DETECTABLE_NOTE, Table, detectable_heading, ranking_groups
from memrecall.reports.notes import EVERY_STORE, report_notes

SUBMIT = [
    "memrecall run epirec --system my_package:MySystem --sign-key my-lab.key "
    "--output entries/epirec-v3/my-system.report.json --export-rankings entries/epirec-v3/my-system.rankings.jsonl",
    "memrecall verify entries/epirec-v3/my-system.report.json --rankings entries/epirec-v3/my-system.rankings.jsonl",
]
WARM = "warm: no encoding"
COST_HEADERS = ["prepare + index s", "latency p50 ms", "latency p95 ms", "ms per query, all-in", "peak RSS MiB"]


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


def cost_cells(entry: Entry) -> list[str]:
    """Prepare + index seconds, p50 and p95 latency, all-in ms per query, peak memory."""
    cost = entry.cost
    latency = cost.get("query_latency_ms") or {}
    build = None
    if isinstance(cost.get("index_seconds"), (int, float)):
        build = float(cost.get("prepare_seconds") or 0.0) + float(cost["index_seconds"])
    all_in = num(per_query_ms(entry), 3)
    if entry.warm:
        all_in = all_in.replace("</td>", f'<span class="trivial">{html_text(WARM)}</span></td>')
    return [
        num(build, 3),
        num(latency.get("p50"), 3),
        num(latency.get("p95"), 3),
        all_in,
        num(cost.get("peak_rss_mib"), 0),
    ]


def metric_cell(table: Table, entry: Entry, group: str, metric: str, tested: bool) -> str:
    """Value [CI], and on the primary metric of a tested row whether it is separable from the group's best."""
    cell = table.cell(entry, group, metric)
    if cell is None:
        return '<td class="num" data-sort="">-</td>'
    text = f'{cell["value"]:.3f}<span class="ci">[{cell["ci_low"]:.2f}, {cell["ci_high"]:.2f}]</span>'
    trivial = table.trivial(entry, group, metric)
    if trivial:
        kind = "trivial all" if trivial == EVERY_STORE else "trivial"
        text += f'<span class="{kind}">{html_text(trivial)}</span>'
    versus = table.versus.get((entry.row, group)) if tested and metric == table.primary else None
    if versus is not None and versus.best:
        text += '<span class="vs best">best</span>'
    elif versus is not None:
        kind = "separable" if versus.separable else "tied"
        words = "separable from best" if versus.separable else "not separable from best"
        text += f'<span class="vs {kind}">{words}, p<sub>Holm</sub> {p_shown(versus.p_holm)}</span>'
    dense = table.against_dense.get((entry.row, group)) if tested and metric == table.primary else None
    if dense is not None and dense.difference is not None:
        side = ("above" if dense.difference > 0 else "below") if dense.separable else "not separable from"
        shown = p_shown(dense.p_holm)
        text += f'<span class="vs dense">{side} dense ({dense.difference:+.3f}), p<sub>Holm</sub> {shown}</span>'
    return f'<td class="num" data-sort="{cell["value"]:.6g}">{text}</td>'


def detectable_cell(table: Table, entry: Entry, group: str, tested: bool) -> str:
    """The smallest difference from the group's best row this row's queries detect; `reference` on the best row."""
    versus = table.versus.get((entry.row, group)) if tested else None
    if versus is not None and versus.best:
        return '<td class="num" data-sort="">reference</td>'
    return num(versus.detectable if versus is not None else None, 3)


def links(table: Table, entry: Entry, site: Path) -> str:
    """Card, report, rankings and config links of a row."""
    card = card_path(table, entry)
    parts = [
        f'<a href="{html_attr(card)}">card</a>',
        f'<a href="{html_attr(link(entry.report_path, site))}">report</a>',
        f'<a href="{html_attr(link(entry.rankings_path, site))}">rankings</a>',
        f'<a href="{html_attr(card)}#config">config</a>',
    ]
    return '<td class="links">' + " &middot; ".join(parts) + "</td>"


def headers(table: Table, extra: Sequence[str] = ()) -> list[str]:
    """Column headings: system, encoder, state, each group x metric, cost, then any extras, then links."""
    cells = ["#", "system", "encoder", "state"]
    for group in table.groups:
        for metric in table.metrics:
            cells.append(metric if group == "overall" else f"{group} {metric}")
        cells.append(detectable_heading() if group == "overall" else f"{group} {detectable_heading()}")
    return [*cells, *COST_HEADERS, *extra, "links"]


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
    """A sortable table of rows; `extra(entry)` adds cells before the links."""
    names = headers(table, ["manifest fields that differ"] if extra else [])
    out = encoder_filter(entries, css_id)
    out += [f'<div class="wide"><table class="sortable" id="{html_attr(css_id)}">', "<thead><tr>"]
    out += [f"<th>{html_text(name)}</th>" for name in names]
    out += ["</tr></thead>", "<tbody>"]
    for position, entry in enumerate(entries, start=1):
        cells = [
            num(float(position), 0),
            f'<td data-sort="{html_attr(entry.row)}">{html_text(entry.system)}</td>',
            encoder_cell(entry),
            f"<td>{badge(entry.state)} {code_badge(entry)}</td>",
        ]
        for group in table.groups:
            cells += [metric_cell(table, entry, group, m, tested) for m in table.metrics]
            cells.append(detectable_cell(table, entry, group, tested))
        cells += cost_cells(entry)
        cells += [extra(entry)] if extra else []
        cells.append(links(table, entry, site))
        attrs = f'data-system="{html_attr(entry.row)}" data-encoder="{html_attr(entry.encoder.name)}"'
        out.append(f"<tr {attrs}>" + "".join(cells) + "</tr>")
    return [*out, "</tbody>", "</table></div>"]


def table_section(table: Table, site: Path) -> list[str]:
    """One benchmark's section: figure, comparable rows, oracle rows, rows apart."""
    out = [f'<h2 id="{html_attr(table.slug)}">{html_text(table.title)}</h2>']
    out.append(
        f'<p class="note">{len(table.rows)} comparable rows, best first on {html_text(table.primary)}'
        + (
            " in the hardest group (" + html_text(", then ".join(ranking_groups(table, table.rows))) + ")"
            if len(table.groups) > 1
            else ""
        )
        + ". "
        f"Under the primary metric: each row against the best row of its column, a two-sided paired sign-flip "
        f"randomisation test on per-query values (a store's queries flip together where they share a store, as on "
        f"EpiRec and LoCoMo), Holm-adjusted across the rows; separable when p<sub>Holm</sub> "
        f"&lt; {ALPHA}. Each row is tested against dense (MiniLM) the same way, Holm across the rows tested; "
        f"the mean paired difference is in brackets. Click a heading to sort.</p>"
    )
    out += resolution_note(table)
    out.append(
        f'<img class="figure" src="figures/{html_attr(table.slug)}.svg" alt="{html_attr(table.title)}: '
        f'{html_attr(table.primary)} against time per query">'
    )
    out += rows_table(table, table.rows, site, True, f"{table.slug}-main")
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


def index_page(tables: Sequence[Table], site: Path) -> str:
    """The leaderboard's index.html."""
    body = [
        "<h1>memrecall leaderboard</h1>",
        '<p class="note">Retrieval for agent memory, measured by memrecall. Each row is one report with its '
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
        "plug-in that shared the scorer's interpreter (--in-process) is refused.</p>",
        "<ul>" + "".join(f'<li><a href="#{html_attr(t.slug)}">{html_text(t.title)}</a></li>' for t in tables) + "</ul>",
        *(['<p><a href="#encoders">Encoders across the tables</a></p>'] if len(encoder_names(tables)) > 1 else []),
    ]
    body += overview_section(tables)
    for table in tables:
        body += table_section(table, site)
    body += [
        '<h2 id="submit">How to submit</h2>',
        "<p>Two commands give a verifiable entry: a report with its "
        "rankings, then this page rebuilt from the folder (it replays every entry whose data it has).</p>",
    ]
    body += [f"<pre><code>{html_text(command)}</code></pre>" for command in SUBMIT]
    return page("memrecall leaderboard", body)


def site_files(tables: Sequence[Table], site: Path) -> dict[str, bytes]:
    """Every file of the site by relative path: index, one card per row, one figure per table."""
    files = {"index.html": index_page(tables, site).encode("utf-8")}
    for table in tables:
        files[f"figures/{table.slug}.svg"] = figure_svg(table, table.rows)
        for entry in [*table.rows, *table.oracle, *(e for e, _ in table.apart)]:
            path = card_path(table, entry)
            if path in files:
                from memrecall.errors import DatasetError

                raise DatasetError(str(entry.report_path), "", f"row {entry.row!r} clashes with another's card")
            files[path] = card_page(table, entry, site).encode("utf-8")
    return dict(sorted(files.items()))
