"""The encoder overview: per encoder, its best row on every table and what `dense` costs with it there.

One set of cells, drawn twice: as a section of the page and as a Markdown table for docs/encoders.md."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from memrecall.encoding.registry import default_name, registry
from memrecall.reports.escape import html_attr, html_text, markdown_cell
from memrecall.reports.leaderboard.entries import Entry
from memrecall.reports.leaderboard.figure import per_query_ms
from memrecall.reports.leaderboard.tables import Table, ranking_groups

COST_SYSTEM = "dense"  # the one system every encoder runs, so its cost is the encoder's own price
START, END = "<!-- encoder-overview -->", "<!-- /encoder-overview -->"


@dataclass(frozen=True)
class Best:
    """An encoder's best comparable row on one table: its value on the primary metric of the hardest group."""

    value: float | None
    system: str | None
    dense_ms: float | None  # dense's all-in ms per query with this encoder (None: absent or warm)


def encoder_names(tables: Sequence[Table]) -> list[str]:
    """Every signed encoder on the tables' comparable rows: the default first, then by name."""
    names = {e.encoder.name for t in tables for e in t.rows if e.encoder.signed}
    return sorted(names, key=lambda n: (n != default_name(), n))


def best_row(table: Table, name: str) -> Entry | None:
    """The table's best comparable row ranked with this encoder (rows are best first), or None."""
    return next((e for e in table.rows if e.encoder.signed and e.encoder.name == name), None)


def dense_row(table: Table, name: str) -> Entry | None:
    """The table's `dense` row with this encoder, or None."""
    return next((e for e in table.rows if e.system == COST_SYSTEM and e.encoder.name == name), None)


def hardest(table: Table) -> str:
    """The group the table ranks by first (its hardest)."""
    return ranking_groups(table, table.rows)[0]


def best(table: Table, name: str) -> Best:
    """The encoder's cell on one table."""
    entry, dense = best_row(table, name), dense_row(table, name)
    cell = table.cell(entry, hardest(table), table.primary) if entry else None
    ms = per_query_ms(dense) if dense and not dense.warm else None
    return Best(cell["value"] if cell else None, entry.system if cell else None, ms)


def headings(tables: Sequence[Table]) -> list[str]:
    """encoder, dimension, licence, then per table its best value and dense's cost."""
    heads = ["encoder", "dimension", "licence"]
    for table in tables:
        group = hardest(table)
        where = f" ({group})" if group != "overall" else ""
        heads += [f"{table.title}: best {table.primary}{where}", f"{table.title}: {COST_SYSTEM} ms per query"]
    return heads


def facts(name: str) -> tuple[str, str]:
    """(dimension, licence) from the registry, or dashes for an encoder it does not name."""
    spec = registry().get(name)
    return (str(spec.dimension), spec.licence) if spec else ("-", "-")


def overview_section(tables: Sequence[Table]) -> list[str]:
    """The page's overview (nothing when fewer than two encoders are on it)."""
    names = encoder_names(tables)
    if len(names) < 2:
        return []
    out = [
        '<h2 id="encoders">Encoders across the tables</h2>',
        '<p class="note">Each encoder\'s best comparable row on every table (the system under the value), on the '
        "table's primary metric in its hardest group, and the all-in time per query of "
        f"<code>{COST_SYSTEM}</code> with that encoder there (cold cache), the price of the model itself. The "
        "adapters keep MiniLM, so every other encoder's rows are memrecall's own dense systems.</p>",
        '<div class="wide"><table class="sortable" id="encoders-overview"><thead><tr>',
        *(f"<th>{html_text(h)}</th>" for h in headings(tables)),
        "</tr></thead><tbody>",
    ]
    for name in names:
        dimension, licence = facts(name)
        cells = [f'<td data-sort="{html_attr(name)}">{html_text(name)}</td>']
        cells += [f'<td class="num">{html_text(dimension)}</td>', f"<td>{html_text(licence)}</td>"]
        for table in tables:
            found = best(table, name)
            cells.append(
                '<td class="num" data-sort="">-</td>'
                if found.value is None
                else f'<td class="num" data-sort="{found.value:.6g}">{found.value:.3f}'
                f'<span class="ci">{html_text(found.system)}</span></td>'
            )
            cells.append(
                '<td class="num" data-sort="">-</td>'
                if found.dense_ms is None
                else f'<td class="num" data-sort="{found.dense_ms:.6g}">{found.dense_ms:.2f}</td>'
            )
        out.append(f'<tr data-encoder="{html_attr(name)}">' + "".join(cells) + "</tr>")
    return [*out, "</tbody></table></div>"]


def overview_markdown(tables: Sequence[Table]) -> str:
    """The same overview as a Markdown table, one row per encoder ("" when fewer than two encoders)."""
    names = encoder_names(tables)
    if len(names) < 2:
        return ""
    heads = headings(tables)
    lines = ["| " + " | ".join(markdown_cell(h) for h in heads) + " |", "|" + "---|" * len(heads)]
    for name in names:
        cells = [markdown_cell(name), *(markdown_cell(f) for f in facts(name))]
        for table in tables:
            found = best(table, name)
            shown = "-" if found.value is None else f"{found.value:.3f} ({found.system})"
            cells += [markdown_cell(shown), "-" if found.dense_ms is None else f"{found.dense_ms:.2f}"]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"
