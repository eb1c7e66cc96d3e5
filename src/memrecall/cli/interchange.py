"""`memrecall qrels`: a benchmark's judgements as TREC qrels, for trec_eval, pytrec_eval, ir_measures or ranx."""

from __future__ import annotations

from pathlib import Path

import click

from memrecall.cli.common import new_plan
from memrecall.cli.rankings_export import population_option
from memrecall.io import announce


@click.command()
@click.argument("benchmark_name", metavar="BENCHMARK")
@click.option(
    "--data",
    type=click.Path(path_type=Path),
    default=None,
    help="Dataset file [default for epirec, epirec-v1, epirec-v2 and epirec-v3: the bundled release].",
)
@click.option(
    "--granularity",
    type=click.Choice(["session", "turn"]),
    default=None,
    help="longmemeval benchmarks: session or turn ids, as `memrecall longmemeval --granularity` ranks them.",
)
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), required=True, help="Qrels file to write.")
@population_option
def qrels(benchmark_name: str, data: Path | None, granularity: str | None, out: Path, population: str | None) -> None:
    """Write a benchmark's judgements as TREC qrels: `query_id 0 doc_id grade`, one line per target.

    By default the qrels hold the headline population, the queries a report's `overall` scores, and say
    what they left out; --population all or apart chooses another.
    """
    from memrecall.benchmarks import get_benchmark
    from memrecall.io import atomic_write_text
    from memrecall.reports.exports.interchange import left_out_text, qrels_text
    from memrecall.running.sweep import sweep_benchmarks

    (entry,) = sweep_benchmarks([benchmark_name], {benchmark_name: data} if data is not None else {})
    benchmark = get_benchmark(entry.benchmark)
    if granularity is not None and not benchmark.name.startswith("longmemeval"):
        raise click.BadParameter(
            "only for the longmemeval benchmarks (LoCoMo: locomo-turn)", param_hint="--granularity"
        )
    plan = new_plan()
    path = plan.input("--data", benchmark.resolve_data(entry.data))
    out = plan.output("--out", out)
    plan.check()
    options = {"granularity": granularity} if granularity else {}
    population = population or "headline"
    text, queries, judgements, left_out = qrels_text(benchmark.load(path, **options).task, population)
    atomic_write_text(out, text)
    left = f"; {left_out_text(left_out)}" if left_out else ""
    announce(f"qrels: {out} (the {population} population: {queries} queries, {judgements} judgements{left})")
