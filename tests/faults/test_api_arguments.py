"""Promise: every argument of evaluate_rankings and Result's methods is checked; a wrong one is one ConfigError
saying what to pass, and any iterable of rows is read once."""

import json

import pytest
from conftest import MINI_RELEASE
from helpers import export_hashing

from memrecall import evaluate_rankings
from memrecall.errors import ConfigError
from memrecall.reports.proof.fingerprint import report_fingerprint


@pytest.fixture(scope="module")
def rankings(tmp_path_factory):
    return export_hashing(tmp_path_factory.mktemp("api"))


@pytest.fixture(scope="module")
def row_dicts(rankings):
    return [json.loads(line) for line in rankings.read_text().splitlines()]


# argument -> (bad value, what the error says); every other argument valid.
BAD = {
    "rows empty list": ("rows", [], "rows is empty; pass a rankings file"),
    "rows empty tuple": ("rows", (), "rows is empty"),
    "rows empty generator": ("rows", (r for r in []), "rows is empty"),
    "rows empty path": ("rows", "", "rows is an empty path"),
    "rows int": ("rows", 3, "rows must be a rankings file path, a list of paths, or row dicts, got int 3"),
    "rows dict": ("rows", {"a": 1}, "rows must be a rankings file path"),
    "rows bytes": ("rows", b"x.jsonl", "rows must be a rankings file path"),
    "rows of ints": ("rows", [1, 2], "rows[0] must be a file path (or every item a row dict), got int 1"),
    "rows mixed": ("rows", ["a.jsonl", {"x": 1}], "rows[1] must be a file path"),
    "benchmark int": ("benchmark", 7, "benchmark must be a registered name (str) or a Benchmark, got int 7"),
    "benchmark None": ("benchmark", None, "benchmark must be a registered name"),
    "names str": ("names", "hashing", "names must be a list of str, e.g. ['a', 'b'], got str 'hashing'"),
    "names int": ("names", 5, "names must be a list of str"),
    "names of ints": ("names", [1], "names[0] must be a non-empty str, got int 1"),
    "names empty name": ("names", [""], "names[0] must be a non-empty str"),
    "seed str": ("seed", "0", "seed must be an integer from 0 to 2**63-1, got '0'"),
    "seed float": ("seed", 1.5, "seed must be an integer"),
    "seed bool": ("seed", True, "seed must be an integer"),
    "seed negative": ("seed", -1, "seed must be an integer"),
    "resamples str": ("resamples", "200", "resamples must be an integer from 100 to 100000"),
    "data int": ("data", 3, "data must be a file or folder path (str or Path) or None, got int 3"),
    "loaded str": ("loaded", "x", "loaded must be a Loaded (Benchmark.load's result) or None, got str 'x'"),
    "gold_label_users str": ("gold_label_users", "hashing", "gold_label_users must be a list of str"),
    "metrics int": ("metrics", 5, "metrics must be a list of str"),
    "metrics of ints": ("metrics", [5], "metrics[0] must be a non-empty str, got int 5"),
    "metrics empty item": ("metrics", "map,", "--metrics 'map,': item 2 is empty"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_a_wrong_argument_is_one_config_error_saying_what_to_pass(case, rankings):
    argument, value, expected = BAD[case]
    arguments = {"rows": rankings, "benchmark": "epirec", "data": MINI_RELEASE, "resamples": 100, argument: value}
    with pytest.raises(ConfigError) as caught:
        evaluate_rankings(**arguments)
    assert expected in str(caught.value)


@pytest.mark.parametrize("form", ["list", "tuple", "generator", "map"])
def test_any_iterable_of_rows_scores_like_the_list(form, row_dicts):
    made = {"list": list, "tuple": tuple, "generator": lambda r: (x for x in r), "map": lambda r: map(dict, r)}
    expected = evaluate_rankings(row_dicts, "epirec", data=MINI_RELEASE, resamples=100)
    result = evaluate_rankings(made[form](row_dicts), "epirec", data=MINI_RELEASE, resamples=100)
    assert report_fingerprint(result.report) == report_fingerprint(expected.report)


def test_any_iterable_of_paths_and_names_is_read_once(rankings):
    result = evaluate_rankings(iter([rankings]), "epirec", data=MINI_RELEASE, names=iter(["mine"]), resamples=100)
    assert result.report["content"]["system_order"] == ["mine"]


@pytest.mark.parametrize(
    "name, expected",
    [
        (5, "name must be a system name (str) or None, got int 5"),
        ("nope", "no system 'nope' in this result; it has hashing"),
    ],
)
def test_result_rows_checks_its_name(name, expected, rankings):
    result = evaluate_rankings(rankings, "epirec", data=MINI_RELEASE, resamples=100)
    with pytest.raises(ConfigError) as caught:
        result.rows(name)
    assert expected in str(caught.value)
