"""Every relative link in README, its translations, CONTRIBUTING and docs/ reaches a file; every #anchor a heading."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted(
    [ROOT / "README.md", ROOT / "README.ko.md", ROOT / "README.zh-CN.md", ROOT / "CONTRIBUTING.md"]
    + list((ROOT / "docs").glob("*.md"))
)
LINK = re.compile(r"\]\(([^)\s]+)\)")


def prose(page: Path) -> str:
    """A page's text without its fenced code blocks."""
    return re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)


def anchors(page: Path) -> set[str]:
    """GitHub's heading anchors: lower case, punctuation dropped (hyphens and underscores kept), spaces to hyphens."""
    titles = re.findall(r"^#{1,6} (.+)$", prose(page), re.M)
    return {re.sub(r"[^\w\- ]", "", t.strip().lower()).replace(" ", "-") for t in titles}


def links(page: Path) -> list[str]:
    return [t for t in LINK.findall(prose(page)) if not re.match(r"^(https?|mailto):", t)]


def test_the_anchor_rule_matches_githubs():
    page = ROOT / "docs" / "commands.md"
    assert "memrecall-run-benchmark---system-moduleattr-bring-your-own-system" in anchors(page)


@pytest.mark.parametrize("page", PAGES, ids=[p.relative_to(ROOT).as_posix() for p in PAGES])
def test_every_link_resolves(page):
    broken = []
    for target in links(page):
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        if not file.exists():
            broken.append(target)
        elif anchor and file.suffix == ".md" and anchor not in anchors(file):
            broken.append(target)
    assert broken == []
