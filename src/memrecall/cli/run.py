"""`memrecall run`: any system (built-in, registered or MODULE:ATTR) on any registered benchmark."""

from __future__ import annotations

import os
from pathlib import Path

import click

from memrecall.cli.common import (
    data_input,
    finish_outputs,
    load_options,
    make_executor_from,
    new_plan,
    plugin_inputs,
    report_line,
    write_report,
)
from memrecall.cli.options import (
    CACHE_DIR,
    DATA,
    EXPORT_OFFICIAL_LOG,
    EXPORT_RANKINGS,
    MODEL,
    NAME,
    OUTPUT,
    POPULATION,
    QUIET,
    RANKINGS_FORMAT,
    SYSTEM,
    Command,
    bootstrap_options,
    definition_options,
    encoder_options,
    executor_options,
    gold_options,
    metrics_option,
    output_options,
    runs_plugins,
    sign_option,
)
from memrecall.io import announce
from memrecall.reports.rankings_files import check_trec_ids, rankings_paths, rankings_suffix, write_rankings
from memrecall.running.boundary.worker_client import DEFAULT_TIMEOUT, check_pass_env


@runs_plugins
@click.command(cls=Command)
@click.argument("benchmark_name", metavar="BENCHMARK")
@SYSTEM
@DATA
@NAME
@OUTPUT
@EXPORT_RANKINGS
@RANKINGS_FORMAT
@POPULATION
@EXPORT_OFFICIAL_LOG
@MODEL
@CACHE_DIR
@bootstrap_options
@metrics_option
@definition_options
@gold_options
@output_options
@executor_options
@encoder_options
@sign_option
@click.option(
    "--in-process",
    is_flag=True,
    help="Debugging only: run the plug-in in this interpreter, not in its own worker process; the report says "
    "isolation: none, the leaderboard refuses it, and it cannot be signed.",
)
@click.option(
    "--worker-timeout",
    type=click.FloatRange(min=1.0),
    default=DEFAULT_TIMEOUT,
    show_default=True,
    help="Seconds a plug-in's worker may take over one step (import, prepare, one store) before it is stopped.",
)
@click.option(
    "--pass-env",
    multiple=True,
    metavar="NAME",
    help="An environment variable the plug-in's worker may see beyond the allow-list (repeat).",
)
@click.option(
    "--sandbox",
    type=click.Choice(["bwrap", "none"]),
    default="bwrap",
    show_default=True,
    help="bwrap: the plug-in's worker runs inside bubblewrap (refused where it cannot run); none: a plain worker "
    "process (isolation: process, which the leaderboard refuses).",
)
@click.option(
    "--allow-read",
    multiple=True,
    type=click.Path(exists=True, path_type=Path),
    metavar="PATH",
    help="A file or folder the sandboxed plug-in may read (repeat); recorded in signed content.",
)
@QUIET
def run(
    benchmark_name,
    system_spec,
    data,
    name,
    output,
    export_rankings,
    rankings_format,
    population,
    export_official_log,
    model,
    cache_dir,
    seed,
    resamples,
    metrics,
    unit,
    category5,
    gold,
    gold_file,
    per_query,
    report_dir,
    executor,
    ray_address,
    workers,
    device,
    encoder_backend,
    precision,
    sign_key,
    in_process,
    worker_timeout,
    pass_env,
    sandbox,
    allow_read,
    quiet,
) -> None:
    """Run systems on a benchmark; their rankings are checked like a rankings file.

    --output is the report JSON [default: results/BENCHMARK_SYSTEM.report.json]; --export-rankings FILE holds
    the rankings (FILE stem + .<system> + suffix for each of several systems).

    A plug-in (MODULE:ATTR, or a name another package registers) runs in its own worker process and sees
    opaque ids; memrecall's own systems run here. Several systems (a comma list) go into one report, each
    later one paired against the first.
    """
    default_output = os.path.abspath("results")  # fixed before any user code runs (it may change folder)
    from memrecall.api import run_systems
    from memrecall.benchmarks import get_benchmark
    from memrecall.encoding.encoders import SharedEncoder
    from memrecall.errors import comma_list
    from memrecall.outputs import name_part
    from memrecall.reports.exports.tables import print_table, results_table, systems_rows, table_metrics
    from memrecall.reports.notes import report_notes
    from memrecall.systems.registry import default_name, reserved_name_problem

    benchmark = get_benchmark(benchmark_name)
    specs = comma_list(system_spec, "--system")
    problem = reserved_name_problem(name, system_spec) if name else None
    if problem:
        raise click.BadParameter(problem, param_hint="--name")
    check_pass_env(pass_env)  # before any work, not when the worker starts
    if output is None and name is not None:
        name_part(name, "--name")  # a name no file name can be made from is refused before any work
    options = load_options(benchmark.name, category5, gold, gold_file)
    plan = new_plan(cache_dir, writes_cache=True)
    path = data_input(plan, benchmark.resolve_data(data))
    for spec in specs:
        plugin_inputs(plan, spec)
    chosen = [name] if name else [default_name(spec) for spec in specs]  # known before any plug-in code runs
    exports = {
        k: plan.output("--export-rankings", p)
        for k, p in rankings_paths(export_rankings, chosen, rankings_suffix(rankings_format)).items()
    }
    population = population or "headline"  # cli.applicable refuses it without a TREC export
    export_official_log = plan.output("--export-official-log", export_official_log)
    per_query = plan.output("--per-query", per_query)
    report_dir = plan.card("--report-dir", report_dir)
    cache_dir = plan.stores[0].path
    if output is not None:
        output = plan.output("--output", output)
    plan.check()
    encoder = SharedEncoder(model, cache_dir, device, backend=encoder_backend, precision=precision)
    if output is None:
        systems = "_".join(name_part(c, "the system name") for c in chosen)
        stem = f"{name_part(benchmark.name, 'BENCHMARK')}_{systems}"
        output = plan.output("--output", Path(default_output) / f"{stem}.report.json")
        plan.check()
    if not quiet:
        click.echo(f"loading {path}...", err=True)
    loaded = benchmark.load(path, **options)
    check_trec_ids(loaded.task, rankings_format if export_rankings else "jsonl")
    key_path = sign_key if isinstance(sign_key, (str, Path)) else None
    never_shown = (path, cache_dir, output, export_rankings, export_official_log, per_query, report_dir, key_path)
    where = make_executor_from(executor, workers, ray_address)
    encoder.attach(where)
    result = run_systems(
        specs,
        benchmark,
        names=[name] if name else None,
        seed=seed,
        resamples=resamples,
        show_progress=not quiet,
        loaded=loaded,
        executor=where,
        metrics=metrics,
        encoder=encoder,
        in_process=in_process,
        worker_timeout=worker_timeout,
        pass_env=pass_env,
        sandbox=sandbox,
        allow_read=allow_read,
        hidden=[p for p in never_shown if p],  # data, outputs, cache and key: never in a sandbox
        full_rankings=export_official_log is not None,  # an official log holds whole rankings, and k up to 50
        unit=unit,
    )
    result.report["env"].update(encoder.run_facts())  # unsigned: model origin, backend, texts encoded
    if not encoder.loaded and not encoder.backend.is_default:
        click.echo(
            f"warning: --encoder-backend {encoder.backend.name} --precision {encoder.backend.precision} was not used: "
            f"{', '.join(result.rankings)} never asked memrecall for an encoder (it ranks without one, or embeds "
            "through its own stack)",
            err=True,
        )
    report = write_report(output, result.report, sign_key)
    for (ran, rankings), file in zip(result.rankings.items(), exports.values(), strict=False):
        write_rankings(file, result.loaded.task, rankings, benchmark.row_keys, rankings_format, ran, population)
        announce(f"rankings: {file}")
    rankings = next(iter(result.rankings.values()))
    if export_official_log:
        from memrecall.io import atomic_text_writer
        from memrecall.reports.exports.official_log import export_official_log as export

        with atomic_text_writer(export_official_log) as out:
            count = export(path, result.loaded.task, rankings, out, turn=False)
        click.echo(f"official retrieval log: {export_official_log} ({count} questions)")
    if not quiet:
        content = report["content"]
        metrics = table_metrics(content)
        title = f"{content['task']['name']} {content['task']['version']}: {content['task']['queries']} queries"
        print_table(results_table(title, systems_rows(report), metrics, notes=report_notes(report["content"])))
    announce(report_line(output, report))
    finish_outputs(report, result.per_query, per_query, report_dir)
