"""`memrecall longmemeval`: session- or turn-level retrieval on LongMemEval, offline, with the official log."""

from __future__ import annotations

from pathlib import Path

import click

from memrecall.cli.harness.options import (
    HarnessCommand,
    _int_list,
    check_harness_outputs,
    harness_options,
    options_from,
    run_and_print,
)
from memrecall.cli.options import EXPORT_OFFICIAL_LOG
from memrecall.io import announce


@click.command(cls=HarnessCommand)
@harness_options
@click.option(
    "--protocol",
    type=click.Choice(["perseus", "official"]),
    default="perseus",
    show_default=True,
    help="Session text and headline rules (see README).",
)
@click.option("--max-instances", type=click.IntRange(min=1), default=None, help="Only the first N questions.")
@EXPORT_OFFICIAL_LOG
def longmemeval(
    protocol: str, max_instances: int | None, granularity: str | None, export_official_log, **params
) -> None:
    """Session- or turn-level retrieval on LongMemEval, offline.

    --output is the report JSON [default: results/longmemeval_report.json].
    """
    granularity = granularity or "session"
    from memrecall.benchmarks import get_benchmark

    benchmark = get_benchmark("longmemeval" if protocol == "perseus" else "longmemeval-official")
    ks = _int_list(params["ks"])
    options = options_from(params, ks)
    logs = check_harness_outputs(params, options.modes, Path("results/longmemeval_report.json"), export_official_log)
    options.cache = params["cache_dir"]
    if not params["quiet"]:
        click.echo(f"loading {params['data']} ({protocol} protocol, {granularity} granularity)...", err=True)
    loaded = benchmark.load(params["data"], max_instances=max_instances, granularity=granularity)
    if loaded.dataset.get("oracle_split"):
        click.echo(
            "warning: oracle split: every haystack session is gold; retrieval is trivial, do not quote", err=True
        )
    headline = benchmark.headline(ks)
    title = (
        f"LongMemEval {granularity} retrieval, {protocol} protocol: {len(loaded.task.queries)} questions "
        f"(headline {headline[0].split('@')[0]})"
    )

    def write_logs(run) -> None:
        from memrecall.io import atomic_text_writer
        from memrecall.reports.exports.official_log import export_official_log as export

        for mode, path in logs.items():
            with atomic_text_writer(path) as out:
                count = export(params["data"], loaded.task, run.rankings[mode], out, granularity == "turn")
            announce(f"official retrieval log: {path} ({count} questions)")

    run_and_print(benchmark, loaded, options, params, title, write_logs)
