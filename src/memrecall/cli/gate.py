"""`memrecall gate`: fail CI when a candidate is worse than the committed baseline by more than a margin.

Exit 0 pass, 1 fail (a regression was seen), 2 cannot decide: not comparable with the baseline, too few queries
to see a drop of the margin, or any input the gate could not read (so exit 1 always means a regression).
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from memrecall.cli.options import DATA, METRIC, OUTPUT, SYSTEM, Command, metric_list

DEFAULT_PAGE = Path("results/gate_diff.html")
PREVIOUS = ".previous"


@click.command(cls=Command)
@click.option(
    "--baseline",
    required=True,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="The committed baseline: a one-system NAME.report.json(.gz), its rankings beside it.",
)
@click.option(
    "--baseline-rankings",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    default=None,
    help="The baseline's rankings [default: NAME.rankings.jsonl(.gz) beside it].",
)
@SYSTEM
@click.option(
    "--candidate",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    default=None,
    help="The candidate as a report instead, its rankings beside it or in --candidate-rankings.",
)
@click.option("--candidate-rankings", type=click.Path(exists=True, dir_okay=False, path_type=Path), default=None)
@DATA
@click.option(
    "--config",
    "config",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    default=None,
    help="A TOML file of [[guard]] tables (metric, stratum, margin) and optionally sample and seed.",
)
@METRIC
@click.option(
    "--stratum",
    "strata",
    multiple=True,
    help="Where to guard it: overall (the default) or KEY=VALUE[,KEY=VALUE], e.g. "
    "probe_type=reflective_implicit (repeat).",
)
@click.option("--margin", default=None, help="The drop each --metric may show at most, e.g. 0.02.")
@click.option(
    "--sample",
    type=click.IntRange(min=1),
    default=None,
    help="Gate on a stratified subset of this many queries (fast CI); power is stated for it.",
)
@click.option("--sample-seed", type=click.IntRange(min=0), default=None, help="The sample's seed [default: 0].")
@OUTPUT
@click.option(
    "--diff-page",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help=f"Where a fail writes its diff page [default: {DEFAULT_PAGE}].",
)
@click.option(
    "--update-baseline",
    is_flag=True,
    help="Make the candidate the new baseline (the old files are kept as NAME.previous.*).",
)
def gate(**options) -> None:
    """Non-inferiority gate: per guarded metric and stratum, the paired difference candidate - baseline and its
    one-sided 95% lower bound (bootstrap, whole stores where the benchmark clusters); pass when every bound is
    above -margin and the queries can detect the margin at power 0.8.

    --system is the candidate to run with the baseline's benchmark, data and settings; --data is the baseline's
    data; --output, when given, holds the result as JSON."""
    from memrecall.errors import MemrecallError

    try:
        code = _gate(**options)
    except MemrecallError as exc:
        click.echo(f"error: {exc}", err=True)
        code = 2
    sys.exit(code)


def _gate(
    baseline,
    baseline_rankings,
    system_spec,
    candidate,
    candidate_rankings,
    data,
    config,
    metrics,
    strata,
    margin,
    sample,
    sample_seed,
    output,
    diff_page,
    update_baseline,
) -> int:
    """Plan the outputs, decide, print the screen, write what was asked; the exit code."""
    from memrecall.api import gate as run_gate
    from memrecall.cli.common import data_input, new_plan
    from memrecall.io import atomic_write_text, write_json
    from memrecall.reports.diff.page import diff_page as render_page
    from memrecall.reports.gate.guards import guards_from_options
    from memrecall.reports.gate.screen import gate_lines

    guards = config if config is not None else guards_from_options(metric_list(metrics), strata, margin)
    plan = new_plan()
    baseline = plan.input("--baseline", baseline)
    given = [plan.input("--baseline-rankings", baseline_rankings)] if baseline_rankings else []
    candidate = plan.input("--candidate", candidate) if candidate else None
    cand_given = [plan.input("--candidate-rankings", candidate_rankings)] if candidate_rankings else []
    data = data_input(plan, data)
    output = plan.output("--output", output) if output is not None else None
    page = plan.output("--diff-page", diff_page or DEFAULT_PAGE)
    swaps = _baseline_swaps(plan, baseline, given, candidate, cand_given) if update_baseline else []
    plan.check()
    result = run_gate(
        baseline,
        candidate or system_spec,
        guards,
        data=data,
        baseline_rankings=given,
        candidate_rankings=cand_given,
        sample=sample,
        seed=sample_seed,
    )
    written = result.diff is not None
    for line in gate_lines(result, str(page) if written else None):
        click.echo(line)
    if result.refused:  # not comparable: like any input the gate cannot use, nothing is written
        return result.exit_code
    if written:
        atomic_write_text(page, render_page(result.diff))
    if output is not None:
        write_json(output, result.as_dict())
    if swaps:
        _replace_baseline(swaps)
    return result.exit_code


def _baseline_swaps(
    plan, baseline: Path, given: list[Path], candidate: Path | None, cand_given: list[Path]
) -> list[tuple[Path, Path, Path]]:
    """(baseline file, where it is kept, the candidate file that replaces it), report then rankings; checked first."""
    from memrecall.errors import UsageError
    from memrecall.reports.rankings_files import rankings_beside

    old_rankings = given or rankings_beside(baseline)
    new_rankings = cand_given or rankings_beside(candidate)
    if len(old_rankings) != 1 or len(new_rankings) != 1:
        raise UsageError("--update-baseline: the baseline and the candidate need one rankings file each")
    swaps = []
    for old, new in ((baseline, candidate), (old_rankings[0], new_rankings[0])):
        stem, _, suffix = old.name.partition(".")
        swaps.append((old, plan.output("--update-baseline", old.with_name(f"{stem}{PREVIOUS}.{suffix}")), new))
    return swaps


def _replace_baseline(swaps: list[tuple[Path, Path, Path]]) -> None:
    """Keep the baseline's report and rankings as NAME.previous.*, and put the candidate's in their place (gzip
    when the baseline's name ends in .gz, plain otherwise, whichever way the candidate was stored)."""
    from memrecall.data.compressed import inflated, is_gzip
    from memrecall.io import atomic_write_bytes, deflated

    for old, kept, new in swaps:
        atomic_write_bytes(kept, old.read_bytes())
        data, packed = new.read_bytes(), old.name.endswith(".gz")
        if packed != is_gzip(data):
            data = deflated(data) if packed else inflated(new, data)
        atomic_write_bytes(old, data)
    click.echo(f"baseline: {swaps[0][0]} replaced; the old one is kept beside it as *{PREVIOUS}.*")
