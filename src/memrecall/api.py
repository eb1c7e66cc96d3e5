"""The Python API: run a system on a benchmark, or score rankings, and get the signed report back."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memrecall.benchmarks import Benchmark, Loaded, get_benchmark
from memrecall.data.model import Ranking
from memrecall.reports.rankings_files import checked_runs
from memrecall.reports.system_report import systems_report
from memrecall.running.executors import executor_facts
from memrecall.running.pipeline import rank_task
from memrecall.scoring.per_query import per_query_rows
from memrecall.scoring.policy import cut_offs
from memrecall.systems.contract import adapt


@dataclass
class Result:
    """A signed report, each system's checked rankings by query id, and per-query rows."""

    report: dict
    rankings: dict[str, dict[str, Ranking]]
    per_query: list[dict]
    loaded: Loaded
    benchmark: Benchmark | None = None

    def rows(self, name: str | None = None) -> list[dict]:
        """A system's rankings (default: the first) as rankings-file rows, which `evaluate_rankings` scores again."""
        from memrecall.data.rankings import rankings_rows

        system = name if name is not None else self.report["content"]["system_order"][0]
        if system not in self.rankings:
            from memrecall.errors import ConfigError

            raise ConfigError(f"no system {system!r} in this result; it has {', '.join(sorted(self.rankings))}")
        bench = self.benchmark or get_benchmark(self.report["content"]["benchmark"])
        return rankings_rows(self.loaded.task, self.rankings[system], bench.row_keys)

    @property
    def metrics(self) -> dict:
        """The first system's results (overall and by stratum), as in the report."""
        content = self.report["content"]
        return content["systems"][content["system_order"][0]]["results"]

    def to_frame(self):
        """Every system's results as a pandas DataFrame: one row per system, group and metric (needs pandas)."""
        from memrecall.reports.frames import results_frame

        return results_frame(self.report)


def _benchmark(benchmark: str | Benchmark) -> Benchmark:
    return benchmark if isinstance(benchmark, Benchmark) else get_benchmark(benchmark)


def run_system(
    system: Any,
    benchmark: str | Benchmark,
    data: str | Path | None = None,
    name: str | None = None,
    seed: int = 0,
    resamples: int = 2000,
    show_progress: bool = False,
    loaded: Loaded | None = None,
    executor: Any = None,
    metrics: Sequence[str] = (),
    encoder: Any = None,
) -> Result:
    """Run any object with index(documents) and rank(query) on a benchmark; its rankings are checked strictly.

    `executor` (memrecall.running.executors.make_executor("ray", workers)) decides where ranking runs; the
    results are the same. `metrics` (names such as map or precision@5) are scored beside the benchmark's own.
    `encoder` is the SharedEncoder a built-in system was given: when the system used it, the signed entry
    names it (model, weights sha256, backend).
    """
    bench = _benchmark(benchmark)
    scoring = bench.scoring(seed=seed, resamples=resamples, metrics=metrics)
    loaded = loaded or bench.load(bench.resolve_data(Path(data) if data else None))
    adapter = adapt(system, name)
    depth = max([*bench.ks, *cut_offs(scoring.requested)])  # the deepest cut-off scored
    run = rank_task(adapter, loaded.task, bench.require_full_rankings, show_progress, executor, depth)
    env = {
        "system_configs": {adapter.name: run.config},
        "durations_seconds": {adapter.name: round(run.seconds, 3)},
        "cost": {adapter.name: run.cost},
    }
    env.update(executor_facts(executor))
    oracles = frozenset({adapter.name} if run.uses_gold_labels else ())
    used = encoder.get().describe() if encoder is not None and encoder.loaded else None
    report = systems_report(bench, loaded, [(adapter.name, run.rankings)], scoring, env, oracles, {adapter.name: used})
    rows = per_query_rows(loaded.task, run.rankings, adapter.name, bench.ks)
    return Result(report, {adapter.name: run.rankings}, rows, loaded, bench)


def evaluate_rankings(
    rows: str | Path | Sequence[dict] | Sequence[str | Path],
    benchmark: str | Benchmark,
    data: str | Path | None = None,
    names: Sequence[str] | None = None,
    seed: int = 0,
    resamples: int = 2000,
    loaded: Loaded | None = None,
    gold_label_users: Sequence[str] = (),
    metrics: Sequence[str] = (),
) -> Result:
    """Score rankings (a file, several files, or a list of row dicts) strictly; several are paired against the first.

    `gold_label_users` names the systems that read authored labels (oracles); their entries say so.
    `metrics` (names such as map or precision@5) are scored beside the benchmark's own.
    """
    bench = _benchmark(benchmark)
    scoring = bench.scoring(seed=seed, resamples=resamples, metrics=metrics)
    loaded = loaded or bench.load(bench.resolve_data(Path(data) if data else None))
    sources = [rows] if isinstance(rows, (str, Path)) or (rows and isinstance(rows[0], dict)) else list(rows)
    runs, files, notes = checked_runs(sources, names, bench, loaded)
    env = {"rankings_files": files, **({"formats": notes} if notes else {})} if files else {}
    report = systems_report(bench, loaded, runs, scoring, env, frozenset(gold_label_users))
    per_query = [row for name, r in runs for row in per_query_rows(loaded.task, r, name, bench.ks)]
    return Result(report, dict(runs), per_query, loaded, bench)
