"""The memrecall command line: each command parses options, calls the library, prints."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from memrecall import __version__
from memrecall.errors import MemrecallError

REPO_ROOT = Path(__file__).resolve().parents[2]
RELEASE_NAME = Path("data") / "epirec_v1.json"


def default_release() -> Path:
    """data/epirec_v1.json in the working directory, else in the source checkout."""
    local = Path.cwd() / RELEASE_NAME
    return local if local.exists() else REPO_ROOT / RELEASE_NAME


class MemrecallGroup(click.Group):
    """A click group that turns library errors into one readable line and exit code 1."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except MemrecallError as exc:
            click.echo(f"error: {exc}", err=True)
            sys.exit(1)
        except KeyboardInterrupt:
            click.echo("interrupted", err=True)
            sys.exit(130)


@click.group(cls=MemrecallGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="memrecall")
def main() -> None:
    """memrecall: benchmark whether an agent memory recalls the right memory."""


@main.command()
@click.option(
    "--data", type=click.Path(path_type=Path), default=None, help="EpiRec release JSON [default: data/epirec_v1.json]."
)
@click.option(
    "--strategies",
    default="recency,hashing,dense,fts5,hybrid",
    show_default=True,
    help="Comma-separated strategies to run, in this order.",
)
@click.option(
    "--output",
    type=click.Path(path_type=Path),
    default=Path("docs/baselines.json"),
    show_default=True,
    help="Where to write the signed JSON report.",
)
@click.option(
    "--export-rankings",
    type=click.Path(path_type=Path),
    default=None,
    help="Folder for one rankings JSONL per strategy.",
)
@click.option(
    "--model", default=None, help="Encoder path or name [default: $MEMRECALL_MODEL, else the bundled MiniLM]."
)
@click.option(
    "--cache-dir",
    type=click.Path(path_type=Path),
    default=None,
    help="Embedding cache folder [default: $MEMRECALL_CACHE, else .memrecall_cache].",
)
@click.option("--seed", type=int, default=0, show_default=True, help="Bootstrap seed.")
@click.option("--resamples", type=click.IntRange(min=100), default=2000, show_default=True, help="Bootstrap resamples.")
@click.option(
    "--report-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Also render figures and a Markdown report card into this folder.",
)
@click.option("--quiet", is_flag=True, help="No progress bars and no table; print only where the report went.")
def baseline(data, strategies, output, export_rankings, model, cache_dir, seed, resamples, report_dir, quiet) -> None:
    """Run reference retrievers on EpiRec; write a signed report."""
    from memrecall.baseline import BaselineOptions, epirec_rankings_rows, run_baseline
    from memrecall.io import write_json, write_jsonl
    from memrecall.retrievers import parse_strategies
    from memrecall.scoring import ScoringConfig
    from memrecall.table import baseline_rows, print_table, results_table

    data = data or default_release()
    if not data.exists():
        raise click.BadParameter(f"{data} does not exist", param_hint="--data")
    options = BaselineOptions(
        data=data,
        strategies=parse_strategies(strategies),
        model=model,
        cache=cache_dir,
        scoring=ScoringConfig(seed=seed, resamples=resamples),
        show_progress=not quiet,
    )
    run = run_baseline(options)
    if export_rankings:
        for name, rankings in run.rankings.items():
            write_jsonl(export_rankings / f"{name}.jsonl", epirec_rankings_rows(run.task, rankings))
    write_json(output, run.report)
    if not quiet:
        content = run.report["content"]
        title = f"{content['task']['name']} {content['task']['version']}: {content['task']['queries']} probes"
        metrics = content["scoring"]["metrics"]
        print_table(results_table(title, baseline_rows(run.report), metrics, ("strategy", "probe type")))
    click.echo(f"report: {output} (signature {run.report['signature'][:12]})")
    if export_rankings:
        click.echo(f"rankings: {export_rankings}/<strategy>.jsonl")
    render_card(run.report, report_dir)


def render_card(report: dict, folder: Path | None) -> None:
    """Write figures and the Markdown report card when a folder is given."""
    if folder is None:
        return
    from memrecall.report_card import write_report_card

    written = write_report_card(report, folder)
    click.echo(f"report card: {folder}/README.md ({len(written) - 1} figures)")


def _register_commands() -> None:
    """Attach the commands defined in the cli_* modules."""
    from memrecall import cli_corpus, cli_evaluate, cli_harness

    for command in (
        cli_corpus.validate,
        cli_corpus.build,
        cli_corpus.audit,
        cli_corpus.labels,
        cli_evaluate.evaluate,
        cli_evaluate.report_command,
        cli_harness.longmemeval,
        cli_harness.locomo,
    ):
        main.add_command(command)


_register_commands()
