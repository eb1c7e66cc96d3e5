"""Promise: every refused combination of options is one line naming it and why, exit 2, nothing written.

The cases are generated from the one table, cli.applicable.REFUSALS: each row's own example is run.
"""

import pytest
from conftest import MINI_RELEASE, run

from memrecall.cli.applicable import REFUSALS

FIXTURES = MINI_RELEASE.parent


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    """Two reports and two rankings files of the mini release, a private key, and the dataset fixtures."""
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
            "--export-rankings-dir",
            folder / f"rk-{name}",
        )
        assert result.exit_code == 0, result.output
    assert run("keys", "new", "--out", folder / "keys").exit_code == 0
    return {
        "release": MINI_RELEASE,
        "report_a": folder / "a.json",
        "report_b": folder / "b.json",
        "rankings_a": folder / "rk-a" / "hashing.jsonl",
        "rankings_b": folder / "rk-b" / "recency.jsonl",
        "private_key": folder / "keys" / "memrecall.key",
        "locomo": FIXTURES / "locomo_mini.json",
        "longmemeval": FIXTURES / "lme_format_mini.json",
    }


def _cases():
    """(id, command path, arguments, row) for every row and every command it names."""
    cases = []
    for index, row in enumerate(REFUSALS):
        for command, example in row.examples.items():
            cases.append((f"{index}-{command}-{row.option}", command, example, row))
    return cases


CASES = _cases()


@pytest.mark.parametrize(("command", "args", "row"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_each_refusal_is_one_line_exit_2_and_writes_nothing(command, args, row, inputs, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    argv = [*command.split(), *(str(a).format(**inputs) for a in args)]
    if "--output" not in argv and "--output" in _flags(command):
        argv += ["--output", "OUT/r.json"]  # where a run that was not refused would write
    result = run(*argv)
    assert result.exit_code == row.code, result.output
    lines = result.output.splitlines()
    assert len(lines) == 1, result.output
    assert lines[0].startswith("error: "), result.output
    fixed = row.message.split("{")[0]
    assert fixed in lines[0], (fixed, result.output)
    assert list(tmp_path.iterdir()) == []


def _flags(path: str) -> set[str]:
    """Every option name of a command, e.g. `keys sign`."""
    from memrecall.cli import main

    found = main
    for part in path.split():
        found = found.commands[part]
    return {flag for p in found.params for flag in p.opts}


def test_every_row_names_an_option_of_each_of_its_commands():
    for row in REFUSALS:
        for path in row.commands:
            assert row.option in _flags(path), (path, row.option)
