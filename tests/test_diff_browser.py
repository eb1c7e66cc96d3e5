"""The diff page in a real headless Chromium (Playwright driving Debian's chromium), from file://."""

from __future__ import annotations

import pytest
from conftest import run
from diff_helpers import HOSTILE, hostile_data, make_run, outcome_counts
from test_leaderboard_browser import browser  # noqa: F401 - the one Chromium fixture, launched as there

from memrecall.reports.diff.content import OUTCOMES

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def diffed(tmp_path_factory):
    """A diff page of hashing against recency on a mini EpiRec whose first query and episode carry HTML."""
    folder = tmp_path_factory.mktemp("diff-browser")
    data = hostile_data(folder)
    reports = [make_run(folder, name, data) for name in ("hashing", "recency")]
    page = folder / "diff.html"
    result = run("diff", *reports, "--data", data, "--output", page)
    assert result.exit_code == 0, result.output
    counts = outcome_counts(folder / "hashing.pq.jsonl", folder / "recency.pq.jsonl", 3)
    return page, counts


def opened(browser, path):  # noqa: F811
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    problems: list[str] = []
    page.on("console", lambda message: problems.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.on("dialog", lambda dialog: problems.append(f"dialog: {dialog.message}"))
    page.goto(path.as_uri())
    page.wait_for_selector("body[data-ready=true]")
    return page, problems


def visible_rows(page) -> int:
    return page.eval_on_selector_all("#rows tr.q", "rs => rs.filter(r => !r.hidden).length")


def test_the_page_loads_and_its_counts_are_the_per_query_files(browser, diffed):  # noqa: F811
    path, counts = diffed
    page, problems = opened(browser, path)
    assert page.inner_text("#shown") == "24 of 24 queries shown"
    overall = page.eval_on_selector("table.summary tbody tr", "r => [...r.cells].map(c => c.textContent)")
    assert overall[:2] == ["overall", "24"] and overall[2:6] == [str(counts[o]) for o in OUTCOMES]
    assert problems == []
    page.close()


def test_an_outcome_filter_click_shows_those_rows_only(browser, diffed):  # noqa: F811
    path, counts = diffed
    assert counts["fixed"] > 0 and counts["broken"] > 0  # the fixture has both, so each click changes the rows
    page, problems = opened(browser, path)
    for name in OUTCOMES:
        page.click(f'button[data-outcome="{name}"]')
        assert visible_rows(page) == counts[name]
        assert page.inner_text("#shown") == f"{counts[name]} of 24 queries shown"
        script = "rs => rs.filter(r => !r.hidden).map(r => r.lastChild.textContent)"
        shown = page.eval_on_selector_all("#rows tr.q", script)
        assert set(shown) <= {name}
    page.click('button[data-outcome="all"]')
    assert visible_rows(page) == 24 and problems == []
    page.close()


def test_a_stratum_filter_and_a_row_opening_show_the_gold(browser, diffed):  # noqa: F811
    path, _ = diffed
    page, problems = opened(browser, path)
    page.select_option('select[data-stratum="probe_type"]', "factual")
    assert visible_rows(page) == 8
    row = page.locator("#rows tr.q", has_text="t01e01-f")
    assert row.locator("td").nth(1).inner_text().startswith(HOSTILE[:40])  # shown as text, never parsed
    row.click()
    detail = page.locator("#rows tr.detail")
    assert detail.locator("li.gold").first.locator("code").inner_text() == "t01e01"
    assert page.eval_on_selector_all("img", "is => is.length") == 0 and problems == []
    page.close()
