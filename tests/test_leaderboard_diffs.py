"""The leaderboard links each comparable row to its diff against dense on its table: the link resolves, the page's
counts are those of the committed scores files, every string is escaped, and gzip scores read as plain ones."""

from __future__ import annotations

import gzip
import html
import json
import re
import shutil
from pathlib import Path
from urllib.parse import unquote

import pytest
from conftest import run
from leaderboard_helpers import DATA, build, swept_entries

from memrecall.io import deflated
from memrecall.reports.leaderboard.diffs import ALPHABET, per_char
from memrecall.reports.leaderboard.entries import read_entries
from memrecall.reports.leaderboard.tables import DENSE_ROW, build_tables
from memrecall.reports.query_scores import scores_beside

ROOT = Path(__file__).resolve().parents[1]
COMMITTED = ROOT / "site" / "leaderboard"
OUTCOMES = ("fixed", "broken", "both found", "both missed")


@pytest.fixture(scope="module")
def committed():
    return build_tables(read_entries(COMMITTED / "entries", {})), (COMMITTED / "index.html").read_text("utf-8")


def page_data(page: str) -> dict:
    """The inline JSON of a diff page."""
    return json.loads(re.search(r'<script type="application/json" id="diff-data">(.*?)</script>', page).group(1))


def unpacked(text: str, base: int, count: int) -> list[int]:
    """The page's packed values, unpacked as its script does."""
    per = per_char(base)
    return [ALPHABET.index(text[i // per]) // base ** (i % per) % base for i in range(count)]


def row_links(section: str) -> dict[str, list[str]]:
    """Each row's `diff` links in a table section of the index, by the row's data-system."""
    rows = re.findall(r'<tr data-system="([^"]*)"(.*?)</tr>', section, re.S)
    return {html.unescape(name): re.findall(r'<a class="diff" href="([^"]+)"', body) for name, body in rows}


@pytest.mark.slow
def test_every_comparable_row_links_to_its_diff_against_dense_on_its_table(committed):
    tables, index = committed
    with_dense = [t for t in tables if any(e.row == DENSE_ROW for e in t.rows)]
    assert len(with_dense) == len(tables)  # every committed table has a dense row
    for table in with_dense:
        section = index.split(f'<h2 id="{table.slug}">')[1].split("<h2")[0]
        main = section.split(f'id="{table.slug}-main"')[1].split("</table>")[0]
        links = row_links(main)
        assert sorted(links) == sorted(e.row for e in table.rows), table.slug
        for row, (target,) in links.items():
            path, _, fragment = html.unescape(target).partition("#")
            page = COMMITTED / path
            assert page.is_file() and path == f"diffs/{table.slug}.html", target
            data = page_data(page.read_text("utf-8"))
            if row == DENSE_ROW:
                assert fragment == "", target  # dense links to the page of every row against it
            else:
                assert unquote(fragment) == row and row in data["cells"], target
    diffs = sorted(p.name for p in (COMMITTED / "diffs").iterdir())
    assert diffs == sorted(f"{t.slug}.html" for t in with_dense)


def hits(path: Path, metric: str) -> dict[str, bool]:
    """query id -> whether the scores file's `metric` found a gold document, read here without memrecall."""
    rows = [json.loads(line) for line in gzip.decompress(path.read_bytes()).decode("utf-8").splitlines()]
    return {r["query_id"]: r["values"][metric] > 0 for r in rows}


@pytest.mark.parametrize("slug", ["epirec-3-0", "locomo-turn-turn"])
def test_a_diff_page_counts_what_the_scores_files_hold(committed, slug):
    tables, _ = committed
    table = next(t for t in tables if t.slug == slug)
    page = (COMMITTED / "diffs" / f"{slug}.html").read_text("utf-8")
    dense = next(e for e in table.rows if e.row == DENSE_ROW)
    before = hits(scores_beside(dense.report_path)[0], table.primary)
    data = page_data(page)
    assert data["queries"] == list(before)
    for entry in table.rows:
        if entry is dense:
            continue
        after = hits(scores_beside(entry.report_path)[0], table.primary)
        expected = {
            "fixed": sum(after[q] and not before[q] for q in before),
            "broken": sum(before[q] and not after[q] for q in before),
            "both found": sum(before[q] and after[q] for q in before),
            "both missed": sum(not before[q] and not after[q] for q in before),
        }
        summary = page.split(f'<div class="summary" data-system="{entry.row}" hidden>')[1].split("</div>")[0]
        overall = re.search(r"<tr><td>overall</td><td>(\d+)</td>" + r"<td>(\d+)</td>" * 4, summary).groups()
        assert [int(n) for n in overall] == [len(before), *(expected[o] for o in OUTCOMES)], entry.row
        cutoffs, base = data["cutoffs"], len(data["cutoffs"]) + 1
        found = unpacked(data["cells"][entry.row], base, len(before))
        k = int(table.primary.split("@")[1])
        assert [c < len(cutoffs) and cutoffs[c] <= k for c in found] == list(after.values()), entry.row


@pytest.fixture(scope="module")
def board(tmp_path_factory):
    folder = tmp_path_factory.mktemp("diff-board")
    return swept_entries(folder)


def as_row(entries: Path, system: str, name: str, stem: str) -> None:
    """Rename a system's files to `stem` and its report's entry to `name` in every benchmark folder (its fingerprint
    no longer holds, so the row is UNVERIFIED but still listed)."""
    for folder in (f for f in entries.iterdir() if f.is_dir()):
        for kind in ("report.json", "rankings.jsonl", "scores.jsonl"):
            (folder / f"{system}.{kind}").rename(folder / f"{stem}.{kind}")
        path = folder / f"{stem}.report.json"
        report = json.loads(path.read_text())
        report["content"]["systems"][name] = report["content"]["systems"].pop(system)
        report["content"]["system_order"] = [name]
        path.write_text(json.dumps(report))


EVIL = "<img src=x onerror=alert(1)>&\"'</script>"


@pytest.mark.slow
def test_diff_pages_escape_every_string_and_rebuild_byte_for_byte(board, tmp_path):
    entries = tmp_path / "entries"
    shutil.copytree(board, entries)
    as_row(entries, "fts5", DENSE_ROW, DENSE_ROW)
    as_row(entries, "hashing", EVIL, "evil")
    files = build(entries, tmp_path / "site")
    assert sorted(n for n in files if n.startswith("diffs/")) == ["diffs/epirec-test.html", "diffs/locomo-session.html"]
    for name in ("diffs/epirec-test.html", "diffs/locomo-session.html"):
        page = files[name].decode()
        assert "<img src=x" not in page and "</script>'" not in page and page.count("</script>") == 2
        assert "&lt;img src=x onerror=alert(1)&gt;&amp;&quot;&#x27;&lt;/script&gt;" in page
        assert EVIL in page_data(page)["cells"]  # the inline JSON holds the name, its < > & escaped
    index = files["index.html"].decode()
    assert 'href="diffs/epirec-test.html#%3Cimg%20src%3Dx%20onerror%3Dalert%281%29%3E%26%22%27%3C%2Fscript%3E"' in index
    assert build(entries, tmp_path / "again") == files


def test_gzip_scores_files_build_the_same_site_as_plain_ones(board, tmp_path):
    plain, packed = tmp_path / "plain" / "entries", tmp_path / "packed" / "entries"  # pages link to entries/
    shutil.copytree(board, plain)
    shutil.copytree(board, packed)
    for path in sorted(packed.rglob("*.scores.jsonl")):
        path.with_name(path.name + ".gz").write_bytes(deflated(path.read_bytes()))
        path.unlink()
    assert list(packed.rglob("*.scores.jsonl.gz")) and not list(packed.rglob("*.scores.jsonl"))
    assert build(packed, packed.parent) == build(plain, plain.parent)


def test_a_report_with_both_a_plain_and_a_gzip_scores_file_is_refused_naming_both(board, tmp_path):
    entries = tmp_path / "entries"
    shutil.copytree(board, entries)
    path = entries / "locomo" / "fts5.scores.jsonl"
    path.with_name(path.name + ".gz").write_bytes(deflated(path.read_bytes()))
    result = run("leaderboard", entries, "--out", tmp_path / "site", *DATA)
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert "two scores files beside it (fts5.scores.jsonl.gz, fts5.scores.jsonl); keep one" in result.output
    assert not (tmp_path / "site").exists()
