"""The dataset harness view (LongMemEval, LoCoMo): search modes through the one pipeline, diagnostics, signed."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memrecall.benchmarks import Benchmark, Loaded
from memrecall.data.granularity import turns_to_sessions
from memrecall.data.model import Ranking
from memrecall.encoding.backends import choose_backend
from memrecall.encoding.embeddings import resolve_model
from memrecall.encoding.encoders import SharedEncoder
from memrecall.errors import ConfigError, UsageError
from memrecall.reports.comparability import manifest
from memrecall.reports.content import data_identity, environment, make_report, task_identity
from memrecall.running.executors import executor_facts
from memrecall.running.pipeline import rank_task
from memrecall.scoring.diagnostics import coverage, recall_curve, token_efficiency
from memrecall.scoring.metrics import DEFAULT_RESAMPLES
from memrecall.scoring.policy import score_task
from memrecall.scoring.sufficiency import sufficiency
from memrecall.systems.contract import adapt
from memrecall.systems.registry import SystemContext, build_builtin

MODES = ("fts5", "dense", "hybrid", "bm25-official")


@dataclass
class HarnessOptions:
    """What to run and how to score it; the metrics and strata come from the benchmark."""

    modes: Sequence[str] = MODES
    ks: Sequence[int] = (1, 3, 5, 10)
    coverage_depth: int | None = None
    dense_policy: str = "windows"
    model: str | None = None
    cache: Path | None = None
    show_progress: bool = False
    seed: int = 0
    resamples: int = DEFAULT_RESAMPLES
    device: str = "auto"
    executor: Any = None
    metrics: Sequence[str] = ()
    backend: str | None = None
    precision: str | None = None


@dataclass
class HarnessRun:
    """Rankings per mode and the signed report."""

    rankings: dict[str, dict[str, Ranking]]
    report: dict


def resolve_modes(modes: Sequence[str], model: str | None, backend: str | None = None) -> list[str]:
    """Validate mode names; `auto` becomes hybrid when a local encoder is available, else fts5."""
    out = []
    for mode in modes:
        if mode == "auto":
            mode = "hybrid" if embeddings_available(model, backend) else "fts5"
        if mode not in MODES:
            raise UsageError(f"unknown mode {mode!r}; choose from {', '.join(MODES)} or auto")
        if mode in out:
            raise ConfigError(f"mode {mode} is listed twice")
        out.append(mode)
    return out


def embeddings_available(model: str | None, backend: str | None = None) -> bool:
    """True when the backend's engine is installed (found, not imported) and the encoder is a local folder.

    choose_backend itself refuses onnx without its engine, so only torch's is looked for here.
    """
    from importlib.util import find_spec

    if choose_backend(backend).name == "torch" and find_spec("sentence_transformers") is None:
        return False
    return Path(resolve_model(model).location).is_dir()


def run_harness(benchmark: Benchmark, loaded: Loaded, options: HarnessOptions) -> HarnessRun:
    """Run each mode over the task, score it with the benchmark's policy, add diagnostics, and sign."""
    task = loaded.task
    scoring = benchmark.scoring(options.ks, options.seed, options.resamples, options.metrics)
    stratum = benchmark.primary_stratum
    encoder = SharedEncoder(
        options.model, options.cache, options.device, options.executor, options.backend, options.precision
    )
    context = SystemContext(encoder.get, options.dense_policy, options.show_progress)
    rankings: dict[str, dict[str, Ranking]] = {}
    modes: dict[str, dict] = {}
    durations: dict[str, float] = {}
    for mode in options.modes:
        run = rank_task(
            adapt(build_builtin(mode, context), mode),
            task,
            benchmark.require_full_rankings,
            options.show_progress,
            options.executor,
        )
        rankings[mode] = run.rankings
        entry = {
            "config": run.config,
            "results": score_task(task, run.rankings, scoring),
            "token_efficiency": token_efficiency(task, run.rankings, options.ks),
            "recall_curve": recall_curve(
                task, run.rankings, stratum, every_gold=benchmark.headline(options.ks)[0].startswith("recall_all")
            ),
        }
        if benchmark.analyses:
            entry.update(benchmark.analyses(loaded, run.rankings))
        if options.coverage_depth:
            entry["coverage"] = coverage(task, run.rankings, options.coverage_depth)
            entry["sufficiency"] = sufficiency(task, run.rankings, options.coverage_depth, stratum)
        if loaded.dataset.get("granularity") == "turn":
            session_task, session_rankings = turns_to_sessions(task, run.rankings)
            entry["turn_to_session_results"] = score_task(session_task, session_rankings, scoring)
        modes[mode] = entry
        durations[mode] = run.seconds
    content = {
        "kind": loaded.dataset.get("kind", task.name),
        "dataset": loaded.dataset,
        "task": task_identity(task),
        "data": data_identity(task),
        "primary_metric": scoring.metrics[0],
        "headline_metrics": benchmark.headline(options.ks),
        "primary_stratum": stratum,
        "scoring": scoring.describe(),
        "mode_order": list(options.modes),
        "modes": modes,
    }
    if encoder.loaded:
        content["model"] = encoder.get().describe()
    dense = options.dense_policy if any(m in ("dense", "hybrid") for m in options.modes) else None
    content["comparability"] = manifest(content, modes[options.modes[0]]["results"], dense)
    env = environment(durations, **encoder.run_facts(), **executor_facts(options.executor))
    return HarnessRun(rankings, make_report(content, env))


def coverage_failures(report: dict, k: int, floor: float) -> list[str]:
    """Modes whose any-gold coverage@k is below `floor`, as readable lines."""
    failures = []
    for mode in report["content"]["mode_order"]:
        value = report["content"]["modes"][mode]["coverage"]["any"].get(str(k))
        if value is None:
            raise ConfigError(f"coverage@{k} was not computed; raise --coverage-k to at least {k}")
        if value < floor:
            failures.append(f"{mode}: coverage@{k} = {value:.3f} is below {floor:.3f}")
    return failures
