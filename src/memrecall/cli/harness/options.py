"""Dataset harness commands: longmemeval and locomo share options, running and printing."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import click

from memrecall.cli.common import make_executor_from
from memrecall.cli.options import (
    CACHE_DIR,
    DATA,
    DEFAULT_KS,
    DEFAULT_MODES,
    EXPORT_RANKINGS,
    GRANULARITY,
    MODEL,
    OUTPUT,
    POPULATION,
    QUIET,
    RANKINGS_FORMAT,
    Command,
    bootstrap_options,
    encoder_options,
    executor_options,
    metrics_option,
    output_options,
    sign_option,
    stack,
)
from memrecall.io import announce
from memrecall.reports.rankings_files import rankings_paths, rankings_suffix


def _int_list(text: str) -> list[int]:
    """`1,3,5,10` -> [1, 3, 5, 10], positive and increasing."""
    from memrecall.errors import comma_list

    try:
        values = [int(x) for x in comma_list(text, "--k", spaces=True)]
    except ValueError:
        raise click.BadParameter(f"{text!r} is not a comma-separated list of integers", param_hint="--k") from None
    if not values or any(v < 1 for v in values) or values != sorted(set(values)):
        raise click.BadParameter("give increasing positive integers, e.g. 1,3,5,10", param_hint="--k")
    return values


def _coverage_floor(text: str | None) -> tuple[int, float] | None:
    """`20:0.95` -> (20, 0.95)."""
    if text is None:
        return None
    try:
        k, frac = text.split(":")
        parsed = int(k), float(frac)
    except ValueError:
        raise click.BadParameter("expected K:FRAC, e.g. 20:0.95", param_hint="--min-coverage-at") from None
    if parsed[0] < 1 or not 0.0 <= parsed[1] <= 1.0:
        raise click.BadParameter("K must be >= 1 and FRAC within 0..1", param_hint="--min-coverage-at")
    return parsed


MODE_WORDS = {"fts5", "dense", "hybrid", "bm25-official", "auto"}


class HarnessCommand(Command):
    """Accepts `--modes fts5 dense hybrid` (space-separated) as well as `--modes fts5,dense,hybrid`."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        """Join the mode names that follow --modes into one comma-separated value."""
        joined: list[str] = []
        index = 0
        while index < len(args):
            joined.append(args[index])
            if args[index] == "--modes":
                names = []
                while index + 1 < len(args) and args[index + 1].split(",")[0] in MODE_WORDS:
                    index += 1
                    names.append(args[index])
                if names:
                    joined.append(",".join(names))
            index += 1
        return super().parse_args(ctx, joined)


def harness_options(function: Callable) -> Callable:
    """The options every dataset harness takes (--data is required by cli.options.REQUIRED)."""
    return stack(
        DATA,
        click.option(
            "--modes",
            multiple=True,
            default=(DEFAULT_MODES,),
            show_default=True,
            help="Search modes: fts5, dense, hybrid, bm25-official, auto (space- or comma-separated).",
        ),
        click.option("--k", "ks", default=DEFAULT_KS, show_default=True, help="Cut-offs for recall@k and nDCG@k."),
        OUTPUT,
        EXPORT_RANKINGS,
        RANKINGS_FORMAT,
        POPULATION,
        GRANULARITY,
        click.option(
            "--coverage-k",
            type=click.IntRange(min=1),
            default=None,
            help="Record gold coverage down to this depth (e.g. 50).",
        ),
        click.option("--min-coverage-at", default=None, help="K:FRAC: exit 1 when any mode's coverage@K < FRAC."),
        click.option(
            "--dense-policy",
            type=click.Choice(["windows", "truncate"]),
            default="windows",
            show_default=True,
            help="Long documents: best window of <= 160 words, or encoder truncation.",
        ),
        MODEL,
        CACHE_DIR,
        bootstrap_options,
        output_options,
        QUIET,
        metrics_option,
        sign_option,
        executor_options,
        encoder_options,
    )(function)


def run_and_print(benchmark, loaded, options, params: dict, title: str, after_run=None) -> None:
    """Run the harness, write report and rankings, print the table and the coverage verdict."""
    from memrecall.cli.common import all_per_query, finish_outputs, report_line, write_report
    from memrecall.reports.exports.tables import harness_rows, lead_columns, print_table, rank_metrics, results_table
    from memrecall.reports.notes import report_notes
    from memrecall.reports.rankings_files import check_trec_ids, write_rankings
    from memrecall.running.harness import coverage_failures, run_harness

    floor = _coverage_floor(params["min_coverage_at"])
    if floor and (options.coverage_depth or 0) < floor[0]:
        options.coverage_depth = max(floor[0], options.coverage_depth or 0)
    check_trec_ids(loaded.task, params["rankings_format"] if params["export_rankings"] else "jsonl")
    options.device = params["device"]
    options.executor = make_executor_from(params["executor"], params["workers"], params["ray_address"])
    run = run_harness(benchmark, loaded, options)
    output = params["output"]
    run.report = write_report(output, run.report, params["sign_key"])
    for mode, path in params["export_rankings"].items():
        chosen = params["rankings_format"], mode, params["population"]
        write_rankings(path, run.task, run.rankings[mode], benchmark.row_keys, *chosen)
        announce(f"rankings: {path}")
    if after_run is not None:
        after_run(run)
    if not params["quiet"]:
        content = run.report["content"]
        metrics = list(
            dict.fromkeys(
                [*content["headline_metrics"], *rank_metrics(content), *content["scoring"].get("requested_metrics", [])]
            )
        )
        metrics = lead_columns(content, metrics)
        print_table(results_table(title, harness_rows(run.report), metrics, ("mode", "group"), report_notes(content)))
        session_rows = harness_rows(run.report, key="turn_to_session_results")
        if session_rows:
            heading = "the same run at session level (turn -> session, LongMemEval's effective-k rule)"
            print_table(results_table(heading, session_rows, metrics, ("mode", "group")))
    announce(report_line(output, run.report))
    rows = all_per_query(loaded.task, run.rankings, options.ks)
    finish_outputs(run.report, rows, params["per_query"], params["report_dir"])
    if floor:
        failures = coverage_failures(run.report, *floor)
        for line in failures:
            click.echo(f"coverage below floor: {line}", err=True)
        if failures:
            sys.exit(1)


def check_harness_outputs(params: dict, modes, default_output: Path, logs: Path | None = None) -> dict[str, Path]:
    """Every output of a harness run in one plan, checked before loading the data; the paths made absolute.

    Updates `params` in place (data, output, per-query, report folder, cache) and returns the official-log
    files by mode (none when `logs` is None).
    """
    from memrecall.cli.common import new_plan

    plan = new_plan(params["cache_dir"], writes_cache=True)
    params["data"] = plan.input("--data", params["data"])
    params["output"] = plan.output("--output", params["output"] or default_output)
    exports = rankings_paths(params["export_rankings"], modes, rankings_suffix(params["rankings_format"]))
    params["export_rankings"] = {m: plan.output("--export-rankings", p) for m, p in exports.items()}
    params["population"] = params["population"] or "headline"  # cli.applicable refuses it without a TREC export
    official = {m: plan.output("--export-official-log", p) for m, p in rankings_paths(logs, modes).items()}
    params["per_query"] = plan.output("--per-query", params["per_query"])
    params["report_dir"] = plan.card("--report-dir", params["report_dir"])
    params["cache_dir"] = plan.stores[0].path
    plan.check()
    return official


def options_from(params: dict, ks: list[int]):
    """HarnessOptions from the shared command-line parameters."""
    from memrecall.running.harness import HarnessOptions, resolve_modes

    return HarnessOptions(
        modes=resolve_modes(split_modes(params["modes"]), params["model"], params["encoder_backend"]),
        ks=ks,
        coverage_depth=params["coverage_k"],
        dense_policy=params["dense_policy"],
        model=params["model"],
        cache=params["cache_dir"],
        show_progress=not params["quiet"],
        seed=params["seed"],
        resamples=params["resamples"],
        metrics=params["metrics"],
        backend=params["encoder_backend"],
        precision=params["precision"],
    )


def split_modes(values: tuple[str, ...]) -> list[str]:
    """Flatten repeated and comma- or space-separated --modes values (an empty one is refused)."""
    from memrecall.errors import comma_list

    return comma_list(",".join(values), "--modes", spaces=True)
