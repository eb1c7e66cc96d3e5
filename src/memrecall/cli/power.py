"""`memrecall power REPORT [REPORT...]`: the smallest paired difference the queries can detect, and the reverse."""

from __future__ import annotations

from pathlib import Path

import click

from memrecall.cli.options import DATA, METRIC, OUTPUT, RANKINGS, Command, metric_list
from memrecall.io import announce


def _fraction(ctx: click.Context, param: click.Parameter, value: float | None) -> float | None:
    """A number strictly between 0 and 1 (or absent)."""
    if value is not None and not 0.0 < value < 1.0:
        raise click.BadParameter(f"must be between 0 and 1, got {value:g}")
    return value


@click.command(cls=Command)
@click.argument(
    "report_paths",
    metavar="REPORT...",
    nargs=-1,
    required=True,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
)
@RANKINGS
@DATA
@click.option("--alpha", type=float, default=0.05, show_default=True, callback=_fraction, help="Two-sided level.")
@click.option("--power", "power_level", type=float, default=0.8, show_default=True, callback=_fraction, help="Power.")
@click.option(
    "--difference", type=float, default=None, callback=_fraction, help="Also give the queries needed to detect this."
)
@METRIC
@click.option(
    "--grouping", default=None, help="One of the report's groupings, e.g. by_probe_type [default: its primary stratum]."
)
@click.option(
    "--discordance",
    type=float,
    default=None,
    callback=_fraction,
    help="Assume this share of discordant queries for hit metrics instead of measuring it [default with one system "
    "alone: 0.25, a typical share between two retrievers on EpiRec v2 and v3].",
)
@OUTPUT
def power(report_paths, rankings, data, alpha, power_level, difference, metrics, grouping, discordance, output) -> None:
    """Detectable paired difference per group and metric: every later system against the first report's first
    system. Hit metrics (recall@k, recall_all@k) use McNemar's paired-proportions formula at the observed
    discordance; graded ones a seeded paired bootstrap and the normal approximation. --metric defaults to the
    primary metric; --output, when given, holds the results as JSON."""
    from memrecall.cli.common import data_input, new_plan
    from memrecall.data.formats import REPORTS, check_inputs, rankings_kinds
    from memrecall.io import write_json
    from memrecall.reports.power import power_inputs, power_lines, power_results
    from memrecall.scoring.options import parse_metric_list

    names = parse_metric_list(",".join(metric_list(metrics))) if metrics else ()
    check_inputs("REPORT", report_paths, ("report",), REPORTS)
    check_inputs("--rankings", rankings, *rankings_kinds("longmemeval"))
    plan = new_plan()
    paths = [plan.input("REPORT", path) for path in report_paths]
    given = [plan.input("--rankings", path) for path in rankings]
    data = data_input(plan, data)
    output = plan.output("--output", output) if output is not None else None
    plan.check()
    inputs = power_inputs(paths, given, data, names, grouping, lambda line: click.echo(f"note: {line}", err=True))
    results = power_results(inputs, alpha, power_level, difference, discordance)
    for line in power_lines(results):
        click.echo(line)
    if output is not None:
        write_json(output, results)
        announce(f"power: {output}")
