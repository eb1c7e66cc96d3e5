"""The top of one leaderboard table as Markdown, for README: the same rows, order and numbers as the page."""

from __future__ import annotations

from collections.abc import Sequence

from memrecall.reports.escape import markdown_cell
from memrecall.reports.leaderboard.entries import Entry
from memrecall.reports.leaderboard.figure import per_query_ms
from memrecall.reports.leaderboard.tables import Table
from memrecall.reports.power import HEADING

START, END = "<!-- leaderboard-top -->", "<!-- /leaderboard-top -->"
OTHERS_START, OTHERS_END = "<!-- leaderboard-others -->", "<!-- /leaderboard-others -->"
BESIDE = ("dense", "fts5")  # the rows every other table is read against: plain cosine on MiniLM, and BM25


def _cell(table: Table, entry, group: str) -> str:
    """value [low, high] of the primary metric in a group, or a dash."""
    cell = table.cell(entry, group, table.primary)
    if not cell:
        return "-"
    trivial = table.trivial(entry, group, table.primary)
    shown = f"{cell['value']:.3f} [{cell['ci_low']:.2f}, {cell['ci_high']:.2f}]"
    return f"{shown} ({markdown_cell(trivial)})" if trivial else shown


def _detectable(table: Table, entry, group: str) -> str:
    """The row's detectable difference from the group's best row; `reference` on that row, `-` when none."""
    versus = table.versus.get((entry.row, group))
    if versus is not None and versus.best:
        return "reference"
    return f"{versus.detectable:.3f}" if versus is not None and versus.detectable is not None else "-"


def readme_rows(table: Table) -> list[tuple[int, Entry]]:
    """(page #, row) of every comparable row on the default encoder or none, and the best row of each other one."""
    chosen, best_seen = [], set()
    for position, entry in enumerate(table.rows, start=1):
        if not entry.encoder.axis:
            chosen.append((position, entry))
        elif entry.encoder.name not in best_seen:
            best_seen.add(entry.encoder.name)
            chosen.append((position, entry))
    return chosen


def markdown_table(table: Table) -> str:
    """The README rows of `table` (readme_rows) in page order: #, system, encoder, primary metric and detectable Δ
    per group, cost.

    The table alone: each README says what detectable Δ means in its own language, above the table.
    """
    columns = [h for g in table.groups for h in (f"{g} {table.primary}", f"{g} {HEADING}")]
    header = ["#", "system", "encoder", *columns, "ms per query", "peak RSS MiB"]
    lines = ["| " + " | ".join(markdown_cell(h) for h in header) + " |", "|" + "---|" * len(header)]
    for position, entry in readme_rows(table):
        ms, rss = per_query_ms(entry), entry.cost.get("peak_rss_mib")
        groups = [c for g in table.groups for c in (_cell(table, entry, g), _detectable(table, entry, g))]
        cells = [str(position), markdown_cell(entry.system), markdown_cell(entry.encoder.name), *groups]
        shown = "-" if ms is None else f"{ms:.2f} (warm)" if entry.warm else f"{ms:.2f}"
        cells += [shown, f"{rss:.0f}" if isinstance(rss, (int, float)) else "-"]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def others_table(tables: Sequence[Table]) -> str:
    """One line per table that is not EpiRec (page order): its queries, rows, best row and the BESIDE rows on the
    primary metric over all queries, each value [low, high]."""
    header = ["table", "metric", "queries", "rows", "best row", *BESIDE]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for table in tables:
        if table.benchmark == "epirec" or not table.rows:
            continue
        best, named = table.rows[0], {e.row: e for e in table.rows}
        beside = [_cell(table, named[r], "overall") if r in named else "-" for r in BESIDE]
        cells = [
            f"[{markdown_cell(table.title)}](site/leaderboard/index.html#{table.slug})",
            markdown_cell(table.primary),
            str(table.row(best, "overall").get("n", "-")),
            str(len(table.rows)),
            f"{markdown_cell(best.row)}: {_cell(table, best, 'overall')}",
            *beside,
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def with_table(text: str, table_markdown: str, where: str, start: str = START, end: str = END) -> str:
    """`text` with the block between the start and end markers replaced; a missing marker is an error."""
    from memrecall.errors import ConfigError

    if text.count(start) != 1 or text.count(end) != 1 or text.index(start) > text.index(end):
        raise ConfigError(f"{where}: needs exactly one {start} ... {end} block")
    head, rest = text.split(start)
    _, tail = rest.split(end)
    return f"{head}{start}\n{table_markdown}{end}{tail}"


def pick(tables: Sequence[Table], slug: str) -> Table:
    """The table with this slug; an unknown one is an error naming the ones there are."""
    from memrecall.errors import ConfigError

    for table in tables:
        if table.slug == slug:
            return table
    raise ConfigError(f"no leaderboard table {slug!r}; there are {', '.join(t.slug for t in tables)}")
