"""Promise: an option name means one thing: every command that takes it shares one declaration (cli/options.py).

The checks walk every command of the CLI (groups included), so a command added later is covered without listing it.
"""

from __future__ import annotations

from collections import defaultdict

import click
import pytest

from memrecall.cli import main
from memrecall.cli.options import RENAMED, Command, renamed_args


def _commands(group: click.Group = main, prefix: str = "") -> dict[str, click.Command]:
    """Every command under `group`, by its path (`keys sign`)."""
    found = {}
    for name, command in group.commands.items():
        path = f"{prefix}{name}"
        if isinstance(command, click.Group):
            found.update(_commands(command, path + " "))
        else:
            found[path] = command
    return found


COMMANDS = _commands()


def _declaration(option: click.Option) -> tuple:
    """What a user sees and gets of an option: its names, type, default, help, and how it parses."""
    info = option.to_info_dict()
    return (
        tuple(option.opts),
        tuple(option.secondary_opts),
        option.name,
        repr(sorted(info["type"].items())),
        repr(option.default),
        option.help,
        option.multiple,
        option.is_flag,
        option.required,
        repr(option.envvar),
        option.metavar,
        option.show_default,
        option.callback,
    )


def _declarations() -> dict[str, dict[tuple, list[str]]]:
    """Option name -> each distinct declaration of it -> the commands that declare it so."""
    seen: dict[str, dict[tuple, list[str]]] = defaultdict(lambda: defaultdict(list))
    for path, command in COMMANDS.items():
        for param in command.params:
            if isinstance(param, click.Option):
                for flag in (*param.opts, *param.secondary_opts):
                    seen[flag][_declaration(param)].append(path)
    return seen


def test_the_walk_finds_the_commands_of_subgroups_too():
    assert {"run", "keys sign", "labels agree", "compare"} <= set(COMMANDS)


@pytest.mark.parametrize("flag", sorted(_declarations()))
def test_an_option_name_is_declared_one_way_in_every_command(flag):
    variants = _declarations()[flag]
    assert len(variants) == 1, {tuple(commands): declaration[2:6] for declaration, commands in variants.items()}


def test_shared_options_are_the_ones_declared_in_cli_options():
    """An option two commands take is declared in cli/options.py, or, taken by the dataset harnesses alone, in
    cli/harness/options.py."""
    import memrecall.cli.options as options

    probe = click.command()(lambda **kwargs: None)
    for value in vars(options).values():
        if callable(value) and getattr(value, "__module__", "") == "click.decorators":
            value(probe)
    declared = {flag for p in probe.params for flag in p.opts}
    users = {flag: {c for cs in variants.values() for c in cs} for flag, variants in _declarations().items()}
    shared = {flag for flag, commands in users.items() if len(commands) > 1}
    harness_only = {flag for flag in shared if users[flag] == {"locomo", "longmemeval"}}
    assert shared - declared - harness_only == set()
    assert "--seed" in declared and "--output" in declared  # the probe sees the module's declarations


def test_every_command_is_a_memrecall_command():
    """So every command gets the old option spellings and the refusal table."""
    plain = [path for path, command in COMMANDS.items() if not isinstance(command, Command)]
    assert plain == []


RENAMES = [(path, old, new) for path, names in RENAMED.items() for old, new in names.items()]


@pytest.mark.parametrize(("path", "old", "new"), RENAMES, ids=[f"{p}{o}" for p, o, _ in RENAMES])
def test_an_old_option_spelling_still_parses_as_its_new_name(path, old, new):
    flags = {flag for param in COMMANDS[path].params for flag in param.opts}
    assert new in flags and old not in flags  # one declaration, under the new name
    assert renamed_args(path, [old, "x", f"{old}=y", "--", old]) == [new, "x", f"{new}=y", "--", old]
    from click.testing import CliRunner

    result = CliRunner().invoke(main, [*path.split(), old, "1", "--help"])
    assert result.exit_code == 0, result.output
    assert new in result.output


def test_an_old_spelling_is_not_rewritten_for_another_command():
    assert renamed_args("run", ["--k", "3"]) == ["--k", "3"]
