"""The one runner: systems in order on one benchmark, their rankings checked, into one signed report.

`memrecall run` and the API's run_system call it; the presets (baseline, longmemeval, locomo) call it with
their extras (memrecall.running.baseline, memrecall.running.harness); `sweep` drives `memrecall run`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from memrecall.benchmarks import Benchmark, Loaded, get_benchmark
from memrecall.data.granularity import session_rankings, unit_view
from memrecall.data.measured import measured_view
from memrecall.data.model import Ranking
from memrecall.encoding.vector_cache import COMPUTED
from memrecall.errors import ConfigError
from memrecall.reports.system_report import systems_report
from memrecall.running.boundary.identity import code_manifest, plugin_identity, source_facts
from memrecall.running.boundary.isolated import rank_plugin
from memrecall.running.boundary.worker_client import DEFAULT_TIMEOUT
from memrecall.running.executors import executor_facts
from memrecall.running.pipeline import rank_task
from memrecall.scoring.depth import cut_offs
from memrecall.scoring.metrics import DEFAULT_RESAMPLES
from memrecall.scoring.per_query import per_query_rows
from memrecall.systems.contract import adapt, unwrapped
from memrecall.systems.sandbox import described


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

        if name is not None and not isinstance(name, str):
            raise ConfigError(f"Result.rows(name): name must be a system name (str) or None, got {kind_of(name)}")
        system = name if name is not None else self.report["content"]["system_order"][0]
        if system not in self.rankings:
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
        from memrecall.reports.exports.frames import results_frame

        return results_frame(self.report)


def kind_of(value: object) -> str:
    """How an argument of the wrong type is named in an error: its type and a short repr."""
    from memrecall.errors import short

    return f"{type(value).__name__} {short(repr(value), 40)}"


def as_benchmark(benchmark: str | Benchmark) -> Benchmark:
    """The Benchmark an argument names: a registered name or a Benchmark itself."""
    if isinstance(benchmark, Benchmark):
        return benchmark
    if not isinstance(benchmark, str):
        raise ConfigError(f"benchmark must be a registered name (str) or a Benchmark, got {kind_of(benchmark)}")
    return get_benchmark(benchmark)


def as_flag(value: object, what: str) -> bool:
    """A bool argument (a truthy string or number is refused, not read as True)."""
    if not isinstance(value, bool):
        raise ConfigError(f"{what} must be True or False, got {kind_of(value)}")
    return value


def run_systems(
    systems: Sequence[Any],
    benchmark: str | Benchmark,
    *,
    data: str | Path | None = None,
    names: Sequence[str] | None = None,
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
    ks: Sequence[int] | None = None,
    diagnostics: dict | None = None,
    ablations: bool = False,
    dense_policy: str | None = None,
    sandbox: str = "bwrap",
    allow_read: Sequence[str | Path] = (),
    hidden: Sequence[str | Path] = (),
) -> Result:
    """Run several systems in order on one benchmark into one report, each later one paired against the first.

    Each system runs as `run_system` describes. The presets add to it: `ks` (the headline cut-offs),
    `diagnostics` ({"ks", "coverage_depth"}: the harness diagnostics of each system, whose rankings are then
    kept whole), `ablations` (baseline's removal comparisons) and `dense_policy` (how dense systems treat long
    documents; the benchmark's by default). A query an adapter could not measure leaves every system's population.
    """
    bench = as_benchmark(benchmark)
    systems = list(systems) if isinstance(systems, (list, tuple)) else [systems]
    if not systems:
        raise ConfigError("systems is empty; name at least one system")
    if names is not None and len(names) != len(systems):
        raise ConfigError(f"{len(names)} name(s) for {len(systems)} system(s)")
    scoring = bench.scoring(ks, seed=seed, resamples=resamples, metrics=metrics)
    policy = dense_policy or bench.dense_policy
    data_path = bench.resolve_data(Path(data) if data else None) if loaded is None else None
    loaded = loaded or bench.load(data_path)
    hide = [*hidden, *([data_path] if data_path else [])]  # a plug-in never sees the data file
    # systems rank down to the deepest cut-off scored (the scoring depth, or a deeper --metrics k)
    depth = None if scoring.depth is None else max([scoring.depth, *cut_offs(scoring.requested)])
    whole = as_flag(full_rankings, "full_rankings") or unit is not None or diagnostics is not None
    depth = None if whole else depth
    scored = at_unit(loaded, unit)  # refused before any system runs
    identities, runs, unmeasured = {}, [], {}
    env: dict = {"system_configs": {}, "durations_seconds": {}, "cost": {}}
    oracles, used = set(), {}
    for index, system in enumerate(systems):
        name = None if names is None else names[index]
        asked: list[bool] = []  # whether this system asked for the shared encoder
        before = encoder.computed_at_least() if encoder is not None else 0  # systems run one after another
        plugin, adapter, encoder = _resolve(
            system, name, bench, encoder, show_progress, in_process, worker_timeout, pass_env, policy, asked
        )
        if plugin is not None:
            plugin = sandboxed(plugin, sandbox, allow_read, hide, encoder)
            source = source_facts(plugin.spec, plugin.built)  # read before the plug-in is imported
            plugin = replace(plugin, code=code_manifest(plugin.spec, plugin.built))  # the only plug-in code it runs
            run, declared = rank_plugin(
                plugin, loaded.task, bench.require_full_rankings, show_progress, executor, depth
            )
            box = described(plugin.mounts) if plugin.mounts is not None else None
            identities[run.name] = plugin_identity(plugin.spec, plugin.isolation, source, declared, plugin.code, box)
        else:
            run = rank_task(adapter, loaded.task, bench.require_full_rankings, show_progress, executor, depth)
            if encoder is not None and encoder.loaded and (asked or not isinstance(system, str)):
                used[run.name] = {**encoder.get().describe(), COMPUTED: encoder.computed_at_least() - before}
        env["system_configs"][run.name] = run.config
        env["durations_seconds"][run.name] = round(run.seconds, 3)
        env["cost"][run.name] = run.cost
        oracles |= {run.name} if run.uses_gold_labels else set()
        unmeasured.update(run.not_measurable)
        runs.append((run.name, run.rankings if unit is None else session_rankings(loaded.task, run.rankings)))
    env.update(executor_facts(executor))
    scored = Loaded(*measured_view(scored.task, scored.dataset, unmeasured))  # out of the denominator
    measured = {q.id for q in scored.task.queries}
    runs = [(n, {q: r for q, r in rankings.items() if q in measured}) for n, rankings in runs]
    report = systems_report(
        bench,
        scored,
        runs,
        scoring,
        env,
        frozenset(oracles),
        used,
        identities,
        ks=ks,
        diagnostics=diagnostics,
        ablations=ablations,
        dense_policy=policy if used else None,
    )
    rows = [row for n, rankings in runs for row in per_query_rows(scored.task, rankings, n, ks or bench.ks)]
    return Result(report, dict(runs), rows, scored, bench)


def sandboxed(plugin: Any, sandbox: str, allow_read: Sequence[str | Path], hidden: Sequence, encoder: Any) -> Any:
    """The plug-in with its sandbox settled: bwrap checked here (one line when it cannot run), or none."""
    from memrecall.encoding.embeddings import cache_dir
    from memrecall.systems.sandbox import check_sandbox

    if plugin.isolation != "process" or sandbox == "none":
        check_sandbox(sandbox) if sandbox != "bwrap" else None
        return plugin
    check_sandbox(sandbox)
    cache = cache_dir(getattr(encoder, "cache", None))
    hide = tuple(str(Path(p).absolute()) for p in [*hidden, cache])
    return replace(
        plugin, isolation="sandbox", allow_read=tuple(str(Path(p).absolute()) for p in allow_read), hidden=hide
    )


def at_unit(loaded: Loaded, unit: str | None) -> Loaded:
    """The loaded task as it is scored at `unit` (itself when unit is None)."""
    return loaded if unit is None else Loaded(*unit_view(loaded.task, loaded.dataset, unit))


def _resolve(system, name, bench, encoder, show_progress, in_process, timeout, pass_env, dense_policy, asked):
    """(a Plugin to run past the trust boundary, None, encoder) or (None, an adapter of memrecall's own code, encoder).

    The encoder is the one given, or a default one made for the first of memrecall's own systems named by a spec.
    """
    from memrecall.running.boundary.isolated import Plugin
    from memrecall.systems.registry import SystemContext, is_trusted_spec, load_system, reserved_name_problem

    if isinstance(system, str) and not is_trusted_spec(system):
        return Plugin(system, name, "none" if in_process else "process", None, timeout, tuple(pass_env)), None, encoder
    if isinstance(system, str):
        if in_process:
            raise ConfigError(f"--in-process is for plug-ins; {system} is memrecall's own code and runs here anyway")
        if encoder is None:
            from memrecall.encoding.encoders import SharedEncoder

            encoder = SharedEncoder(None, None)

        def shared():
            asked.append(True)
            return encoder.get()

        built, default_name = load_system(system, SystemContext(shared, dense_policy, show_progress))
        adapter = adapt(built, name, default_name)
        problem = reserved_name_problem(adapter.name, system)
        if problem:
            raise ConfigError(problem)
        return None, adapter, encoder
    if type(unwrapped(system)).__module__.startswith("memrecall.systems."):
        return None, adapt(system, name), encoder
    return Plugin(None, name, "none", system, timeout, tuple(pass_env)), None, encoder
