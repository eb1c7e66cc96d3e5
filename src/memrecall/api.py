"""The Python API: run a system on a benchmark, or score rankings, and get the signed report back."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from memrecall.benchmarks import Benchmark, Loaded, get_benchmark
from memrecall.data.granularity import session_rankings
from memrecall.errors import ConfigError
from memrecall.reports.rankings_files import checked_runs
from memrecall.reports.system_report import systems_report
from memrecall.running.boundary.identity import RANKINGS_FILE
from memrecall.running.boundary.worker_client import DEFAULT_TIMEOUT
from memrecall.running.runner import Result, as_benchmark, at_unit, kind_of, run_systems
from memrecall.scoring.metrics import DEFAULT_RESAMPLES
from memrecall.scoring.per_query import per_query_rows

__all__ = ["Result", "evaluate_rankings", "run_system", "run_systems"]


def _text_list(values: Iterable[str] | None, what: str) -> list[str] | None:
    """A sequence of non-empty strings given as `what`, read once (None stays None); one str is refused."""
    if values is None:
        return None
    if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        raise ConfigError(f"{what} must be a list of str, e.g. ['a', 'b'], got {kind_of(values)}")
    items = list(values)
    bad = next((i for i, v in enumerate(items) if not isinstance(v, str) or not v), None)
    if bad is not None:
        raise ConfigError(f"{what}[{bad}] must be a non-empty str, got {kind_of(items[bad])}")
    return items


def _sources(rows: object) -> list:
    """The rankings sources `rows` names: a file, a list of files, or one run as row dicts (any iterable, read once)."""
    if isinstance(rows, (str, Path)):
        if not str(rows):
            raise ConfigError("rows is an empty path; pass a rankings file, a list of files, or row dicts")
        return [rows]
    if isinstance(rows, (bytes, dict)) or not isinstance(rows, Iterable):
        raise ConfigError(f"rows must be a rankings file path, a list of paths, or row dicts, got {kind_of(rows)}")
    items = list(rows)
    if not items:
        raise ConfigError("rows is empty; pass a rankings file, a list of files, or a run's row dicts")
    if all(isinstance(item, dict) for item in items):
        return [items]
    bad = next((i for i, item in enumerate(items) if not isinstance(item, (str, Path)) or not str(item)), None)
    if bad is not None:
        raise ConfigError(f"rows[{bad}] must be a file path (or every item a row dict), got {kind_of(items[bad])}")
    return items


def _metric_names(metrics: object) -> str | list[str]:
    """A metrics argument: a comma list (str) or a list of names, read once."""
    return metrics if isinstance(metrics, str) else (_text_list(metrics, "metrics") or [])


def _data(data: object) -> Path | None:
    """A data argument as a Path (None for the benchmark's default)."""
    if data is not None and not isinstance(data, (str, Path)):
        raise ConfigError(f"data must be a file or folder path (str or Path) or None, got {kind_of(data)}")
    return Path(data) if data else None


def run_system(
    system: Any,
    benchmark: str | Benchmark,
    *,
    data: str | Path | None = None,
    name: str | None = None,
    seed: int = 0,
    resamples: int = DEFAULT_RESAMPLES,
    show_progress: bool = False,
    loaded: Loaded | None = None,
    executor: Any = None,
    metrics: Sequence[str] = (),
    encoder: Any = None,
    in_process: bool = False,
    worker_timeout: float = DEFAULT_TIMEOUT,
    pass_env: Sequence[str] = (),
    full_rankings: bool = False,
    unit: str | None = None,
    sandbox: str = "bwrap",
    allow_read: Sequence[str | Path] = (),
    hidden: Sequence[str | Path] = (),
) -> Result:
    """Run a system on a benchmark; its rankings are checked strictly, and the report names the code that ran.

    `system` is a spec (a built-in or registered name, or MODULE:ATTR) or an object with index(documents)
    and rank(query). memrecall's own systems run here with the real ids. A plug-in spec runs in a spawned
    worker process that sees opaque ids (`in_process=True` shares this interpreter, for debugging); a plug-in
    object runs in this interpreter, on opaque ids, and its report says `isolation: none`.
    `executor` (memrecall.running.executors.make_executor("ray", workers)) decides where ranking runs; the
    results are the same. `metrics` (names such as map or precision@5) are scored beside the benchmark's own.
    `encoder` is the SharedEncoder built-in systems are given: when the system used it, the signed entry
    names it (model, weights sha256, backend). Systems are asked for the top `depth` of each store (see
    memrecall.scoring.policy.scoring_depth); `full_rankings=True` asks for whole stores instead, as an
    official LongMemEval log needs (the numbers are the same: scoring reads the same depth).
    `unit="session"` scores turn rankings at session level (see memrecall.data.granularity); systems are
    then asked for whole stores, so every ranking reaches k distinct sessions. Queries an adapter answered
    with NotMeasurable (nothing it returned maps back to an id) are left out of the scored population and
    listed with their reasons under the report's `dataset.not_measurable` (see memrecall.data.measured).
    A plug-in spec's worker runs inside bubblewrap (`sandbox="bwrap"`, refused where it cannot run) or not
    (`sandbox="none"`); `allow_read` adds folders it may read, recorded; `hidden` names paths it must never
    see (the data file and the embedding cache are always hidden).
    """
    return run_systems(
        [system],
        benchmark,
        data=data,
        names=None if name is None else [name],
        seed=seed,
        resamples=resamples,
        show_progress=show_progress,
        loaded=loaded,
        executor=executor,
        metrics=metrics,
        encoder=encoder,
        in_process=in_process,
        worker_timeout=worker_timeout,
        pass_env=pass_env,
        full_rankings=full_rankings,
        unit=unit,
        sandbox=sandbox,
        allow_read=allow_read,
        hidden=hidden,
    )


def evaluate_rankings(
    rows: str | Path | Sequence[dict] | Sequence[str | Path],
    benchmark: str | Benchmark,
    *,
    data: str | Path | None = None,
    names: Sequence[str] | None = None,
    seed: int = 0,
    resamples: int = DEFAULT_RESAMPLES,
    loaded: Loaded | None = None,
    gold_label_users: Sequence[str] = (),
    metrics: Sequence[str] = (),
    unit: str | None = None,
) -> Result:
    """Score rankings (a file, several files, or a list of row dicts) strictly; several are paired against the first.

    `gold_label_users` names the systems that read authored labels (oracles); their entries say so.
    `metrics` (names such as map or precision@5) are scored beside the benchmark's own.
    `unit="session"` scores turn rankings at session level (see memrecall.data.granularity).
    """
    bench = as_benchmark(benchmark)
    sources, names = _sources(rows), _text_list(names, "names")
    users = _text_list(gold_label_users, "gold_label_users") or []
    scoring = bench.scoring(seed=seed, resamples=resamples, metrics=_metric_names(metrics))
    if loaded is not None and not isinstance(loaded, Loaded):
        raise ConfigError(f"loaded must be a Loaded (Benchmark.load's result) or None, got {kind_of(loaded)}")
    loaded = loaded or bench.load(bench.resolve_data(_data(data)))
    scored = at_unit(loaded, unit)  # refused before any file is read
    runs, files, notes = checked_runs(sources, names, bench, loaded)
    if unit is not None:
        runs = [(name, session_rankings(loaded.task, r)) for name, r in runs]
    env = {"rankings_files": files, **({"formats": notes} if notes else {})} if files else {}
    identities = {name: RANKINGS_FILE for name, _ in runs}
    report = systems_report(bench, scored, runs, scoring, env, frozenset(users), None, identities)
    per_query = [row for name, r in runs for row in per_query_rows(scored.task, r, name, bench.ks)]
    return Result(report, dict(runs), per_query, scored, bench)


def gate(
    baseline: str | Path,
    candidate: Any,
    guards: str | Path | Sequence = (),
    *,
    data: str | Path | None = None,
    baseline_rankings: Sequence[str | Path] = (),
    candidate_rankings: Sequence[str | Path] = (),
    sample: int | None = None,
    seed: int | None = None,
    encoder: Any = None,
    show_progress: bool = False,
):
    """Gate a candidate against a committed baseline report (with its rankings beside it or in `baseline_rankings`).

    `candidate` is a report path (.json, with `candidate_rankings` or its rankings beside it), or a system (a
    spec or an object) that is run here with the baseline's benchmark, data, loader options, seed, resamples and
    added metrics. `guards` is a TOML file or a list of Guards or (metric, stratum, margin) tuples; `sample`
    and `seed` draw a stratified subset. Returns a GateResult: verdict, exit_code (0 pass, 1 fail, 2 cannot
    decide), each guard's numbers, and on a fail the queries that broke most and the diff's content.
    """
    from memrecall.reports.gate.decision import GateResult, candidate_side, read_baseline, refusal
    from memrecall.reports.gate.guards import gate_settings
    from memrecall.reports.gate.verdict import UNDECIDED

    settings = gate_settings(guards, sample, seed)
    for what, value in (("baseline", baseline), *(("rankings", p) for p in [*baseline_rankings, *candidate_rankings])):
        if not isinstance(value, (str, Path)):
            raise ConfigError(f"{what} must be a report or rankings file path (str or Path), got {kind_of(value)}")
    report = read_baseline(Path(baseline))
    content = report["content"]
    given = [Path(p) for p in baseline_rankings]
    if isinstance(candidate, Path) or (isinstance(candidate, str) and candidate.endswith(".json")):
        side = candidate_side(Path(baseline), report, Path(candidate), [Path(p) for p in candidate_rankings], data)
        return side if isinstance(side, GateResult) else decide_gate(baseline, given, side, settings, data)
    from memrecall.reports.per_query_binding import report_benchmark
    from memrecall.reports.proof.replay import dataset_options

    bench = get_benchmark(report_benchmark(content))
    loaded = bench.load(bench.resolve_data(_data(data)), **dataset_options(bench, content))
    recorded = content["task"].get("source_sha256")
    if loaded.task.source_sha256 != recorded:
        return GateResult(
            UNDECIDED,
            reason=f"{data}: not comparable with {baseline}: split.data_sha256 is "
            f"'{loaded.task.source_sha256}', not '{recorded}'",
        )
    bootstrap = content["scoring"]["bootstrap"]
    run = run_system(
        candidate,
        bench,
        seed=bootstrap["seed"],
        resamples=bootstrap["resamples"],
        show_progress=show_progress,
        loaded=loaded,
        metrics=content["scoring"].get("requested_metrics", ()),
        encoder=encoder,
        unit=(content.get("dataset") or {}).get("unit"),
    )
    refused = refusal(Path(baseline), report, "the candidate run", run.report)
    if refused is not None:
        return refused
    from memrecall.reports.diff.inputs import Side

    name = run.report["content"]["system_order"][0]
    return decide_gate(baseline, given, Side(name, run.rankings[name], run.report, "the candidate run"), settings, data)


def decide_gate(baseline, given, side, settings, data):
    """The decision once the candidate's side is known (see memrecall.reports.gate.decision.decide)."""
    from memrecall.reports.gate.decision import decide

    return decide(Path(baseline), given, side, settings, _data(data))


def assert_gate_passes(baseline: str | Path, candidate: Any, **options: Any):
    """gate(...), raising AssertionError with the gate's screen unless it passes: for a builder's own pytest suite."""
    from memrecall.reports.gate.screen import gate_lines

    result = gate(baseline, candidate, **options)
    if not result.passed:
        raise AssertionError("\n".join(gate_lines(result)))
    return result
