"""The memrecall command line: each command parses options, calls the library, prints."""

from __future__ import annotations

import sys

import click

from memrecall import __version__
from memrecall.errors import MemrecallError, UsageError


class MemrecallGroup(click.Group):
    """A click group that turns library errors into one readable line and exit code 1."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except MemrecallError as exc:
            click.echo(f"error: {exc}", err=True)
            sys.exit(2 if isinstance(exc, UsageError) else 1)
        except KeyboardInterrupt:
            click.echo("interrupted", err=True)
            sys.exit(130)


@click.group(cls=MemrecallGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="memrecall")
def main() -> None:
    """memrecall: benchmark whether an agent memory recalls the right memory."""


def _register_commands() -> None:
    """Attach the commands, each defined in its own module of this package."""
    from memrecall.cli import baseline, corpus, evaluate, harness, run

    for command in (
        baseline.baseline,
        run.run,
        evaluate.evaluate,
        evaluate.compare,
        evaluate.report_command,
        harness.longmemeval,
        harness.locomo,
        corpus.validate,
        corpus.build,
        corpus.audit,
        corpus.labels,
    ):
        main.add_command(command)


_register_commands()
