"""The leaderboard page answers its question: the best row on the hardest (emotional) probes and its margin first,
the primary column first, plain words over EpiRec's groups, the p_Holm floor said, figure labels that never overlap."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest

from memrecall.reports.leaderboard.entries import read_entries
from memrecall.reports.leaderboard.html import holm_floor, p_shown
from memrecall.reports.leaderboard.labels import label_box, overlaps, place_labels
from memrecall.reports.leaderboard.tables import GROUP_CAPTIONS, build_tables, ranking_groups

ROOT = Path(__file__).resolve().parents[1]
COMMITTED = ROOT / "site" / "leaderboard"


@pytest.fixture(scope="module")
def committed():
    tables = build_tables(read_entries(COMMITTED / "entries", {}))
    return tables, (COMMITTED / "index.html").read_text(encoding="utf-8")


@pytest.mark.slow
def test_the_page_opens_with_the_best_row_on_emotional_resurfacing_and_its_margin(committed):
    tables, page = committed
    table = tables[0]
    group = ranking_groups(table, table.rows)[0]
    best, second = table.rows[0], table.rows[1]
    value = table.cell(best, group, table.primary)["value"]
    margin = -table.versus[(second.row, group)].difference
    answer = re.search(r'<p class="answer">(.*?)</p>', page).group(1)
    assert page.index('<p class="answer">') < page.index("<h2")  # before any table
    assert group == "reflective_implicit" and "Emotional resurfacing" in answer
    assert f"<b>{best.system} with {best.encoder.name}</b> recalls best, {table.primary} {value:.3f}" in answer
    assert f"{second.system} with {second.encoder.name} (#2) is {margin:.3f} below" in answer


@pytest.mark.slow
def test_each_grouped_table_leads_with_its_primary_column_captioned_in_plain_words(committed):
    tables, page = committed
    for table in tables:
        section = page.split(f'<h2 id="{table.slug}">')[1].split("<h2")[0]
        head = re.search(rf'id="{table.slug}-main">\s*<thead><tr>(.*?)</tr>', section, re.S).group(1)
        cells = re.findall(r"<th>(.*?)</th>", head, re.S)
        order = ranking_groups(table, table.rows)
        expected = [table.primary if g == "overall" else f"{g} {table.primary}" for g in order]
        assert [re.sub(r"<span.*?</span>", "", c) for c in cells[4 : 4 + len(order)]] == expected, table.slug
        for cell, group in zip(cells[4:], order, strict=False):
            if group in GROUP_CAPTIONS:
                assert cell.startswith(f'<span class="caption">{GROUP_CAPTIONS[group]}</span>')
        assert cells[-1] == "details" and len(cells) == 4 + len(order) + len(table.leading) + 2  # and time, details
    assert GROUP_CAPTIONS["reflective_implicit"].startswith("emotional resurfacing")


def test_the_p_holm_floor_is_explained_once_per_table_that_can_reach_it(committed):
    tables, page = committed
    epirec = tables[0]
    floor = holm_floor(epirec)
    tested = len(epirec.rows) - 1  # every row but dense, each against dense
    assert tested > 40 and floor == pytest.approx(tested / 2001)  # 2000 sign flips and the observed one: m / 2001
    assert p_shown(floor) == f"{tested / 2001:.4f}"
    for table in tables:
        section = page.split(f'<h2 id="{table.slug}">')[1].split("<h2")[0]
        said = section.count("The smallest p<sub>Holm</sub> this test can give here is")
        assert said == (1 if 0 < holm_floor(table) < 0.05 else 0), table.slug


def crowded(n: int, spread: float) -> list[tuple[float, float]]:
    """n points on a small grid, several on one spot, as a leaderboard corner crowds."""
    return [(100 + (i % 4) * spread, 100 + (i // 4 % 3) * spread) for i in range(n)]


@pytest.mark.parametrize(("n", "spread"), list(itertools.product([2, 6, 12, 20], [0.0, 4.0, 9.0])))
def test_placed_labels_never_overlap_each_other_or_a_point(n, spread):
    anchors = crowded(n, spread)
    spots = list(dict.fromkeys(anchors))
    sizes = [(8.0 + 5 * (i % 3), 7.5) for i in range(len(spots))]
    offsets = place_labels(spots, sizes, (0.0, 0.0, 400.0, 300.0))
    boxes = [label_box(a, o, s) for a, o, s in zip(spots, offsets, sizes, strict=True)]
    for a, b in itertools.combinations(boxes, 2):
        assert not overlaps(a, b)
    for box, (x, y) in itertools.product(boxes, spots):
        assert not overlaps(box, (x - 3.5, y - 3.5, x + 3.5, y + 3.5))
    assert place_labels(spots, sizes, (0.0, 0.0, 400.0, 300.0)) == offsets  # deterministic
