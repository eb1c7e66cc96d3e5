"""The dataset harness presets (LongMemEval, LoCoMo): built-in systems through `run`'s pipeline, with diagnostics."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memrecall.benchmarks import Benchmark, Loaded
from memrecall.data.model import Ranking, Task
from memrecall.encoding.backends import choose_backend
from memrecall.encoding.embeddings import resolve_model
from memrecall.encoding.encoders import SharedEncoder
from memrecall.errors import ConfigError, UsageError
from memrecall.scoring.metrics import DEFAULT_RESAMPLES

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
    """Rankings per system, the signed report, the scored task (the queries measured) and per-query rows."""

    rankings: dict[str, dict[str, Ranking]]
    report: dict
    task: Task
    per_query: list[dict] = field(default_factory=list)


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
    """`run` of each mode on the loaded task, whole rankings kept, each system's entry with the diagnostics."""
    from memrecall.running.runner import run_systems

    encoder = SharedEncoder(
        options.model, options.cache, options.device, options.executor, options.backend, options.precision
    )
    result = run_systems(
        list(options.modes),
        benchmark,
        loaded=loaded,
        seed=options.seed,
        resamples=options.resamples,
        metrics=options.metrics,
        show_progress=options.show_progress,
        executor=options.executor,
        encoder=encoder,
        ks=options.ks,
        diagnostics={"ks": list(options.ks), "coverage_depth": options.coverage_depth},
        dense_policy=options.dense_policy,
    )
    result.report["env"].update(encoder.run_facts())  # unsigned: model origin, backend, texts encoded
    return HarnessRun(result.rankings, result.report, result.loaded.task, result.per_query)


def coverage_failures(report: dict, k: int, floor: float) -> list[str]:
    """Systems whose any-gold coverage@k is below `floor`, as readable lines."""
    failures = []
    for name in report["content"]["system_order"]:
        value = report["content"]["systems"][name]["coverage"]["any"].get(str(k))
        if value is None:
            raise ConfigError(f"coverage@{k} was not computed; raise --coverage-k to at least {k}")
        if value < floor:
            failures.append(f"{name}: coverage@{k} = {value:.3f} is below {floor:.3f}")
    return failures
