"""The evaluate command: score an external system's rankings, optionally against another's."""

from __future__ import annotations

from pathlib import Path

import click


@click.command()
@click.argument("rankings", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--dataset", default="epirec", show_default=True, help="Which task the rankings answer.")
@click.option(
    "--data",
    type=click.Path(path_type=Path),
    default=None,
    help="Dataset file [default for epirec: data/epirec_v1.json].",
)
@click.option(
    "--output",
    type=click.Path(path_type=Path),
    default=None,
    help="Report path [default: RANKINGS with suffix .report.json].",
)
@click.option(
    "--compare",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    default=None,
    help="A second system's rankings for a paired comparison.",
)
@click.option("--seed", type=int, default=0, show_default=True, help="Bootstrap and randomisation seed.")
@click.option("--resamples", type=click.IntRange(min=100), default=2000, show_default=True)
@click.option(
    "--report-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Also render figures and a Markdown report card into this folder.",
)
def evaluate(rankings, dataset, data, output, compare, seed, resamples, report_dir) -> None:
    """Score a rankings file (JSONL or TREC run) strictly."""
    from memrecall.cli import default_release
    from memrecall.datasets.registry import DATASETS
    from memrecall.evaluate import EvaluateOptions, evaluate_rankings
    from memrecall.io import write_json
    from memrecall.table import comparison_table, print_table, results_table, system_rows

    if dataset not in DATASETS:
        raise click.BadParameter(f"choose from {', '.join(sorted(DATASETS))}", param_hint="--dataset")
    if data is None:
        if dataset != "epirec":
            raise click.BadParameter(f"--data is required for {dataset}", param_hint="--data")
        data = default_release()
    if not data.exists():
        raise click.BadParameter(f"{data} does not exist", param_hint="--data")
    options = EvaluateOptions(rankings, dataset, data, compare, seed, resamples)
    report = evaluate_rankings(options)
    output = output or rankings.with_suffix(".report.json")
    write_json(output, report)
    content = report["content"]
    metrics = content["scoring"]["metrics"]
    stratum = content["primary_stratum"]
    rows = system_rows(rankings.name, content["system"]["results"], stratum)
    if compare:
        rows += system_rows(compare.name, content["other"]["results"], stratum)
    title = f"{content['task']['name']} {content['task']['version']}: {content['task']['queries']} queries"
    print_table(results_table(title, rows, metrics))
    if compare:
        from memrecall.compare import comparison_rows

        diff_rows = comparison_rows(content["comparison"]["by_group"], metrics)
        print_table(comparison_table(f"{rankings.name} minus {compare.name} (paired)", diff_rows, metrics))
    click.echo(f"report: {output} (signature {report['signature'][:12]})")
    from memrecall.cli import render_card

    render_card(report, report_dir)


@click.command("report")
@click.argument("report_path", metavar="REPORT", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Folder for the figures and README.md [default: REPORT stem + _card].",
)
def report_command(report_path: Path, out: Path | None) -> None:
    """Render a report into PNG figures and a Markdown card."""
    from memrecall.datasets.jsonfile import read_json
    from memrecall.report import verify
    from memrecall.report_card import write_report_card

    report = read_json(report_path)
    if not isinstance(report, dict) or "content" not in report:
        raise click.BadParameter(f"{report_path} is not a memrecall report", param_hint="REPORT")
    if not verify(report):
        click.echo(f"warning: {report_path}: signature does not match its content", err=True)
    out = out or report_path.with_name(report_path.stem + "_card")
    for path in write_report_card(report, out):
        click.echo(f"wrote {path}")
