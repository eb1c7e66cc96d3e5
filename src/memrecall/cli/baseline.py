"""`memrecall baseline`: the built-in systems on an EpiRec release."""

from __future__ import annotations

from pathlib import Path

import click

from memrecall.cli.common import finish_outputs, make_executor_from, new_plan, report_line, write_report
from memrecall.cli.options import (
    CACHE_DIR,
    DATA,
    MODEL,
    OUTPUT,
    QUIET,
    RANKINGS_FORMAT,
    Command,
    bootstrap_options,
    encoder_options,
    executor_options,
    metrics_option,
    output_options,
    sign_option,
)
from memrecall.io import announce
from memrecall.reports.rankings_files import rankings_suffix, write_rankings

DEFAULT_OUTPUT = Path("results/baselines.json")


@click.command(cls=Command)
@DATA
@click.option(
    "--strategies",
    default="recency,hashing,dense,fts5,hybrid",
    show_default=True,
    help="Comma-separated built-in systems to run, in this order.",
)
@OUTPUT
@click.option(
    "--export-rankings-dir",
    "export_rankings",
    type=click.Path(path_type=Path),
    default=None,
    help="Folder for one rankings file per strategy (STRATEGY.jsonl, or STRATEGY.trec with --rankings-format trec).",
)
@RANKINGS_FORMAT
@MODEL
@CACHE_DIR
@bootstrap_options
@metrics_option
@output_options
@executor_options
@encoder_options
@sign_option
@QUIET
def baseline(
    data,
    strategies,
    output,
    export_rankings,
    rankings_format,
    model,
    cache_dir,
    seed,
    resamples,
    metrics,
    per_query,
    report_dir,
    executor,
    ray_address,
    workers,
    device,
    encoder_backend,
    precision,
    sign_key,
    quiet,
) -> None:
    """Run reference retrievers on EpiRec; write a fingerprinted report (signed with --sign-key).

    A preset of `memrecall run epirec --system A,B,...`: the same pipeline and report, with baseline's
    removal ablations added where both sides ran. --data is an EpiRec release [default: the bundled v3];
    --output is the report JSON [default: results/baselines.json].
    """
    from memrecall.benchmarks import get_benchmark
    from memrecall.reports.exports.tables import print_table, results_table, systems_rows
    from memrecall.reports.notes import report_notes
    from memrecall.running.baseline import BaselineOptions, run_baseline
    from memrecall.scoring.policy import ScoringConfig
    from memrecall.systems.registry import parse_system_names

    benchmark = get_benchmark("epirec")
    names = parse_system_names(strategies)
    plan = new_plan(cache_dir, writes_cache=True)
    data = plan.input("--data", benchmark.resolve_data(data))
    output = plan.output("--output", output or DEFAULT_OUTPUT)
    per_query = plan.output("--per-query", per_query)
    export_rankings = plan.folder(
        "--export-rankings-dir", export_rankings, [name + rankings_suffix(rankings_format) for name in names]
    )
    report_dir = plan.card("--report-dir", report_dir)
    cache_dir = plan.stores[0].path
    plan.check()
    options = BaselineOptions(
        executor=make_executor_from(executor, workers, ray_address),
        device=device,
        backend=encoder_backend,
        precision=precision,
        data=data,
        strategies=names,
        model=model,
        cache=cache_dir,
        scoring=ScoringConfig(seed=seed, resamples=resamples, resample_unit=benchmark.resample_unit).with_requested(
            metrics
        ),
        show_progress=not quiet,
    )
    run = run_baseline(options)
    if export_rankings:
        for name, rankings in run.rankings.items():
            path = export_rankings / (name + rankings_suffix(rankings_format))
            write_rankings(path, run.task, rankings, benchmark.row_keys, rankings_format, name)
    run.report = write_report(output, run.report, sign_key)
    if not quiet:
        content = run.report["content"]
        title = f"{content['task']['name']} {content['task']['version']}: {content['task']['queries']} probes"
        metrics = content["scoring"]["metrics"]
        notes = report_notes(run.report["content"])
        print_table(results_table(title, systems_rows(run.report), metrics, ("system", "probe type"), notes))
    announce(report_line(output, run.report))
    if export_rankings:
        announce(f"rankings: {export_rankings}/<system>{rankings_suffix(rankings_format)}")
    finish_outputs(run.report, run.per_query, per_query, report_dir)
