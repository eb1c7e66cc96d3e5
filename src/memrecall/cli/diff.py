"""`memrecall diff A B [C ...]`: what changed per query between systems, as one HTML page and a short summary."""

from __future__ import annotations

from pathlib import Path

import click

from memrecall.cli.options import BENCHMARK, DATA, OUTPUT, RANKINGS, Command

DEFAULT_PAGE = Path("results/diff.html")


@click.command(cls=Command)
@click.argument("inputs", metavar="A [B ...]", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@RANKINGS
@BENCHMARK
@DATA
@click.option(
    "--cutoff",
    type=click.IntRange(min=1),
    default=None,
    help="Cut-off of fixed and broken [default: the primary metric's].",
)
@OUTPUT
@click.option(
    "--markdown",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Also write the summary as Markdown here.",
)
def diff(inputs, rankings, benchmark_name, data, cutoff, output, markdown) -> None:
    """Every system against the first, per headline query: the gold's rank under each, fixed and broken at k, and
    the paired difference with its CI and p-value overall and per stratum. Reports must be comparable (same
    benchmark, data and population, as `compare` checks); rankings must be the ones their reports were made from.
    With --benchmark, A B ... are rankings files of that benchmark. --output is the HTML page
    [default: results/diff.html]."""
    from memrecall.cli.common import data_input, new_plan
    from memrecall.data.formats import REPORTS, check_inputs, rankings_kinds
    from memrecall.errors import UsageError
    from memrecall.io import atomic_write_text
    from memrecall.reports.diff.content import diff_content
    from memrecall.reports.diff.inputs import read_rankings_sides, read_sides
    from memrecall.reports.diff.page import diff_page
    from memrecall.reports.diff.summary import summary_lines, summary_markdown

    benchmark = benchmark_name
    if benchmark is None:
        check_inputs("A B", inputs, ("report",), REPORTS)
    else:
        check_inputs("A B", inputs, *rankings_kinds(benchmark))
    check_inputs("--rankings", rankings, *rankings_kinds("longmemeval"))
    plan = new_plan()
    paths = [plan.input("A B", path) for path in inputs]
    given = [plan.input("--rankings", path) for path in rankings]
    data = data_input(plan, data)
    page = plan.output("--output", output or DEFAULT_PAGE)
    markdown = plan.output("--markdown", markdown) if markdown is not None else None
    plan.check()
    sides = read_sides(paths, given, data) if benchmark is None else read_rankings_sides(paths, benchmark, data)
    if len(sides.sides) < 2:
        raise UsageError(f"{paths[0]}: holds one system; diff needs two or more (A B, or one report of several)")
    content = diff_content(sides, cutoff)
    atomic_write_text(page, diff_page(content))
    if markdown is not None:
        atomic_write_text(markdown, summary_markdown(content, page.name))
    for line in summary_lines(content):
        click.echo(line)
    click.echo(f"page: {page}")
