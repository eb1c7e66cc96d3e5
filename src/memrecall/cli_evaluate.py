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
def evaluate(rankings, dataset, data, output, compare, seed, resamples) -> None:
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
