"""`memrecall evaluate`, `compare` and `report`: score rankings files, pair systems, render a report."""

from __future__ import annotations

from pathlib import Path

import click

from memrecall.cli.common import data_input, finish_outputs, load_options, new_plan, report_line, write_report
from memrecall.cli.options import (
    BENCHMARK,
    DATA,
    NAME,
    OUTPUT,
    QUIET,
    Command,
    bootstrap_options,
    definition_options,
    metrics_option,
    output_options,
    sign_option,
)
from memrecall.io import announce

DEFAULT_COMPARISON = Path("results/comparison.report.json")


def _score_and_print(
    files, benchmark_name, data, names, seed, resamples, output, per_query, report_dir, key, quiet=False, extra=None
) -> None:
    """Score one or more rankings files with the benchmark's policy; print results and paired differences.

    `extra` holds `metrics` (names added beside the headline), `tables` ({"csv": path, "latex": path}),
    and the definition (`unit`, `category5`).
    """
    from memrecall.api import evaluate_rankings
    from memrecall.benchmarks import get_benchmark
    from memrecall.reports.exports.tables import (
        comparison_table,
        print_table,
        results_table,
        systems_rows,
        table_metrics,
    )
    from memrecall.reports.notes import report_notes
    from memrecall.scoring.paired import comparison_rows

    benchmark = get_benchmark(benchmark_name or "epirec")
    extra = extra or {}
    options = load_options(benchmark.name, extra.get("category5"))
    plan = new_plan()
    files = [plan.input("RANKINGS", path) for path in files]
    data = data_input(plan, benchmark.resolve_data(data))
    output = plan.output("--output", output)
    per_query = plan.output("--per-query", per_query)
    report_dir = plan.card("--report-dir", report_dir)
    tables = {kind: plan.output(f"--{kind}", path) for kind, path in extra.get("tables", {}).items() if path}
    plan.check()
    loaded = benchmark.load(benchmark.resolve_data(data), **options) if options else None
    result = evaluate_rankings(
        files,
        benchmark,
        data=data,
        names=names,
        seed=seed,
        resamples=resamples,
        loaded=loaded,
        metrics=extra.get("metrics", ()),
        unit=extra.get("unit"),
    )
    report = result.report
    for source, note in report["env"].get("formats", {}).items():
        click.echo(f"{source}: read as {note}", err=True)
    report = write_report(output, result.report, key)
    content = report["content"]
    metrics = table_metrics(content)
    title = f"{content['task']['name']} {content['task']['version']}: {content['task']['queries']} queries"
    if not quiet:
        print_table(results_table(title, systems_rows(report), metrics, notes=report_notes(report["content"])))
    first = content["system_order"][0]
    for comparison in content.get("comparisons", []) if not quiet else []:
        rows = comparison_rows(comparison["by_group"], metrics)
        heading = f"{comparison['system']} minus {first} (paired; p Holm-adjusted over {len(content['comparisons'])})"
        print_table(comparison_table(heading, rows, metrics))
    announce(report_line(output, report))
    write_tables(report, tables)
    finish_outputs(report, result.per_query, per_query, report_dir)


def write_tables(report: dict, tables: dict) -> None:
    """The report's results (and paired differences) as CSV and LaTeX tables, where asked."""
    if not tables:
        return
    from memrecall.io import atomic_write_text
    from memrecall.reports.exports.frames import COLUMNS, PAIRED, table_rows
    from memrecall.reports.exports.table_text import csv_table, latex_table

    rows = table_rows(report)
    header = [*COLUMNS, *PAIRED]
    for kind, path in tables.items():
        atomic_write_text(path, csv_table(header, rows) if kind == "csv" else latex_table(header, rows, 4))
        announce(f"{kind} table: {path} ({len(rows)} rows)")


def _names(text: str | None) -> list[str] | None:
    """`a,b,c` -> ['a', 'b', 'c'] (None when --names is not given; an empty name is refused)."""
    from memrecall.errors import comma_list

    return None if text is None else comma_list(text, "--names", unique=False)  # rankings_files refuses repeats


