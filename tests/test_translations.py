"""README.ko.md and README.zh-CN.md carry README.md's Quick start, code and numbers unchanged."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TRANSLATIONS = ["README.ko.md", "README.zh-CN.md"]
BAR = re.compile(r"^\S*\[?English\]?.*한국어.*中文", re.M)


def read(name: str) -> str:
    return (ROOT / name).read_text(encoding="utf-8")


def quick_start(text: str) -> list[str]:
    """The command after each Quick start marker."""
    return re.findall(r"<!-- quickstart-(?:baseline|test) -->\n```\n(.*?)\n```", text)


def code_blocks(text: str) -> list[str]:
    return re.findall(r"```[a-z]*\n(.*?)```", text, re.S)


def table_numbers(text: str) -> list[str]:
    """Every number in every table row, in order (words may be translated, numbers may not)."""
    rows = [line for line in text.splitlines() if line.startswith("|")]
    return [n for row in rows for n in re.findall(r"-?\d+(?:[.,]\d+)*", row)]


def test_all_three_readmes_open_with_the_language_bar():
    for name in ["README.md", *TRANSLATIONS]:
        head = "\n".join(read(name).splitlines()[:4])
        assert BAR.search(head), name


@pytest.mark.parametrize("name", TRANSLATIONS)
def test_quick_start_commands_are_verbatim(name):
    english = quick_start(read("README.md"))
    assert len(english) == 2
    assert quick_start(read(name)) == english


@pytest.mark.parametrize("name", TRANSLATIONS)
def test_code_blocks_are_unchanged(name):
    assert code_blocks(read(name)) == code_blocks(read("README.md"))


@pytest.mark.parametrize("name", TRANSLATIONS)
def test_results_tables_carry_identical_numbers(name):
    english = table_numbers(read("README.md"))
    assert len(english) > 200
    assert table_numbers(read(name)) == english


@pytest.mark.parametrize("name", ["README.md", *TRANSLATIONS, "docs/leaderboard.md"])
def test_explicit_and_implicit_are_explained_before_the_first_table(name):
    text = read(name)
    first_table = text.index("<!-- leaderboard-top -->") if "<!-- leaderboard-top -->" in text else text.index("\n|")
    before = text[:first_table]
    paragraph = next(p for p in re.split(r"\n\s*\n", before) if "`reflective_implicit`" in p)
    assert "emotional resurfacing" in paragraph and "`reflective_explicit`" in paragraph
