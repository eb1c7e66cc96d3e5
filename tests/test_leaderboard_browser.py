"""The leaderboard page in a real headless Chromium (Playwright driving Debian's chromium), from file://.

Needs `apt-get install chromium` and `pip install playwright`; without them the test is skipped with that
message, unless MEMRECALL_REQUIRE_BROWSER=1 (as .ci/run sets), when it fails instead.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from urllib.parse import unquote, urlparse

import numpy as np
import pytest
from leaderboard_helpers import DATA, build, mixed_encoder_entries, swept_entries

from memrecall.reports.leaderboard.encoder_overview import encoder_names
from memrecall.reports.leaderboard.entries import load_data, read_entries
from memrecall.reports.leaderboard.tables import build_tables

pytestmark = [pytest.mark.browser, pytest.mark.slow]
ROOT = Path(__file__).resolve().parents[1]
COMMITTED = ROOT / "site" / "leaderboard"
CHROMIUM = os.environ.get("MEMRECALL_CHROMIUM", "/usr/bin/chromium")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def browser_or_skip():
    """Playwright's sync API and the system Chromium, or a skip (a failure when MEMRECALL_REQUIRE_BROWSER=1)."""
    missing = None
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        missing = "playwright is not installed (pip install playwright)"
    if missing is None and not Path(CHROMIUM).is_file():
        missing = f"no Chromium at {CHROMIUM} (apt-get install chromium, or set MEMRECALL_CHROMIUM)"
    if missing:
        if os.environ.get("MEMRECALL_REQUIRE_BROWSER") == "1":
            pytest.fail(missing)
        pytest.skip(missing)
    return sync_playwright


@pytest.fixture(scope="module")
def browser():
    sync_playwright = browser_or_skip()
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield chromium
        chromium.close()


@pytest.fixture(scope="module")
def small_site(tmp_path_factory):
    folder = tmp_path_factory.mktemp("browser-board")
    entries = swept_entries(folder)
    build(entries, folder, *DATA)
    return folder, entries


@pytest.fixture(scope="module")
def encoder_site(tmp_path_factory, fetched):  # fetched (conftest): potion-8m is in the models folder
    folder = tmp_path_factory.mktemp("browser-encoders")
    entries = mixed_encoder_entries(folder)
    build(entries, folder, *DATA)
    return folder, entries


def expected_rows(entries: Path) -> dict[str, list[str]]:
    """Table id -> the row keys it must list, from the entries themselves."""
    out = {}
    for table in build_tables(read_entries(entries, load_data({}))):
        out[f"{table.slug}-main"] = sorted(e.row for e in table.rows)
        if table.oracle:
            out[f"{table.slug}-oracle"] = sorted(e.row for e in table.oracle)
        if table.apart:
            out[f"{table.slug}-apart"] = sorted(e.row for e, _ in table.apart)
    return out


def check_filters(page, entries: Path) -> None:
    """Each encoder filter: unticking one encoder hides exactly its rows; ticking it again shows every row."""
    encoders = {e.row: e.encoder.name for t in build_tables(read_entries(entries, load_data({}))) for e in t.rows}
    for filter_id in page.eval_on_selector_all("p.filter", "ps => ps.map(p => p.dataset.table)"):
        rows = f"#{filter_id} tbody tr"
        for name in page.eval_on_selector_all(
            f'p.filter[data-table="{filter_id}"] input', "bs => bs.map(b => b.value)"
        ):
            box = f'p.filter[data-table="{filter_id}"] input[value="{name}"]'
            page.uncheck(box)
            shown = page.eval_on_selector_all(rows, "rs => rs.filter(r => !r.hidden).map(r => r.dataset.system)")
            every = page.eval_on_selector_all(rows, "rs => rs.map(r => r.dataset.system)")
            assert sorted(shown) == sorted(r for r in every if encoders[r] != name), (filter_id, name)
            page.check(box)
            assert page.eval_on_selector_all(rows, "rs => rs.filter(r => r.hidden).length") == 0


