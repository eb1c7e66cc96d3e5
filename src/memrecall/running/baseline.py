"""The `baseline` preset: built-in systems on an EpiRec release through `run`'s pipeline, with the ablations."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memrecall.benchmarks import get_benchmark
from memrecall.data.model import Ranking, Task
from memrecall.encoding.encoders import SharedEncoder
from memrecall.scoring.policy import ScoringConfig


@dataclass
class BaselineOptions:
    """Everything a baseline run depends on (its scoring gives the seed, resamples and --metrics)."""

    data: Path
    strategies: Sequence[str]
    model: str | None = None
    cache: Path | None = None
    scoring: ScoringConfig = field(default_factory=ScoringConfig)
    show_progress: bool = False
    device: str = "auto"
    executor: Any = None
    backend: str | None = None
    precision: str | None = None


@dataclass
class BaselineRun:
    """The task, each system's rankings, per-query rows and the signed report."""

    task: Task
    rankings: dict[str, dict[str, Ranking]]
    report: dict
    per_query: list[dict] = field(default_factory=list)


def run_baseline(options: BaselineOptions) -> BaselineRun:
    """`run` of the systems in order on the EpiRec release `options.data`, with baseline's removal ablations."""
    from memrecall.running.runner import run_systems

    benchmark = get_benchmark("epirec")
    encoder = SharedEncoder(
        options.model, options.cache, options.device, options.executor, options.backend, options.precision
    )
    result = run_systems(
        list(options.strategies),
        benchmark,
        data=options.data,
        seed=options.scoring.seed,
        resamples=options.scoring.resamples,
        metrics=options.scoring.requested,
        show_progress=options.show_progress,
        executor=options.executor,
        encoder=encoder,
        ablations=True,
    )
    result.report["env"].update(encoder.run_facts())  # unsigned: model origin, backend, texts encoded
    return BaselineRun(result.loaded.task, result.rankings, result.report, result.per_query)
