"""The memrecall command line: each command parses options, calls the library, prints."""

from __future__ import annotations

import errno
import sys

import click

from memrecall.cli.options import Group
from memrecall.errors import MemrecallError, SystemInterrupted, UsageError
from memrecall.reports.version import __version__


class MemrecallGroup(Group):
    """Runs each command as one output batch (all files land or none) and turns library errors into one line."""

    def invoke(self, ctx: click.Context):
        from memrecall.io import Batch, output_batch

        _terminate_as_interrupt()
        batch = Batch()
        try:
            with output_batch() as batch:
                result = super().invoke(ctx)
                _flush_stdout()  # inside the batch: a full disk or a closed pipe on stdout lands no file
            _flush_stdout()
            return result
        except OSError as exc:
            if exc.errno not in WRITE_ERRNOS:
                raise
            _silence_stdout()
            where = exc.filename or "standard output"
            reason = f"{exc.strerror or exc} ({errno.errorcode[exc.errno]})"
            click.echo(f"error: cannot write {where}: {reason}; {_left_behind(batch)}", err=True)
            sys.exit(1)
        except MemrecallError as exc:
            if ctx.params.get("debug") and getattr(exc, "remote_traceback", ""):
                click.echo(f"the plug-in's worker process:\n{exc.remote_traceback}", err=True, nl=False)
            elif ctx.params.get("debug") and exc.__cause__ is not None:
                import traceback

                traceback.print_exception(exc.__cause__, file=sys.stderr)
            click.echo(f"error: {exc}", err=True)
            sys.exit(130 if isinstance(exc, SystemInterrupted) else 2 if isinstance(exc, UsageError) else 1)
        except KeyboardInterrupt:
            click.echo(f"interrupted; {_left_behind(batch)}", err=True)
            sys.exit(130)


def _left_behind(batch) -> str:
    """What a failed or interrupted command leaves: nothing, or (once the batch landed) every output, complete."""
    if not batch.complete:
        return "no output was left behind"
    return f"the outputs were already complete ({len(batch.written)} file(s) written)"


WRITE_ERRNOS = frozenset({errno.ENOSPC, errno.EFBIG, errno.EPIPE, errno.EDQUOT, errno.EIO})


def _flush_stdout() -> None:
    """Flush stdout now, so that a failing write to it (`> /dev/full`, `| head`) is seen here."""
    sys.stdout.flush()


def _silence_stdout() -> None:
    """Point stdout at /dev/null after it failed, so the exit does not report the same failure again."""
    import os

    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):
        return
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, fd)
    os.close(null)


def _terminate_as_interrupt() -> None:
    """SIGTERM ends a command like Ctrl-C: staged outputs are removed, exit code 130."""
    import signal
    import threading

    def interrupt(signum, frame):
        raise KeyboardInterrupt

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, interrupt)


@click.group(cls=MemrecallGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="memrecall")
@click.option(
    "--debug", is_flag=True, envvar="MEMRECALL_DEBUG", help="On an error from a system's code, show its traceback too."
)
def main(debug: bool) -> None:
    """memrecall: benchmark whether an agent memory recalls the right memory."""


def _register_commands() -> None:
    """Attach the commands, each defined in its own module of this package."""
    from memrecall.cli import (
        baseline,
        corpus,
        diff,
        evaluate,
        gate,
        leaderboard,
        power,
        qrels,
        report,
        run,
        sweep,
        trust,
    )
    from memrecall.cli.harness import locomo, longmemeval

    for command in (
        baseline.baseline,
        run.run,
        sweep.sweep,
        leaderboard.leaderboard,
        evaluate.evaluate,
        evaluate.compare,
        diff.diff,
        gate.gate,
        report.report_command,
        qrels.qrels,
        trust.verify,
        power.power,
        trust.keys,
        longmemeval.longmemeval,
        locomo.locomo,
        corpus.validate,
        corpus.build,
        corpus.audit,
        corpus.labels,
    ):
        main.add_command(command)


_register_commands()
