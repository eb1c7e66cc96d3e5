"""The leaderboard's diff pages: per table, every comparable row against `dense`, query by query, compact.

A full `memrecall diff` page holds every query's text, gold and top documents (about 1 MB for two systems on
EpiRec 3.0); one per row would not fit a committed site, and LoCoMo's text never leaves the user's disk. So the
leaderboard commits one compact page per table holding what its scores files already publish: each headline
query's id and group, and for each row the smallest headline cut-off k at which it found a gold document (its
recall@k hits). Outcomes (fixed, broken, both found, both missed) are `memrecall diff`'s, at the primary
metric's cut-off; the tests are the table's own against dense (sign-flip p, Holm across the rows). The page
names the `memrecall diff` command that gives a row's full page. Every string is escaped (see diff.page).
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote

from memrecall.reports.diff.content import OUTCOMES, outcome
from memrecall.reports.diff.page import page_head, script_json
from memrecall.reports.escape import html_attr, html_text
from memrecall.reports.leaderboard.entries import Entry
from memrecall.reports.leaderboard.pages import link
from memrecall.reports.leaderboard.tables import DENSE_ROW, Table
from memrecall.scoring.metrics import parse_metric

ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"  # one character per packed group

SCRIPT = """
(function () {
  const data = JSON.parse(document.getElementById('diff-data').textContent);
  const body = document.getElementById('rows'), shown = document.getElementById('shown');
  const pick = document.getElementById('system'), groupPick = document.getElementById('group');
  const n = data.queries.length, last = data.cutoffs.length;
  function unpack(text, base, count) {
    const per = data.per_char[String(base)], out = new Array(count);
    for (let i = 0; i < count; i++) {
      let v = data.alphabet.indexOf(text[Math.floor(i / per)]);
      for (let j = 0; j < i % per; j++) v = Math.floor(v / base);
      out[i] = v % base;
    }
    return out;
  }
  const cells = {};
  Object.keys(data.cells).forEach(function (s) { cells[s] = unpack(data.cells[s], last + 1, n); });
  const groups = data.group_names.length ? unpack(data.groups, Math.max(2, data.group_names.length), n) : null;
  let outcome = 'all';
  function label(c) { return c === last ? '> ' + data.cutoffs[last - 1] : '\\u2264 ' + data.cutoffs[c]; }
  function found(c) { return c < last && data.cutoffs[c] <= data.k; }
  function outcomeOf(a, b) {
    return found(a) ? (found(b) ? 'both found' : 'broken') : (found(b) ? 'fixed' : 'both missed');
  }
  function cell(tr, text, cls) {
    const td = document.createElement('td');
    td.textContent = text;
    if (cls) td.className = cls;
    tr.append(td);
  }
  function draw() {
    const system = pick.value, mine = cells[system], dense = cells[data.dense];
    const group = groupPick ? groupPick.value : 'all';
    const order = data.queries.map(function (q, i) { return i; });
    order.sort(function (i, j) {
      return Math.abs(mine[j] - dense[j]) - Math.abs(mine[i] - dense[i]) || i - j;
    });
    body.textContent = '';
    let count = 0;
    order.forEach(function (i) {
      const o = outcomeOf(dense[i], mine[i]), g = groups ? data.group_names[groups[i]] : '';
      if (outcome !== 'all' && o !== outcome) return;
      if (group !== 'all' && g !== group) return;
      const tr = document.createElement('tr');
      cell(tr, data.queries[i]);
      if (groups) cell(tr, g);
      cell(tr, label(dense[i]), 'num');
      cell(tr, label(mine[i]), 'num');
      cell(tr, o, o === 'fixed' || o === 'broken' ? o : '');
      body.append(tr);
      count++;
    });
    shown.textContent = count + ' of ' + n + ' queries shown';
    document.querySelectorAll('.summary').forEach(function (t) { t.hidden = t.dataset.system !== system; });
    document.getElementById('mine').textContent = system;
  }
  function fromHash() {
    const wanted = decodeURIComponent(location.hash.slice(1));
    if (Object.prototype.hasOwnProperty.call(cells, wanted) && wanted !== data.dense) pick.value = wanted;
    draw();
  }
  document.querySelectorAll('[data-outcome]').forEach(function (b, _, all) {
    b.onclick = function () {
      outcome = b.dataset.outcome;
      all.forEach(function (o) { o.setAttribute('aria-pressed', String(o === b)); });
      draw();
    };
  });
  pick.onchange = function () { history.replaceState(null, '', '#' + encodeURIComponent(pick.value)); draw(); };
  if (groupPick) groupPick.onchange = draw;
  window.addEventListener('hashchange', fromHash);
  fromHash();
  document.body.dataset.ready = 'true';
})();
"""


def diff_path(table: Table, entry: Entry | None = None) -> str:
    """The table's diff page (relative to the site), with the row's fragment when an entry is given."""
    page = f"diffs/{table.slug}.html"
    return page if entry is None else f"{page}#{quote(entry.row, safe='')}"


def has_diff(table: Table) -> bool:
    """True when the table has a `dense` row, another comparable row to set against it, and its primary metric is
    one of its headline recall@k (what a diff's outcomes are counted at)."""
    primary = parse_metric(table.primary)
    dense = any(e.row == DENSE_ROW for e in table.rows)
    return dense and len(table.rows) > 1 and primary.kind == "recall" and primary.k in cutoffs(table)


def cutoffs(table: Table) -> list[int]:
    """The headline recall@k cut-offs of a table, ascending."""
    found = {parse_metric(m).k for m in table.metrics if parse_metric(m).kind == "recall"}
    return sorted(k for k in found if k is not None)


def first_found(row: dict, ks: list[int]) -> int:
    """The index of the smallest cut-off at which a scores row found a gold document; len(ks) when none did."""
    return next((i for i, k in enumerate(ks) if row["values"].get(f"recall@{k}", 0.0) > 0), len(ks))


def per_char(base: int) -> int:
    """How many values below `base` (2 or more) one ALPHABET character holds."""
    if base < 2:
        raise ValueError(f"cannot pack values below {base}")
    count = 1
    while base ** (count + 1) <= len(ALPHABET):
        count += 1
    return count


def packed(values: list[int], base: int) -> str:
    """Values below `base` packed per_char(base) to an ALPHABET character, the first in the lowest digit."""
    step = per_char(base)
    chunks = (values[i : i + step] for i in range(0, len(values), step))
    return "".join(ALPHABET[sum(v * base**j for j, v in enumerate(chunk))] for chunk in chunks)


Cells = tuple[list[str], list[str | None], dict[str, list[int]]]  # query ids, their groups, first_found per row


def table_cells(table: Table) -> Cells:
    """Dense's scored query ids in order, their groups, and each comparable row's first_found per query."""
    ks = cutoffs(table)
    dense = next(e for e in table.rows if e.row == DENSE_ROW)
    ids = [r["query_id"] for r in dense.scores]
    cells = {}
    for entry in table.rows:
        by_id = {r["query_id"]: first_found(r, ks) for r in entry.scores}
        cells[entry.row] = [by_id[q] for q in ids]
    return ids, [r.get("group") for r in dense.scores], cells


def group_base(names: list[str]) -> int:
    """The base the groups are packed in: their count, at least 2."""
    return max(2, len(names))


def diff_data(table: Table, found_at: Cells) -> dict:
    """The page's data: queries (dense's scores order), their groups and each row's cells, packed (see SCRIPT)."""
    ks = cutoffs(table)
    ids, groups, cells = found_at
    names = sorted({g for g in groups if g is not None})
    if names and (len(names) > len(ALPHABET) or None in groups):
        names = []  # groups the page cannot pack: none shown
    bases = {len(ks) + 1, *([group_base(names)] if names else [])}
    return {
        "k": parse_metric(table.primary).k,
        "cutoffs": ks,
        "dense": DENSE_ROW,
        "queries": ids,
        "group_names": names,
        "groups": packed([names.index(g) for g in groups], group_base(names)) if names else "",
        "cells": {row: packed(values, len(ks) + 1) for row, values in cells.items()},
        "alphabet": ALPHABET,
        "per_char": {str(b): per_char(b) for b in sorted(bases)},
    }


def counts(table: Table, found_at: Cells, row: str, group: str | None) -> dict[str, int]:
    """Outcome counts of a row against dense at the primary cut-off, over all queries or one group's."""
    k, ks = parse_metric(table.primary).k, cutoffs(table)
    _, groups, cells = found_at
    out = dict.fromkeys(OUTCOMES, 0)
    for index, (before, after) in enumerate(zip(cells[DENSE_ROW], cells[row], strict=True)):
        if group is None or groups[index] == group:
            # the cut-off that found the gold bounds its rank; k is one of the cut-offs, so the outcome is exact
            bounds = [ks[c] if c < len(ks) else None for c in (before, after)]
            out[outcome(*bounds, k)] += 1
    return out


def summary_table(table: Table, found_at: Cells, entry: Entry, site: Path) -> str:
    """A row's counts against dense, overall and per group, with the table's test where it has one, and the
    command that gives its full page."""
    heads = ("group", "n", *OUTCOMES, f"{table.primary} difference", "p Holm")
    head = "".join(f"<th>{html_text(h)}</th>" for h in heads)
    groups = [None, *(g for g in table.groups if g != "overall")]
    lines = []
    for group in groups:
        found = counts(table, found_at, entry.row, group)
        versus = table.against_dense.get((entry.row, group or "overall"))
        tested = versus is not None and versus.difference is not None
        cells = [html_text(group or "overall"), str(sum(found.values())), *(str(found[o]) for o in OUTCOMES)]
        cells += [f"{versus.difference:+.3f}", f"{versus.p_holm:.4f}"] if tested else ["-", "-"]
        lines.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    return (
        f'<div class="summary" data-system="{html_attr(entry.row)}" hidden><table>'
        f"<caption>{html_text(entry.row)} against {DENSE_ROW}</caption><thead><tr>{head}</tr></thead>"
        f"<tbody>{''.join(lines)}</tbody></table>"
        f"<p>Its full page: <code>{html_text(full_command(table, entry, site))}</code></p></div>"
    )


def diff_page(table: Table, site: Path) -> str:
    """One table's compact diff page: every comparable row against dense (byte-identical for the same entries)."""
    found_at = table_cells(table)
    data = diff_data(table, found_at)
    others = [e for e in table.rows if e.row != DENSE_ROW]
    options = "".join(f'<option value="{html_attr(e.row)}">{html_text(e.row)}</option>' for e in others)
    buttons = "".join(
        f'<button type="button" data-outcome="{html_attr(v)}" aria-pressed="{str(v == "all").lower()}">'
        f"{html_text(v)}</button>"
        for v in ("all", *OUTCOMES)
    )
    groups = data["group_names"]
    group_pick = (
        '<label>group <select id="group"><option value="all">all</option>'
        + "".join(f'<option value="{html_attr(g)}">{html_text(g)}</option>' for g in groups)
        + "</select></label>"
        if groups
        else ""
    )
    ks = ", ".join(str(k) for k in data["cutoffs"])
    title = f"memrecall leaderboard diff: {table.title}, every row against {DENSE_ROW}"
    intro = (
        f"Each headline query ({len(data['queries'])}) with, for {DENSE_ROW} and the chosen row, the smallest "
        f"headline cut-off ({html_text(ks)}) at which it ranked a gold document; outcomes at "
        f"{html_text(table.primary)}, as <code>memrecall diff</code> counts them; rows ordered by the change. "
        "The difference and p<sub>Holm</sub> are the leaderboard's paired test against dense (sign flips, a "
        "store's queries together, Holm across the table's rows). This compact page holds only what the "
        "committed scores files hold (ids, groups, hits), no texts: for a row's full page, with each query's "
        "text, gold and top documents, run the command under its counts from the folder of index.html (add --output "
        "to write the page elsewhere than results/diff.html)."
    )
    return (
        page_head(title) + f"<p>{intro}</p>"
        f'<p><a href="../index.html#{html_attr(table.slug)}">back to the leaderboard</a></p>'
        f'<div class="bar"><label>row <select id="system">{options}</select></label>{group_pick}{buttons}</div>'
        + "".join(summary_table(table, found_at, e, site) for e in others)
        + '<p id="shown" class="muted"></p><table id="queries"><thead><tr><th>query</th>'
        + ("<th>group</th>" if groups else "")
        + f'<th class="num">{DENSE_ROW}: found within</th><th class="num"><span id="mine"></span>: found within</th>'
        '<th>outcome</th></tr></thead><tbody id="rows"></tbody></table>'
        f'<script type="application/json" id="diff-data">{script_json(data)}</script>'
        f"<script>{SCRIPT}</script></body></html>\n"
    )


def full_command(table: Table, entry: Entry, site: Path) -> str:
    """`memrecall diff DENSE_REPORT ROW_REPORT [--data DATA]`, the reports' paths relative to the site folder."""
    dense = next(e for e in table.rows if e.row == DENSE_ROW)
    data = "" if table.benchmark == "epirec" else " --data DATA"
    return f"memrecall diff {link(dense.report_path, site)} {link(entry.report_path, site)}{data}"