def check_page(browser, site: Path, entries: Path, screenshot: Path) -> None:
    """Every check of the issue, on one built site."""
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    problems: list[str] = []
    page.on("console", lambda message: problems.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.goto((site / "index.html").as_uri())
    page.wait_for_load_state("load")

    tables = page.eval_on_selector_all("table.sortable", "ts => ts.map(t => t.id)")
    names = encoder_names(build_tables(read_entries(entries, load_data({}))))
    if len(names) > 1:
        tables.remove("encoders-overview")
        shown = page.eval_on_selector_all("#encoders-overview tbody tr", "rows => rows.map(r => r.dataset.encoder)")
        assert shown == names
    assert sorted(tables) == sorted(expected_rows(entries))
    for table_id, systems in expected_rows(entries).items():
        shown = page.eval_on_selector_all(f"#{table_id} tbody tr", "rows => rows.map(r => r.dataset.system)")
        assert sorted(shown) == systems, table_id

    main = next(t for t in tables if t.endswith("-main"))
    names = f"#{main} tbody tr"
    before = page.eval_on_selector_all(names, "rows => rows.map(r => r.dataset.system)")
    page.click(f"#{main} thead th:nth-child(2)")
    descending = page.eval_on_selector_all(names, "rows => rows.map(r => r.dataset.system)")
    assert descending == sorted(before, reverse=True)
    page.click(f"#{main} thead th:nth-child(2)")
    ascending = page.eval_on_selector_all(names, "rows => rows.map(r => r.dataset.system)")
    assert ascending == sorted(before) and ascending != descending
    page.click(f"#{main} thead th:nth-child(5)")  # the first metric (after #, system, encoder, state)
    values = page.eval_on_selector_all(f"{names} td:nth-child(5)", "cells => cells.map(c => Number(c.dataset.sort))")
    assert values == sorted(values, reverse=True)
    page.click(f"#{main} thead th:nth-child(1)")
    page.click(f"#{main} thead th:nth-child(1)")
    numbered = page.eval_on_selector_all(names, "rows => rows.map(r => r.dataset.system)")
    assert numbered == before  # ascending on "#" restores the page's best-first order
    check_filters(page, entries)

    pages = [site / "index.html", *sorted((site / "cards").rglob("*.html"))[:3]]
    for html_page in pages:
        page.goto(html_page.as_uri())
        targets = page.eval_on_selector_all("a[href], img[src]", "es => es.map(e => e.href || e.src)")
        assert targets, html_page
        for target in targets:
            url = urlparse(target)
            assert url.scheme == "file", target
            assert Path(unquote(url.path)).is_file(), (html_page, target)
        if html_page.parent != site:  # a row page: its tables scroll in their own box, the page does not
            page.set_viewport_size({"width": 700, "height": 1000})
            assert page.evaluate("document.documentElement.scrollWidth") <= 700, html_page
            page.set_viewport_size({"width": 1400, "height": 1000})

    page.goto((site / "index.html").as_uri())
    for table_id in (t for t in tables if t.endswith("-main")):  # the column rows are ranked by, without scrolling
        edge = page.eval_on_selector(f"#{table_id} thead th:nth-child(5)", "th => th.getBoundingClientRect().right")
        assert edge <= 1400, (table_id, edge)
    page.screenshot(path=str(screenshot), full_page=False)
    from PIL import Image

    pixels = np.asarray(Image.open(screenshot).convert("L"), dtype=np.float64)
    assert pixels.shape == (1000, 1400)
    assert pixels.std() > 20 and (pixels < 200).mean() > 0.02
    assert problems == []
    page.close()


def test_the_small_site_works_in_chromium(browser, small_site, tmp_path):
    site, entries = small_site
    check_page(browser, site, entries, tmp_path / "small.png")


def test_a_site_with_two_encoders_filters_its_rows_in_chromium(browser, encoder_site, tmp_path):
    site, entries = encoder_site
    page = browser.new_page()
    page.goto((site / "index.html").as_uri())
    assert page.eval_on_selector_all("p.filter", "ps => ps.length") == 1  # the check below is not vacuous
    page.close()
    check_page(browser, site, entries, tmp_path / "encoders.png")


def test_the_committed_leaderboard_works_in_chromium(browser, tmp_path):
    assert (COMMITTED / "index.html").is_file(), "site/leaderboard/index.html is missing"
    check_page(browser, COMMITTED, COMMITTED / "entries", tmp_path / "committed.png")
    shutil.copy(tmp_path / "committed.png", Path(os.environ.get("MEMRECALL_SCREENSHOT", tmp_path / "copy.png")))


def test_a_row_s_diff_link_opens_its_diff_against_dense_and_the_filters_count_in_chromium(browser):
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    problems: list[str] = []
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.goto((COMMITTED / "index.html").as_uri())
    row = '#epirec-3-0-main tr[data-system="hybrid"]'
    page.click(f"{row} details summary")
    page.click(f"{row} a.diff")
    page.wait_for_selector("body[data-ready=true]")
    assert page.url.endswith("/diffs/epirec-3-0.html#hybrid")
    assert page.eval_on_selector("#system", "s => s.value") == "hybrid"
    summary = 'div.summary[data-system="hybrid"]'
    assert page.eval_on_selector(summary, "d => d.hidden") is False
    assert page.eval_on_selector_all("div.summary", "ds => ds.filter(d => !d.hidden).length") == 1
    heads = page.eval_on_selector_all(f"{summary} thead th", "hs => hs.map(h => h.textContent)")
    overall = page.eval_on_selector_all(f"{summary} tbody tr:first-child td", "cs => cs.map(c => c.textContent)")
    counts = dict(zip(heads, overall, strict=True))
    assert int(page.text_content("#shown").split(" of ")[0]) == int(counts["n"]) == 2016
    for outcome in ("fixed", "broken", "both found", "both missed"):
        page.click(f'[data-outcome="{outcome}"]')
        shown = page.eval_on_selector_all("#rows tr", "rs => rs.map(r => r.lastChild.textContent)")
        assert len(shown) == int(counts[outcome]) and set(shown) <= {outcome}, outcome
    page.click('[data-outcome="all"]')
    page.select_option("#group", "factual")
    groups = page.eval_on_selector_all("#rows tr", "rs => rs.map(r => r.children[1].textContent)")
    assert len(groups) == 672 and set(groups) == {"factual"}
    page.select_option("#system", "fts5")
    assert page.url.endswith("#fts5")
    assert page.eval_on_selector('div.summary[data-system="fts5"]', "d => d.hidden") is False
    assert problems == []
    page.close()
