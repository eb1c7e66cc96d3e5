"""The diff page: one self-contained HTML file (no network), its data inline, every data string escaped.

Figures at the top are written here through reports.escape; the per-query rows are drawn by the page's own
script from inline JSON, with textContent only, so no data string is ever parsed as HTML.
"""

from __future__ import annotations

import json

from memrecall.reports.diff.content import OUTCOMES
from memrecall.reports.escape import html_attr, html_text
from memrecall.scoring.paired import format_p

_SCRIPT_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}

STYLE = """
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#1b1b1b}
h1{font-size:1.3em}table{border-collapse:collapse;margin:.5em 0}
td,th{border-bottom:1px solid #ddd;padding:.2em .6em;text-align:left;vertical-align:top}
th{background:#f4f4f4}.num{text-align:right;font-variant-numeric:tabular-nums}
.bar{margin:.8em 0;display:flex;flex-wrap:wrap;gap:.4em;align-items:center}
.bar button{border:1px solid #999;background:#fff;padding:.2em .7em;border-radius:3px;cursor:pointer}
.bar button[aria-pressed=true]{background:#1b1b1b;color:#fff}
#rows tr.q{cursor:pointer}#rows tr.q:hover{background:#f7f7ff}
.fixed{color:#17663a}.broken{color:#a3161b}.gold{background:#fff3b0}
.detail td{background:#fafafa}.detail ol{margin:.2em 0 .6em 1.2em;padding:0}
.more{border:0;background:none;color:#2447a8;cursor:pointer;padding:0 .3em}
.muted{color:#666}
"""

SCRIPT = """
(function () {
  const data = JSON.parse(document.getElementById('diff-data').textContent);
  const CLIP = 280, systems = data.systems.length;
  let comparison = 0, outcome = 'all';
  const strata = {};
  const body = document.getElementById('rows'), shown = document.getElementById('shown');
  function el(tag, text, cls) {
    const e = document.createElement(tag);
    if (text !== undefined) e.textContent = text;
    if (cls) e.className = cls;
    return e;
  }
  function clipped(text) {
    const s = el('span');
    if (text.length <= CLIP) { s.textContent = text; return s; }
    s.textContent = text.slice(0, CLIP) + '\\u2026';
    const more = el('button', 'more', 'more'), wrap = el('span');
    more.onclick = function (ev) { ev.stopPropagation(); s.textContent = text; more.remove(); };
    wrap.append(s, more);
    return wrap;
  }
  function doc(store, id) {
    const text = (data.documents[store] || {})[id];
    return text === undefined ? '' : text;
  }
  function docList(q, ids) {
    const list = el('ol');
    ids.forEach(function (id) {
      const li = el('li', undefined, q.gold.indexOf(id) >= 0 ? 'gold' : '');
      li.append(el('code', id), ' ', clipped(doc(q.store, id)));
      list.append(li);
    });
    return list;
  }
  function detail(q) {
    const tr = el('tr', undefined, 'detail'), td = el('td');
    td.colSpan = 5 + systems;
    td.append(el('div', 'time: ' + (q.time || 'none') + ' \\u00b7 store: ' + q.store, 'muted'));
    td.append(el('strong', 'gold'), docList(q, q.gold));
    data.systems.forEach(function (s, i) {
      const at = q.ranks[i] === null ? 'gold not in its ranking' : 'gold at rank ' + q.ranks[i];
      td.append(el('strong', s.name + ': ' + at), docList(q, q.top[i]));
    });
    tr.append(td);
    return tr;
  }
  const rows = data.queries.map(function (q) {
    const tr = el('tr', undefined, 'q'), text = el('td');
    text.append(clipped(q.text));
    const stratum = Object.keys(q.strata).map(function (k) { return q.strata[k]; }).join(' / ');
    tr.append(el('td', q.id), text, el('td', stratum));
    q.ranks.forEach(function (r) { tr.append(el('td', r === null ? '\\u2013' : String(r), 'num')); });
    tr.append(el('td', '', 'num'), el('td'));
    let open = null;
    function close() { if (open) { open.remove(); open = null; } }
    tr.onclick = function () { if (open) close(); else { open = detail(q); tr.after(open); } };
    return {q: q, tr: tr, close: close};
  });
  rows.forEach(function (r) { body.append(r.tr); });
  function apply() {
    let n = 0;
    rows.forEach(function (r) {
      const q = r.q, change = q.changes[comparison], o = q.outcomes[comparison];
      r.tr.children[3 + systems].textContent = (change > 0 ? '+' : '') + change;
      const cell = r.tr.children[4 + systems];
      cell.textContent = o;
      cell.className = o === 'fixed' || o === 'broken' ? o : '';
      let ok = outcome === 'all' || o === outcome;
      for (const k in strata) if (strata[k] !== 'all' && q.strata[k] !== strata[k]) ok = false;
      r.tr.hidden = !ok;
      if (ok) n++; else r.close();
    });
    shown.textContent = n + ' of ' + rows.length + ' queries shown';
    document.querySelectorAll('.summary').forEach(function (t, i) { t.hidden = i !== comparison; });
  }
  const buttons = document.querySelectorAll('[data-outcome]');
  buttons.forEach(function (b) {
    b.onclick = function () {
      outcome = b.dataset.outcome;
      buttons.forEach(function (o) { o.setAttribute('aria-pressed', String(o === b)); });
      apply();
    };
  });
  document.querySelectorAll('select[data-stratum]').forEach(function (s) {
    strata[s.dataset.stratum] = 'all';
    s.onchange = function () { strata[s.dataset.stratum] = s.value; apply(); };
  });
  const pick = document.getElementById('comparison');
  if (pick) pick.onchange = function () { comparison = Number(pick.value); apply(); };
  apply();
  document.body.dataset.ready = 'true';
})();
"""


