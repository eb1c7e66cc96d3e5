"""The Python API: run a system on a benchmark, or score rankings, and get the signed report back."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from memrecall.benchmarks import Benchmark, Loaded, get_benchmark
from memrecall.data.granularity import session_rankings, unit_view
from memrecall.data.measured import measured_view
from memrecall.data.model import Ranking
from memrecall.errors import ConfigError
from memrecall.reports.rankings_files import checked_runs
from memrecall.reports.system_report import systems_report
from memrecall.running.boundary.identity import RANKINGS_FILE, code_manifest, plugin_identity, source_facts
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
            raise ConfigError(f"Result.rows(name): name must be a system name (str) or None, got {_kind(name)}")
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


def _kind(value: object) -> str:
    """How an argument of the wrong type is named in an error: its type and a short repr."""
    from memrecall.errors import short

    return f"{type(value).__name__} {short(repr(value), 40)}"


def _benchmark(benchmark: str | Benchmark) -> Benchmark:
    """The Benchmark an argument names: a registered name or a Benchmark itself."""
    if isinstance(benchmark, Benchmark):
        return benchmark
    if not isinstance(benchmark, str):
        raise ConfigError(f"benchmark must be a registered name (str) or a Benchmark, got {_kind(benchmark)}")
    return get_benchmark(benchmark)


def _text_list(values: Iterable[str] | None, what: str) -> list[str] | None:
    """A sequence of non-empty strings given as `what`, read once (None stays None); one str is refused."""
    if values is None:
        return None
    if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        raise ConfigError(f"{what} must be a list of str, e.g. ['a', 'b'], got {_kind(values)}")
    items = list(values)
    bad = next((i for i, v in enumerate(items) if not isinstance(v, str) or not v), None)
    if bad is not None:
        raise ConfigError(f"{what}[{bad}] must be a non-empty str, got {_kind(items[bad])}")
    return items


def _sources(rows: object) -> list:
    """The rankings sources `rows` names: a file, a list of files, or one run as row dicts (any iterable, read once)."""
    if isinstance(rows, (str, Path)):
        if not str(rows):
            raise ConfigError("rows is an empty path; pass a rankings file, a list of files, or row dicts")
        return [rows]
    if isinstance(rows, (bytes, dict)) or not isinstance(rows, Iterable):
        raise ConfigError(f"rows must be a rankings file path, a list of paths, or row dicts, got {_kind(rows)}")
    items = list(rows)
    if not items:
        raise ConfigError("rows is empty; pass a rankings file, a list of files, or a run's row dicts")
    if all(isinstance(item, dict) for item in items):
        return [items]
    bad = next((i for i, item in enumerate(items) if not isinstance(item, (str, Path)) or not str(item)), None)
    if bad is not None:
        raise ConfigError(f"rows[{bad}] must be a file path (or every item a row dict), got {_kind(items[bad])}")
    return items


def _metric_names(metrics: object) -> str | list[str]:
    """A metrics argument: a comma list (str) or a list of names, read once."""
    return metrics if isinstance(metrics, str) else (_text_list(metrics, "metrics") or [])


def _flag(value: object, what: str) -> bool:
    """A bool argument (a truthy string or number is refused, not read as True)."""
    if not isinstance(value, bool):
        raise ConfigError(f"{what} must be True or False, got {_kind(value)}")
    return value


def _data(data: object) -> Path | None:
    """A data argument as a Path (None for the benchmark's default)."""
    if data is not None and not isinstance(data, (str, Path)):
        raise ConfigError(f"data must be a file or folder path (str or Path) or None, got {_kind(data)}")
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
    bench = _benchmark(benchmark)
    scoring = bench.scoring(seed=seed, resamples=resamples, metrics=metrics)
    plugin, adapter = _resolve(system, name, bench, encoder, show_progress, in_process, worker_timeout, pass_env)
    data_path = bench.resolve_data(Path(data) if data else None) if loaded is None else None
    if plugin is not None:
        plugin = _sandboxed(plugin, sandbox, allow_read, [*hidden, *([data_path] if data_path else [])], encoder)
    loaded = loaded or bench.load(data_path)
    # systems rank down to the deepest cut-off scored (the scoring depth, or a deeper --metrics k)
    depth = None if scoring.depth is None else max([scoring.depth, *cut_offs(scoring.requested)])
    depth = None if _flag(full_rankings, "full_rankings") or unit is not None else depth
    scored = _at_unit(loaded, unit)  # refused before any system runs
    identities = {}
    if plugin is not None:
        source = source_facts(plugin.spec, plugin.built)  # read before the plug-in is imported
        plugin = replace(plugin, code=code_manifest(plugin.spec, plugin.built))  # the only plug-in code it runs
        run, declared = rank_plugin(plugin, loaded.task, bench.require_full_rankings, show_progress, executor, depth)
        box = described(plugin.mounts) if plugin.mounts is not None else None
        identities[run.name] = plugin_identity(plugin.spec, plugin.isolation, source, declared, plugin.code, box)
    else:
        run = rank_task(adapter, loaded.task, bench.require_full_rankings, show_progress, executor, depth)
    env = {
        "system_configs": {run.name: run.config},
        "durations_seconds": {run.name: round(run.seconds, 3)},
        "cost": {run.name: run.cost},
    }
    env.update(executor_facts(executor))
    oracles = frozenset({run.name} if run.uses_gold_labels else ())
    used = encoder.get().describe() if plugin is None and encoder is not None and encoder.loaded else None
    rankings = run.rankings if unit is None else session_rankings(loaded.task, run.rankings)
    scored = Loaded(*measured_view(scored.task, scored.dataset, run.not_measurable))  # out of the denominator
    report = systems_report(bench, scored, [(run.name, rankings)], scoring, env, oracles, {run.name: used}, identities)
    rows = per_query_rows(scored.task, rankings, run.name, bench.ks)
    return Result(report, {run.name: rankings}, rows, scored, bench)


def _at_unit(loaded: Loaded, unit: str | None) -> Loaded:
    """The loaded task as it is scored at `unit` (itself when unit is None)."""
    return loaded if unit is None else Loaded(*unit_view(loaded.task, loaded.dataset, unit))


def _sandboxed(plugin, sandbox: str, allow_read, hidden, encoder):
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


def _resolve(system, name, bench, encoder, show_progress, in_process, timeout, pass_env):
    """(a Plugin to run across the boundary, None) or (None, an adapter of memrecall's own code)."""
    from memrecall.running.boundary.isolated import Plugin
    from memrecall.systems.registry import SystemContext, is_trusted_spec, load_system, reserved_name_problem

    if isinstance(system, str) and not is_trusted_spec(system):
        return Plugin(system, name, "none" if in_process else "process", None, timeout, tuple(pass_env)), None
    if isinstance(system, str):
        if in_process:
            raise ConfigError(f"--in-process is for plug-ins; {system} is memrecall's own code and runs here anyway")
        if encoder is None:
            from memrecall.encoding.encoders import SharedEncoder

            encoder = SharedEncoder(None, None)
        built, default_name = load_system(system, SystemContext(encoder.get, bench.dense_policy, show_progress))
        adapter = adapt(built, name, default_name)
        problem = reserved_name_problem(adapter.name, system)
        if problem:
            raise ConfigError(problem)
        return None, adapter
    if type(unwrapped(system)).__module__.startswith("memrecall.systems."):
        return None, adapt(system, name)
    return Plugin(None, name, "none", system, timeout, tuple(pass_env)), None


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
    bench = _benchmark(benchmark)
    sources, names = _sources(rows), _text_list(names, "names")
    users = _text_list(gold_label_users, "gold_label_users") or []
    scoring = bench.scoring(seed=seed, resamples=resamples, metrics=_metric_names(metrics))
    if loaded is not None and not isinstance(loaded, Loaded):
        raise ConfigError(f"loaded must be a Loaded (Benchmark.load's result) or None, got {_kind(loaded)}")
    loaded = loaded or bench.load(bench.resolve_data(_data(data)))
    scored = _at_unit(loaded, unit)  # refused before any file is read
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
            raise ConfigError(f"{what} must be a report or rankings file path (str or Path), got {_kind(value)}")
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
