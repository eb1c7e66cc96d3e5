"""The Python API: run a system on a benchmark, or score rankings, and get the signed report back."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from memrecall.benchmarks import Benchmark, Loaded
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
