"""The leaderboard page's own CSS and JavaScript (no CDN, nothing fetched: it works from file://)."""

BASE_CSS = """
body { font: 14px/1.45 system-ui, sans-serif; margin: 1.5em auto; max-width: 96em; padding: 0 1em; color: #1d1d1d; }
h1 { font-size: 1.6em; } h2 { margin-top: 2em; border-bottom: 1px solid #ccc; } h3 { font-size: 1.05em; }
table { border-collapse: collapse; margin: .6em 0 1.2em; font-size: 13px; }
th, td { border: 1px solid #d4d4d4; padding: .3em .4em; text-align: left; vertical-align: top; }
td.num { text-align: right; white-space: nowrap; font-variant-numeric: tabular-nums; }
.ci { color: #666; display: block; font-size: 11px; } .vs { display: block; font-size: 11px; color: #555; }
.badge { display: inline-block; padding: 0 .45em; border-radius: .6em; font-size: 11px; white-space: nowrap; }
.badge.replayed { background: #d8f0dc; color: #0b5a24; } .badge.signed { background: #dbe7fb; color: #123f85; }
.badge.fingerprint { background: #ececec; color: #444; } .badge.unverified { background: #fbd9d6; color: #8a1410; }
.badge.code { background: #f3ecdc; color: #5a4410; }
pre, code { background: #f6f6f6; font-size: 12px; } pre { padding: .6em; overflow-x: auto; }
.wide { overflow-x: auto; max-width: 100%; }
.note { color: #555; font-size: 12px; max-width: 60em; }
th { background: #f2f2f2; }
"""
"""What every page uses: the layout, tables, numbers, badges, code and notes (a row page needs no more)."""

INDEX_CSS = (
    BASE_CSS
    + """
th { cursor: pointer; user-select: none; }
th[aria-sort="descending"]::after { content: " \\25BC"; } th[aria-sort="ascending"]::after { content: " \\25B2"; }
.vs.best { color: #0b6b2f; font-weight: 600; } .vs.separable { color: #9a3b00; }
.trivial { display: block; font-size: 11px; color: #8a5a00; } .trivial.all { font-weight: 600; }
img.figure { max-width: 100%; border: 1px solid #e2e2e2; }
.filter { font-size: 12px; margin: .4em 0 0; } .filter label { margin-right: 1em; white-space: nowrap; }
th .caption { display: block; font-weight: 600; color: #7a2d6b; font-size: 12px; }
.answer { font-size: 15px; max-width: 60em; background: #f4f0f7; border-left: 4px solid #7a2d6b; padding: .5em .8em; }
td.details { font-size: 12px; } td.details summary { cursor: pointer; color: #123f85; }
td.details b { display: block; margin-top: .4em; } td.details span { display: block; }
td.details details[open] { min-width: 22em; }
td.details span.links { margin-top: .4em; }
"""
)
"""The index adds sortable headings, the tests under each value, the encoder filter and the details cells."""

JS = """
(function () {
  function key(cell) {
    var text = cell.getAttribute('data-sort');
    if (text === null) { text = cell.textContent.trim(); }
    if (text === '') { return null; }
    var number = Number(text);
    return isNaN(number) ? text.toLowerCase() : number;
  }
  function compare(x, y) {
    if (typeof x === 'number' && typeof y === 'number') { return x - y; }
    return String(x) < String(y) ? -1 : (String(x) > String(y) ? 1 : 0);
  }
  document.querySelectorAll('table.sortable').forEach(function (table) {
    var headers = table.tHead.rows[0].cells;
    Array.prototype.forEach.call(headers, function (th, index) {
      th.addEventListener('click', function () {
        var down = th.getAttribute('aria-sort') !== 'descending';
        Array.prototype.forEach.call(headers, function (h) { h.removeAttribute('aria-sort'); });
        th.setAttribute('aria-sort', down ? 'descending' : 'ascending');
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) {
          var x = key(a.cells[index]), y = key(b.cells[index]);
          if (x === null || y === null) { return (x === null) - (y === null); }
          return down ? compare(y, x) : compare(x, y);
        });
        rows.forEach(function (row) { body.appendChild(row); });
      });
    });
  });
  document.querySelectorAll('p.filter').forEach(function (filter) {
    var table = document.getElementById(filter.getAttribute('data-table'));
    var boxes = filter.querySelectorAll('input');
    function apply() {
      var shown = {};
      boxes.forEach(function (box) { shown[box.value] = box.checked; });
      Array.prototype.forEach.call(table.tBodies[0].rows, function (row) {
        row.hidden = !shown[row.getAttribute('data-encoder')];
      });
    }
    boxes.forEach(function (box) { box.addEventListener('change', apply); });
  });
})();
"""
