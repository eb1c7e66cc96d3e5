"""Promise: an option that cannot apply in a command's mode is refused, naming it and why, never ignored."""

import click
import pytest
from conftest import MINI_RELEASE, run
from helpers import assert_usage_error

from memrecall.cli.applicable import RAY_ONLY, RULES
from memrecall.cli.evaluate import compare

VALUES = {"names": "a,b", "benchmark_name": "epirec", "seed": "1", "resamples": "200", "metrics": "map"}


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    """Two reports and two rankings files of the mini release."""
    folder = tmp_path_factory.mktemp("inapplicable")
    for name, strategy in (("a", "hashing"), ("b", "recency")):
        result = run(
            "baseline",
            "--data",
            MINI_RELEASE,
            "--strategies",
            strategy,
            "--quiet",
            "--resamples",
            "100",
            "--output",
            folder / f"{name}.json",
            "--export-rankings",
            folder / f"rk-{name}",
        )
        assert result.exit_code == 0, result.output
    return {
        "reports": [folder / "a.json", folder / "b.json"],
        "rankings": [folder / "rk-a" / "hashing.jsonl", folder / "rk-b" / "recency.jsonl"],
    }


def _option(name: str) -> list[str]:
    """The option's flag and a value valid in the other mode (a choice, or a path under the test folder)."""
    param = next(p for p in compare.params if p.name == name)
    if getattr(param, "is_flag", False):
        return [param.opts[0]]
    if isinstance(param.type, click.Choice):
        return [param.opts[0], param.type.choices[-1]]
    return [param.opts[0], VALUES.get(name, MINI_RELEASE if name == "data" else "OUT/" + name)]


CASES = [(mode, name) for (command, mode), rules in RULES.items() if command == "compare" for name in rules]


@pytest.mark.parametrize(("mode", "name"), CASES, ids=[f"{m}-{n}" for m, n in CASES])
def test_an_option_that_cannot_apply_is_refused(mode, name, inputs, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    extra = [] if mode == "reports" else ["--data", MINI_RELEASE]
    result = run("compare", *inputs[mode], *_option(name), *extra, "--output", tmp_path / "c.json")
    flag = next(p.opts[0] for p in compare.params if p.name == name)
    assert_usage_error(result, f"{flag} cannot apply to a compare of")
    assert RULES[("compare", mode)][name] in result.output
    assert list(tmp_path.iterdir()) == []


def _executor_commands():
    """Every command that takes --executor, with the arguments that make a run of it."""
    from memrecall.cli import main

    fixtures = MINI_RELEASE.parent
    base = {
        "run": ["run", "epirec", "--system", "fts5", "--data", MINI_RELEASE],
        "baseline": ["baseline", "--data", MINI_RELEASE, "--strategies", "recency"],
        "locomo": ["locomo", "--data", fixtures / "locomo_mini.json", "--modes", "fts5"],
        "longmemeval": ["longmemeval", "--data", fixtures / "lme_format_mini.json", "--modes", "fts5"],
    }
    having = sorted(n for n, c in main.commands.items() if any(p.name == "executor" for p in c.params))
    assert having == sorted(base), f"a command gained --executor: {having}"
    return base


EXECUTOR_CASES = [(command, name) for command in sorted(_executor_commands()) for name in RAY_ONLY]
RAY_VALUES = {"workers": "3", "ray_address": "127.0.0.1:6379"}


@pytest.mark.parametrize(("command", "name"), EXECUTOR_CASES, ids=[f"{c}-{n}" for c, n in EXECUTOR_CASES])
def test_ray_only_options_without_ray_are_refused_and_write_nothing(command, name, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    flag = "--" + name.replace("_", "-")
    args = [*_executor_commands()[command], flag, RAY_VALUES[name], "--output", tmp_path / "out" / "r.json"]
    result = run(*args)
    assert_usage_error(result, f"{flag} cannot apply to --executor local: {RAY_ONLY[name]}")
    assert list(tmp_path.iterdir()) == []