@click.command(cls=Command)
@click.argument("rankings", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@BENCHMARK
@DATA
@NAME
@OUTPUT
@click.option(
    "--compare",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    default=None,
    help="A second system's rankings, paired against the first (see also `memrecall compare`).",
)
@bootstrap_options
@metrics_option
@definition_options
@output_options
@QUIET
@sign_option
def evaluate(
    rankings,
    benchmark_name,
    data,
    name,
    output,
    compare,
    seed,
    resamples,
    metrics,
    unit,
    category5,
    per_query,
    report_dir,
    quiet,
    sign_key,
) -> None:
    """Score a rankings file (JSONL or TREC run) strictly.

    --output is the report JSON [default: RANKINGS with suffix .report.json].
    """
    files = [rankings, compare] if compare else [rankings]
    names = [name or rankings.stem, compare.stem] if compare else ([name] if name else None)
    output = output or rankings.with_suffix(".report.json")
    _score_and_print(
        files,
        benchmark_name,
        data,
        names,
        seed,
        resamples,
        output,
        per_query,
        report_dir,
        sign_key,
        quiet,
        {"metrics": metrics, "unit": unit, "category5": category5},
    )


@click.command(cls=Command)
@click.argument("runs", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--names", default=None, help="Comma-separated system names, one per run [default: file stems].")
@BENCHMARK
@DATA
@OUTPUT
@click.option(
    "--allow-mismatch",
    is_flag=True,
    help="Compare reports whose comparability manifests differ, labelled 'not like-for-like'.",
)
@click.option(
    "--csv",
    "csv_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Also write the results and paired differences as a CSV table.",
)
@click.option(
    "--latex",
    "latex_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Also write them as a LaTeX tabular (booktabs).",
)
@bootstrap_options
@metrics_option
@definition_options
@output_options
@QUIET
@sign_option
def compare(
    runs,
    names,
    benchmark_name,
    data,
    output,
    allow_mismatch,
    csv_path,
    latex_path,
    seed,
    resamples,
    metrics,
    unit,
    category5,
    per_query,
    report_dir,
    quiet,
    sign_key,
) -> None:
    """Compare systems: rankings files (paired, Holm-adjusted) or reports (verified, manifests checked).

    --output is the comparison's report JSON [default: results/comparison.report.json].
    """
    if len(runs) < 2:
        raise click.BadParameter("give at least two rankings files or reports", param_hint="RUNS")
    from memrecall.data.formats import input_kind, refuse_kinds

    output = output or DEFAULT_COMPARISON

    kinds = [input_kind(path) for path in runs]
    if "report" in kinds:
        wanted = "all reports (compared as they were scored) or all rankings files (paired)"
        refuse_kinds([("", path) for path in runs], kinds, ("report",), wanted)
        _compare_reports(runs, output, allow_mismatch, sign_key, quiet)
        return
    extra = {"metrics": metrics, "tables": {"csv": csv_path, "latex": latex_path}, "unit": unit, "category5": category5}
    _score_and_print(
        runs,
        benchmark_name,
        data,
        _names(names),
        seed,
        resamples,
        output,
        per_query,
        report_dir,
        sign_key,
        quiet,
        extra,
    )


def _compare_reports(paths, output: Path, allow_mismatch: bool, sign_key, quiet: bool = False) -> None:
    """Check the comparability manifests, print every mismatched field and each report's headline values."""
    from memrecall.reports.compare_reports import compare_reports

    plan = new_plan()
    paths = [plan.input("RUNS", path) for path in paths]
    output = plan.output("--output", output)
    plan.check()
    from memrecall.errors import ConfigError, short

    report = compare_reports(list(paths), lambda line: click.echo(f"note: {line}"))
    content = report["content"]
    for d in content["mismatches"]:
        click.echo(f"differs: {d['field']}: {short(repr(d['first']))} vs {short(repr(d['this']))} ({d['report']})")
    if content["mismatches"] and not allow_mismatch:
        raise ConfigError(
            f"not like-for-like: {len(content['mismatches'])} comparability field(s) differ (listed above); "
            "--allow-mismatch compares them anyway, labelled not like-for-like"
        )
    click.echo(f"comparison: {content['label']}")
    for entry in content["reports"] if not quiet else []:
        for name, values in entry["headline"].items():
            cells = ", ".join(f"{m} {v:.3f}" for m, v in values.items())
            click.echo(f"  {entry['path_name']}: {name}: {cells}")
    report = write_report(output, report, sign_key)
    announce(report_line(output, report))
