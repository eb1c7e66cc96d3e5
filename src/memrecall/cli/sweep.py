"""`memrecall sweep`: a list of systems on a list of benchmarks, one report and rankings file per pair."""

from __future__ import annotations

import tempfile
from pathlib import Path

import click

from memrecall.cli.options import (
    BENCHMARK_DATA,
    MODEL,
    OUT,
    QUIET,
    RANKINGS_FORMAT,
    Command,
    benchmark_names,
    bootstrap_options,
    encoder_options,
    metrics_option,
)


@click.command(cls=Command)
@click.option(
    "--systems", "systems_text", required=True, help="Comma list: built-in or registered names, or MODULE:ATTR."
)
@click.option(
    "--benchmarks",
    "benchmarks_text",
    required=True,
    help=f"Comma list of benchmarks: {benchmark_names()}, or one an installed package registers.",
)
@BENCHMARK_DATA
@OUT
@MODEL
@click.option(
    "--cache-root",
    "cache_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Embedding caches the pairs share, one per benchmark (DIR/BENCHMARK): each text is encoded once per "
    "benchmark, not once per pair, so a benchmark's first pair is cold and the rest warm (each report's env "
    "says how many texts it encoded) [default: an empty cache per pair].",
)
@RANKINGS_FORMAT
@bootstrap_options
@metrics_option
@encoder_options
@QUIET
def sweep(
    systems_text,
    benchmarks_text,
    data_values,
    out,
    model,
    cache_dir,
    rankings_format,
    seed,
    resamples,
    metrics,
    encoder_backend,
    precision,
    quiet,
) -> None:
    """Run every system on every benchmark through `memrecall run`; a failing pair is reported and skipped.

    Exit code 0 when every pair ran, 1 when any failed (its outputs are not written; the others are).
    Into the folder --out: OUT/BENCHMARK/SYSTEM.{report.json,rankings.jsonl,scores.jsonl} and
    OUT/summary.{md,csv,tex}; with --model, OUT/BENCHMARK/SYSTEM.MODEL.*. --benchmark-data is needed for every
    benchmark but epirec and its release aliases.
    """
    from memrecall.cli.common import data_input, new_plan
    from memrecall.errors import UsageError, comma_list
    from memrecall.io import atomic_write_text
    from memrecall.reports.exports.sweep_summary import csv_summary, latex_summary, markdown_summary, summary_rows
    from memrecall.running.sweep import output_paths, parse_data_options, sweep_benchmarks
    from memrecall.running.sweep import sweep as run_sweep
    from memrecall.systems.registry import spec_problem

    systems = comma_list(systems_text, "--systems")
    unknown = next((problem for problem in map(spec_problem, systems) if problem), None)
    if unknown is not None:
        raise UsageError(f"--systems: {unknown}")
    encoder = model_label(model)
    entries = sweep_benchmarks(comma_list(benchmarks_text, "--benchmarks"), parse_data_options(data_values))
    planned = {
        f"{e.name}/{s}": list(output_paths(out, s, e.name, rankings_format, encoder).values())
        for e in entries
        for s in systems
    }
    summary = {kind: out / f"summary.{kind}" for kind in ("md", "csv", "tex")}
    plan = new_plan(cache_dir, writes_cache=True) if cache_dir else new_plan()
    for entry in entries:
        data_input(plan, entry.data)
    for label, paths in planned.items():
        for path in paths:
            plan.output(label, path)
    for kind, path in summary.items():
        plan.output(f"summary.{kind}", path)
    plan.check()
    extra = ["--metrics", ",".join(metrics)] if metrics else []
    extra += ["--encoder-backend", encoder_backend, "--precision", precision]
    extra += ["--model", model] if model else []
    say = (lambda _: None) if quiet else click.echo
    with tempfile.TemporaryDirectory(prefix="memrecall-sweep-cache-") as seed_folder:
        cache_seed = onnx_cache_seed(Path(seed_folder), precision) if encoder_backend == "onnx" else None
        shared = plan.stores[0].path if cache_dir else None
        outcomes = run_sweep(
            systems, entries, out, seed, resamples, extra, say, rankings_format, cache_seed, shared, encoder, not quiet
        )
    rows = summary_rows(outcomes)
    atomic_write_text(summary["md"], markdown_summary(rows))
    atomic_write_text(summary["csv"], csv_summary(rows))
    atomic_write_text(summary["tex"], latex_summary(rows))
    failed = [o for o in outcomes if o.report is None]
    click.echo(f"sweep: {len(outcomes) - len(failed)} of {len(outcomes)} pairs ran; summary: {summary['md']}")
    for outcome in failed:
        click.echo(f"failed: {outcome.entry} / {outcome.system}: {outcome.error}", err=True)
    if failed:
        raise SystemExit(1)


def model_label(model: str | None) -> str | None:
    """The encoder part of output names for --model: its registry name, or its folder's name; None without it."""
    if not model:
        return None
    from memrecall.encoding.sources import resolve_model

    source = resolve_model(model)  # a name whose folder is missing is one line naming the fetch command
    return source.name or Path(source.location).name


def onnx_cache_seed(folder: Path, precision: str) -> Path:
    """A cache folder holding the ONNX export of the model the pairs will load, made once for the sweep."""
    from memrecall.encoding.encoders import export_for

    export_for(folder, precision)
    return folder
