"""`memrecall qrels`: a benchmark's judgements as TREC qrels, for trec_eval, pytrec_eval, ir_measures or ranx."""

from __future__ import annotations

from pathlib import Path

import click

from memrecall.cli.common import new_plan
from memrecall.cli.options import DATA, GRANULARITY, OUTPUT, POPULATION, Command
from memrecall.io import announce


@click.command(cls=Command)
@click.argument("benchmark_name", metavar="BENCHMARK")
@DATA
@GRANULARITY
@OUTPUT
@POPULATION
def qrels(
    benchmark_name: str, data: Path | None, granularity: str | None, output: Path, population: str | None
) -> None:
    """Write a benchmark's judgements as TREC qrels: `query_id 0 doc_id grade`, one line per target.

    By default the qrels hold the headline population, the queries a report's `overall` scores, and say
    what they left out; --population all or apart chooses another. --output is the qrels file; --granularity
    (longmemeval benchmarks) writes session or turn ids, as `memrecall longmemeval --granularity` ranks them.
    """
    from memrecall.benchmarks import get_benchmark
    from memrecall.io import atomic_write_text
    from memrecall.reports.exports.trec import left_out_text, qrels_text
    from memrecall.running.sweep import sweep_benchmarks

    (entry,) = sweep_benchmarks([benchmark_name], {benchmark_name: data} if data is not None else {})
    benchmark = get_benchmark(entry.benchmark)
    plan = new_plan()
    path = plan.input("--data", benchmark.resolve_data(entry.data))
    output = plan.output("--output", output)
    plan.check()
    options = {"granularity": granularity} if granularity else {}
    population = population or "headline"
    text, queries, judgements, left_out = qrels_text(benchmark.load(path, **options).task, population)
    atomic_write_text(output, text)
    left = f"; {left_out_text(left_out)}" if left_out else ""
    announce(f"qrels: {output} (the {population} population: {queries} queries, {judgements} judgements{left})")