def page_head(title: str) -> str:
    """A diff page's head (no network: inline style and script only, by its Content-Security-Policy) and its h1."""
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "style-src 'unsafe-inline'; script-src 'unsafe-inline'\">"
        f"<title>{html_text(title)}</title><style>{STYLE}</style></head><body><h1>{html_text(title)}</h1>"
    )


def script_json(value: object) -> str:
    """JSON safe inside a <script> element: no `<`, `>` or `&` (so no `</script>`), no JS line separators."""
    text = json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return "".join(_SCRIPT_ESCAPES.get(c, c) for c in text)


def _signed(value: float) -> str:
    """A difference with its sign, three decimals."""
    return f"{value:+.3f}"


def summary_table(comparison: dict, index: int) -> str:
    """The counts and paired test of one comparison, overall and per stratum, as an HTML table."""
    head = "".join(f"<th>{html_text(h)}</th>" for h in ("stratum", "n", *OUTCOMES, "difference", "95% CI", "p"))
    lines = []
    for group in comparison["groups"]:
        label = "overall" if group["stratum"] is None else f"{group['stratum'][0]} = {group['stratum'][1]}"
        cells = [html_text(label), str(group["n"]), *(str(group["counts"][o]) for o in OUTCOMES)]
        cells += [_signed(group["difference"]), f"[{_signed(group['ci_low'])}, {_signed(group['ci_high'])}]"]
        cells += [html_text(format_p(group["p_value"]))]
        row = "".join(f'<td class="num">{c}</td>' if i else f"<td>{c}</td>" for i, c in enumerate(cells))
        lines.append(f"<tr>{row}</tr>")
    title = f"{comparison['system']} against {comparison['against']}"
    hidden = " hidden" if index else ""
    return (
        f'<table class="summary" data-comparison="{index}"{hidden}><caption>{html_text(title)}</caption>'
        f"<thead><tr>{head}</tr></thead><tbody>{''.join(lines)}</tbody></table>"
    )


def _filters(content: dict) -> str:
    """The comparison picker (three or more systems), the outcome buttons and one select per stratum."""
    parts = []
    if len(content["comparisons"]) > 1:
        options = "".join(
            f'<option value="{i}">{html_text(c["system"])} against {html_text(c["against"])}</option>'
            for i, c in enumerate(content["comparisons"])
        )
        parts.append(f'<label>comparison <select id="comparison">{options}</select></label>')
    buttons = [("all", "all")] + [(o, o) for o in OUTCOMES]
    parts.append(
        "".join(
            f'<button type="button" data-outcome="{html_attr(v)}" aria-pressed="{str(v == "all").lower()}">'
            f"{html_text(label)}</button>"
            for v, label in buttons
        )
    )
    for key in content["strata_keys"]:
        values = sorted({q["strata"][key] for q in content["queries"] if key in q["strata"]})
        options = '<option value="all">all</option>' + "".join(
            f'<option value="{html_attr(v)}">{html_text(v)}</option>' for v in values
        )
        parts.append(f'<label>{html_text(key)} <select data-stratum="{html_attr(key)}">{options}</select></label>')
    return '<div class="bar">' + "".join(parts) + "</div>"


def diff_page(content: dict) -> str:
    """The whole page as one HTML string (byte-identical for the same content)."""
    names = [s["name"] for s in content["systems"]]
    task = content["task"]
    title = f"memrecall diff: {' vs '.join(names)} on {content['benchmark']}"
    rank_heads = "".join(f'<th class="num">rank: {html_text(n)}</th>' for n in names)
    meta = (
        f"{html_text(task['name'])} {html_text(task['version'])}, data sha256 "
        f"<code>{html_text(str(task['source_sha256'])[:16])}</code>; outcomes at {html_text(content['metric'])} "
        f"(the gold's first rank within {content['k']}); {len(content['queries'])} headline queries; change is the "
        f"gold's rank in the second system minus the first, a gold not ranked counting as rank {content['unranked']}"
    )
    tables = "".join(summary_table(c, i) for i, c in enumerate(content["comparisons"]))
    return (
        page_head(title) + f"<p>{meta}</p>{tables}{_filters(content)}"
        '<p id="shown" class="muted"></p><table id="queries"><thead><tr><th>query</th><th>text</th><th>stratum</th>'
        f'{rank_heads}<th class="num">change</th><th>outcome</th></tr></thead><tbody id="rows"></tbody></table>'
        f'<script type="application/json" id="diff-data">{script_json(content)}</script>'
        f"<script>{SCRIPT}</script></body></html>\n"
    )
