"""`memrecall locomo`: retrieval on LoCoMo's real long conversations, at session or turn granularity."""

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
from memrecall.cli.options import gold_options


@click.command(cls=HarnessCommand)
@harness_options
@gold_options
def locomo(granularity: str | None, gold: str | None, gold_file: Path | None, **params) -> None:
    """Retrieval on LoCoMo's real long conversations.

    --output is the report JSON [default: results/locomo_GRANULARITY_report.json].
    """
    granularity = granularity or "session"
    from memrecall.benchmarks import get_benchmark
    from memrecall.cli.common import load_options

    benchmark = get_benchmark("locomo" if granularity == "session" else "locomo-turn")
    ks = _int_list(params["ks"])
    options = options_from(params, ks)
    check_harness_outputs(params, options.modes, Path(f"results/locomo_{granularity}_report.json"))
    options.cache = params["cache_dir"]
    loaded = benchmark.load(params["data"], **load_options(benchmark.name, None, gold, gold_file))
    counts = loaded.dataset["evidence_issue_counts"]
    if not params["quiet"]:
        click.echo("evidence ids handled: " + ", ".join(f"{k} {v}" for k, v in counts.items()), err=True)
    title = f"LoCoMo {granularity} retrieval: {len(loaded.task.queries)} questions (category 5 reported apart)"
    if "gold" in loaded.dataset:
        changed = loaded.dataset["gold"]["targets_changed"]
        title += f", audited gold ({changed} questions' targets changed)"
    run_and_print(benchmark, loaded, options, params, title)
