"""The page's encoder overview: per encoder, its best row on every table and what `dense` costs with it there."""

from __future__ import annotations

from collections.abc import Sequence

from memrecall.encoding.registry import default_name, registry
from memrecall.reports.escape import html_attr, html_text
from memrecall.reports.leaderboard.entries import Entry
from memrecall.reports.leaderboard.figure import per_query_ms
from memrecall.reports.leaderboard.tables import Table, ranking_groups

COST_SYSTEM = "dense"  # the one system every encoder runs, so its cost is the encoder's own price


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


def _best_cell(table: Table, name: str, group: str) -> str:
    entry = best_row(table, name)
    cell = table.cell(entry, group, table.primary) if entry else None
    if not cell:
        return '<td class="num" data-sort="">-</td>'
    shown = f'{cell["value"]:.3f}<span class="ci">{html_text(entry.system)}</span>'
    return f'<td class="num" data-sort="{cell["value"]:.6g}">{shown}</td>'


def _cost_cell(table: Table, name: str) -> str:
    entry = dense_row(table, name)
    ms = per_query_ms(entry) if entry and not entry.warm else None
    if ms is None:
        return '<td class="num" data-sort="">-</td>'
    return f'<td class="num" data-sort="{ms:.6g}">{ms:.2f}</td>'


def overview_section(tables: Sequence[Table]) -> list[str]:
    """The overview table (nothing when fewer than two encoders are on the page)."""
    names = encoder_names(tables)
    if len(names) < 2:
        return []
    known = registry()
    heads = ["encoder", "dimension", "licence"]
    for table in tables:
        group = ranking_groups(table, table.rows)[0]
        where = f" ({group})" if group != "overall" else ""
        heads += [f"{table.title}: best {table.primary}{where}", f"{table.title}: {COST_SYSTEM} ms per query"]
    out = [
        '<h2 id="encoders">Encoders across the tables</h2>',
        '<p class="note">Each encoder\'s best comparable row on every table (the system under the value), on the '
        "table's primary metric in its hardest group, and the all-in time per query of "
        f"<code>{COST_SYSTEM}</code> with that encoder there (cold cache), the price of the model itself. The "
        "adapters keep MiniLM, so every other encoder's rows are memrecall's own dense systems.</p>",
        '<div class="wide"><table class="sortable" id="encoders-overview"><thead><tr>',
        *(f"<th>{html_text(h)}</th>" for h in heads),
        "</tr></thead><tbody>",
    ]
    for name in names:
        spec = known.get(name)
        cells = [
            f'<td data-sort="{html_attr(name)}">{html_text(name)}</td>',
            f'<td class="num">{spec.dimension}</td>' if spec else "<td>-</td>",
            f"<td>{html_text(spec.licence)}</td>" if spec else "<td>-</td>",
        ]
        for table in tables:
            group = ranking_groups(table, table.rows)[0]
            cells += [_best_cell(table, name, group), _cost_cell(table, name)]
        out.append(f'<tr data-encoder="{html_attr(name)}">' + "".join(cells) + "</tr>")
    return [*out, "</tbody></table></div>"]
