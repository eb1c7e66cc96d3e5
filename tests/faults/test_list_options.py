"""Promise: every comma-list option parses through one rule; an empty list or an empty item is refused, nothing made."""

import pytest
from conftest import MINI_RELEASE, run
from helpers import LME, LOCOMO, assert_usage_error

from memrecall.errors import UsageError, comma_list

# Each list option of each command, as arguments with V where the list goes (everything else valid).
LIST_OPTIONS = {
    "baseline --strategies": ["baseline", "--data", MINI_RELEASE, "--strategies", "V"],
    "sweep --systems": ["sweep", "--systems", "V", "--benchmarks", "epirec", "--out", "out"],
    "sweep --benchmarks": ["sweep", "--systems", "hashing", "--benchmarks", "V", "--out", "out"],
    "compare --names": ["compare", MINI_RELEASE, MINI_RELEASE, "--names", "V"],
    "longmemeval --modes": ["longmemeval", "--data", LME, "--modes", "V"],
    "locomo --modes": ["locomo", "--data", LOCOMO, "--modes", "V"],
    "longmemeval --k": ["longmemeval", "--data", LME, "--k", "V"],
    "locomo --k": ["locomo", "--data", LOCOMO, "--k", "V"],
    **{
        f"{command} --metrics": [*head, "--metrics", "V"]
        for command, head in {
            "run": ["run", "epirec", "--system", "hashing", "--data", MINI_RELEASE],
            "evaluate": ["evaluate", MINI_RELEASE, "--data", MINI_RELEASE],
            "compare": ["compare", MINI_RELEASE, MINI_RELEASE, "--data", MINI_RELEASE],
            "baseline": ["baseline", "--data", MINI_RELEASE],
            "sweep": ["sweep", "--systems", "hashing", "--benchmarks", "epirec", "--out", "out"],
            "longmemeval": ["longmemeval", "--data", LME],
            "locomo": ["locomo", "--data", LOCOMO],
        }.items()
    },
}
# A valid first item per option, so that "FIRST," leaves exactly item 2 empty.
FIRST = {"--strategies": "hashing", "--systems": "hashing", "--benchmarks": "epirec", "--modes": "fts5", "--k": "1"}
EMPTY_VALUES = {"empty": ("", "is empty"), "blank": ("  ", "is empty")}


def _with(args: list, value: str) -> list:
    """The arguments with the list placeholder replaced by `value`."""
    return [value if a == "V" else a for a in args]


@pytest.mark.parametrize("case", sorted(LIST_OPTIONS))
@pytest.mark.parametrize("kind", ["empty", "blank", "trailing comma", "leading comma", "double comma"])
def test_an_empty_list_or_item_is_one_usage_line_and_nothing_is_made(case, kind, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    option = case.split()[-1]
    first = FIRST.get(option, "map" if option == "--metrics" else "a")
    value, expected = {
        **EMPTY_VALUES,
        "trailing comma": (f"{first},", "item 2 is empty"),
        "leading comma": (f",{first}", "item 1 is empty"),
        "double comma": (f"{first},,{first}", "item 2 is empty"),
    }[kind]
    result = run(*_with(LIST_OPTIONS[case], value))
    assert_usage_error(result, f"error: {option}")
    assert expected in result.output
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "text, spaces, expected",
    [
        ("a,b", False, ["a", "b"]),
        (" a , b ", False, ["a", "b"]),
        ("a b", False, ["a b"]),
        ("a b,c", True, ["a", "b", "c"]),
        ("a ,  b", True, ["a", "b"]),
    ],
)
def test_comma_list_splits_and_strips(text, spaces, expected):
    assert comma_list(text, "--x", spaces=spaces) == expected


@pytest.mark.parametrize(
    "text, unique, message",
    [
        ("", True, "--x is empty; give one or more comma-separated values"),
        ("a,", True, "--x 'a,': item 2 is empty"),
        ("a,a", True, "--x lists 'a' twice"),
        (None, True, "--x is empty; give one or more comma-separated values"),
    ],
)
def test_comma_list_refusals(text, unique, message):
    with pytest.raises(UsageError) as caught:
        comma_list(text, "--x", unique=unique)
    assert str(caught.value) == message


def test_repeats_pass_when_not_unique():
    assert comma_list("map,map", "--metrics", unique=False) == ["map", "map"]
