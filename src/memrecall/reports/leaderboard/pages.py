"""The leaderboard's pages as HTML: the shared page frame, links, state badges, and a page per row (the site's
cards/ folder; not a report card, which reports/cards/card.py writes)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from memrecall.data.official import official_note
from memrecall.encoding.vector_cache import cache_check_text
from memrecall.reports.escape import html_attr, html_text
from memrecall.reports.leaderboard.assets import BASE_CSS, INDEX_CSS, JS
from memrecall.reports.leaderboard.encoders import NO_ENCODER
from memrecall.reports.leaderboard.entries import Entry
from memrecall.reports.leaderboard.tables import Table, slug
from memrecall.reports.notes import depth_note, trivial_text
from memrecall.reports.proof.fingerprint import report_fingerprint
from memrecall.reports.proof.identity import describe_identity


def link(target: Path, site: Path, depth: int = 0) -> str:
    """A relative POSIX link from a page `depth` folders below the site root to `target`."""
    relative = os.path.relpath(Path(target).resolve(), Path(site).resolve())
    return "../" * depth + Path(relative).as_posix()


def row_page_path(table: Table, entry: Entry) -> str:
    """Where a row's page goes inside the site (cards/TABLE/ROW.html)."""
    return f"cards/{table.slug}/{slug(entry.row)}.html"


def page(title: str, body: list[str], *, sortable: bool = True) -> str:
    """A whole HTML document with our CSS inline: the index's CSS and JavaScript (sortable tables, the encoder
    filter, details cells) when the page has the tables they act on, else only the base every page uses."""
    head = f'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>{html_text(title)}</title>\n'
    css, script = (INDEX_CSS, f"\n<script>{JS}</script>") if sortable else (BASE_CSS, "")
    return head + f"<style>{css}</style>\n</head>\n<body>\n" + "\n".join(body) + f"{script}\n</body>\n</html>\n"


def badge(state: str) -> str:
    """The state badge of a row."""
    kind = slug(state.split()[0]) if state else "unverified"
    return f'<span class="badge {html_attr(kind)}">{html_text(state)}</span>'


CODE_BADGES = {
    "own code": "memrecall's own",
    "sandbox": "sandboxed",
    "process": "isolated, unsandboxed",
    "rankings file": "rankings file",
}


def code_badge(entry: Entry) -> str:
    """The badge that says where the code behind a row's rankings ran (from signed content)."""
    text = CODE_BADGES.get(entry.isolation, entry.isolation)
    return f'<span class="badge code">{html_text(text)}</span>'


def encoder_fact(entry: Entry) -> str:
    """The encoder line of a card: the signed identity in full, or where the name came from."""
    encoder = entry.encoder
    claim = entry.content["comparability"].get("encoder")
    if encoder.signed:
        check = cache_check_text(entry.content["systems"][entry.system].get("encoder"))
        return f"{encoder.name}: {json.dumps(claim, sort_keys=True)} (signed); {check}"
    return f"{encoder.name} (its config, unsigned)" if encoder.name != NO_ENCODER else "none"


def row_page(table: Table, entry: Entry, site: Path) -> str:
    """A row's page: state and checks, every metric by group, cost, config, provenance, links."""
    content, depth = entry.content, 2
    metrics = content["scoring"]["metrics"]
    stratum = content.get("primary_stratum")
    body = [
        f"<h1>{html_text(entry.system)} ({html_text(entry.encoder.name)}) on {html_text(table.title)}</h1>",
        f"<p>{badge(entry.state)} {code_badge(entry)}</p>",
        "<ul>",
    ]
    body += [
        f"<li>{'ok' if c.ok else 'FAILED'}: {html_text(c.name)} ({html_text(c.detail)})</li>" for c in entry.checks
    ]
    body += ["</ul>", "<h2>Results (95 % CI)</h2>", '<div class="wide"><table><thead><tr><th>group</th><th>n</th>']
    body += [f"<th>{html_text(m)}</th>" for m in metrics] + ["</tr></thead><tbody>"]
    groups = [("overall", entry.results.get("overall") or {})]
    groups += sorted((entry.results.get(f"by_{stratum}") or {}).items()) if stratum else []
    for name, row in groups:
        cells = [f"<td>{html_text(name)}</td>", f'<td class="num">{html_text(row.get("n", "-"))}</td>']
        for metric in metrics:
            value = row.get(metric)
            trivial = trivial_text(value, row.get("n"))
            shown = f" ({html_text(trivial)})" if trivial else ""
            cells.append(
                f'<td class="num">{value["value"]:.3f} [{value["ci_low"]:.2f}, {value["ci_high"]:.2f}]{shown}</td>'
                if value
                else '<td class="num">-</td>'
            )
        body.append("<tr>" + "".join(cells) + "</tr>")
    body += ["</tbody></table></div>", "<h2>Cost (unsigned env)</h2>"]
    body.append(f"<pre>{html_text(json.dumps(entry.cost, indent=2, sort_keys=True))}</pre>")
    body += [
        '<h2 id="config">Config (unsigned env)</h2>',
        f"<pre>{html_text(json.dumps(entry.config, indent=2, sort_keys=True))}</pre>",
    ]
    task = content["task"]
    notes = (("data", official_note(content.get("data"))), ("scoring depth", depth_note(content)))
    facts = [
        (
            "task",
            f"{task['name']} {task['version']}: {task['stores']} stores, {task['documents']} documents, "
            f"{task['queries']} queries",
        ),
        ("data sha256", task["source_sha256"]),
        *((label, note) for label, note in notes if note),
        ("encoder", encoder_fact(entry)),
        ("rankings sha256", content["systems"][entry.system]["rankings_sha256"]),
        ("report fingerprint (content sha256)", report_fingerprint(entry.report) or ""),
        ("code", describe_identity(content, entry.system)),
        ("memrecall version", content.get("memrecall_version", "")),
    ]
    body += ["<h2>Provenance</h2>", '<div class="wide"><table><tbody>']
    body += [f"<tr><th>{html_text(k)}</th><td><code>{html_text(v)}</code></td></tr>" for k, v in facts]
    body += ["</tbody></table></div>", "<p>"]
    body.append(
        f'<a href="{html_attr(link(entry.report_path, site, depth))}">report</a> &middot; '
        f'<a href="{html_attr(link(entry.rankings_path, site, depth))}">rankings</a> &middot; '
        f'<a href="../../index.html#{html_attr(table.slug)}">back to the leaderboard</a></p>'
    )
    return page(f"{entry.system}: {table.title}", body, sortable=False)  # a row page has no sortable table
