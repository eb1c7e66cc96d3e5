"""`memrecall evaluate`, `compare` and `report`: score rankings files, pair systems, render a report."""

from __future__ import annotations

from pathlib import Path

import click

from memrecall.cli.common import bootstrap_options, card_file, finish_outputs, output_options

BENCHMARK_HELP = "Which benchmark the rankings answer: epirec, longmemeval, longmemeval-official, locomo, locomo-turn."


def _score_and_print(files, benchmark_name, data, names, seed, resamples, output, per_query, report_dir) -> None:
    """Score one or more rankings files with the benchmark's policy; print results and paired differences."""
    from memrecall.api import evaluate_rankings
    from memrecall.benchmarks import get_benchmark
    from memrecall.io import write_json
    from memrecall.outputs import check_outputs
    from memrecall.reports.tables import comparison_table, print_table, results_table, systems_rows, table_metrics
    from memrecall.scoring.paired import comparison_rows

    benchmark = get_benchmark(benchmark_name)
    data = benchmark.resolve_data(data)
    check_outputs(
        {"--output": output, "--per-query": per_query, "--report-dir": card_file(report_dir)},
        [*files, data],
        {"--report-dir": report_dir},
    )
    result = evaluate_rankings(list(files), benchmark, data, names, seed, resamples)
    report = result.report
    for source, note in report["env"].get("formats", {}).items():
        click.echo(f"{source}: read as {note}", err=True)
    write_json(output, report)
    content = report["content"]
    metrics = table_metrics(content)
    title = f"{content['task']['name']} {content['task']['version']}: {content['task']['queries']} queries"
    print_table(results_table(title, systems_rows(report), metrics))
    first = content["system_order"][0]
    for comparison in content.get("comparisons", []):
        rows = comparison_rows(comparison["by_group"], metrics)
        heading = f"{comparison['system']} minus {first} (paired; p Holm-adjusted over {len(content['comparisons'])})"
        print_table(comparison_table(heading, rows, metrics))
    click.echo(f"report: {output} (signature {report['signature'][:12]})")
    finish_outputs(report, result.per_query, per_query, report_dir)


def _names(text: str | None) -> list[str] | None:
    """`a,b,c` -> ['a', 'b', 'c']."""
    return [n.strip() for n in text.split(",")] if text else None


@click.command()
@click.argument("rankings", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--benchmark", "--dataset", "benchmark_name", default="epirec", show_default=True, help=BENCHMARK_HELP)
@click.option("--data", type=click.Path(path_type=Path), default=None, help="Dataset file [default for epirec: v2].")
@click.option("--name", default=None, help="The system's name in the report [default: the file's stem].")
@click.option(
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Report path [default: RANKINGS with suffix .report.json].",
)
@click.option(
    "--compare",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    default=None,
    help="A second system's rankings, paired against the first (see also `memrecall compare`).",
)
@bootstrap_options
@output_options
def evaluate(rankings, benchmark_name, data, name, output, compare, seed, resamples, per_query, report_dir) -> None:
    """Score a rankings file (JSONL or TREC run) strictly."""
    files = [rankings, compare] if compare else [rankings]
    names = [name or rankings.stem, compare.stem] if compare else ([name] if name else None)
    output = output or rankings.with_suffix(".report.json")
    _score_and_print(files, benchmark_name, data, names, seed, resamples, output, per_query, report_dir)


@click.command()
@click.argument("runs", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--names", default=None, help="Comma-separated system names, one per run [default: file stems].")
@click.option("--benchmark", "benchmark_name", default="epirec", show_default=True, help=BENCHMARK_HELP)
@click.option("--data", type=click.Path(path_type=Path), default=None, help="Dataset file [default for epirec: v2].")
@click.option(
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    default=Path("results/comparison.report.json"),
    show_default=True,
    help="Report path.",
)
@click.option(
    "--allow-mismatch",
    is_flag=True,
    help="Compare reports whose comparability manifests differ, labelled 'not like-for-like'.",
)
@bootstrap_options
@output_options
def compare(runs, names, benchmark_name, data, output, allow_mismatch, seed, resamples, per_query, report_dir) -> None:
    """Compare systems: rankings files (paired, Holm-adjusted) or signed reports (manifests checked)."""
    if len(runs) < 2:
        raise click.BadParameter("give at least two rankings files or reports", param_hint="RUNS")
    from memrecall.reports.compare_reports import is_report_file

    if all(is_report_file(path) for path in runs):
        _compare_reports(runs, output, allow_mismatch)
        return
    _score_and_print(runs, benchmark_name, data, _names(names), seed, resamples, output, per_query, report_dir)


def _compare_reports(paths, output: Path, allow_mismatch: bool) -> None:
    """Check the comparability manifests, print every mismatched field and each report's headline values."""
    from memrecall.io import write_json
    from memrecall.outputs import check_outputs
    from memrecall.reports.compare_reports import compare_reports

    check_outputs({"--output": output}, list(paths))
    from memrecall.errors import ConfigError, short

    report = compare_reports(list(paths))
    content = report["content"]
    for d in content["mismatches"]:
        click.echo(f"differs: {d['field']}: {short(repr(d['first']))} vs {short(repr(d['this']))} ({d['report']})")
    if content["mismatches"] and not allow_mismatch:
        raise ConfigError(
            f"not like-for-like: {len(content['mismatches'])} comparability field(s) differ (listed above); "
            "--allow-mismatch compares them anyway, labelled not like-for-like"
        )
    click.echo(f"comparison: {content['label']}")
    for entry in content["reports"]:
        for name, values in entry["headline"].items():
            cells = ", ".join(f"{m} {v:.3f}" for m, v in values.items())
            click.echo(f"  {entry['path_name']}: {name}: {cells}")
    write_json(output, report)
    click.echo(f"report: {output} (signature {report['signature'][:12]})")


@click.command("report")
@click.argument("report_path", metavar="REPORT", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Folder for the figures and README.md [default: REPORT stem + _card].",
)
@click.option(
    "--per-query",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    default=None,
    help="The run's per-query JSONL, for the card's hardest-queries table.",
)
@click.option(
    "--allow-unsigned",
    is_flag=True,
    help="Render a report whose signature does not match its content; the card is marked UNVERIFIED.",
)
def report_command(report_path: Path, out: Path | None, per_query: Path | None, allow_unsigned: bool) -> None:
    """Render a report into PNG figures and a Markdown card."""
    from memrecall.data.jsonfile import read_json
    from memrecall.errors import ConfigError
    from memrecall.reports.card import write_report_card
    from memrecall.reports.content import shape_problem, verify

    report = read_json(report_path)
    problem = shape_problem(report)
    if problem:
        raise ConfigError(f"{report_path}: {problem}")
    unverified = not verify(report)
    if unverified and not allow_unsigned:
        raise ConfigError(
            f"{report_path}: the signature does not match the content (edited by hand?); "
            "--allow-unsigned renders it marked UNVERIFIED"
        )
    if unverified:
        click.echo(f"warning: {report_path}: signature does not match its content; card marked UNVERIFIED", err=True)
    out = out or report_path.with_name(report_path.stem + "_card")
    from memrecall.outputs import check_outputs

    check_outputs({"--out": out / "README.md"}, [report_path, per_query], {"--out": out})
    hardest = None
    if per_query is not None:
        from memrecall.cli.common import hardest_for
        from memrecall.scoring.per_query import read_per_query

        hardest = hardest_for(report, read_per_query(per_query))
    for path in write_report_card(report, out, hardest, unverified=unverified):
        click.echo(f"wrote {path}")
