"""The baseline view: built-in systems on an EpiRec release, through the one pipeline, as a fingerprinted report."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memrecall.benchmarks import get_benchmark
from memrecall.data.model import Ranking, Task
from memrecall.encoding.encoders import SharedEncoder
from memrecall.reports.baseline_report import baseline_content
from memrecall.reports.content import environment, make_report
from memrecall.running.executors import executor_facts
from memrecall.running.pipeline import rank_task
from memrecall.scoring.policy import ScoringConfig, score_task
from memrecall.systems.contract import adapt
from memrecall.systems.registry import NEEDS_ENCODER, SystemContext, build_builtin


@dataclass
class BaselineOptions:
    """Everything a baseline run depends on."""

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
    """The task, each strategy's rankings and the signed report."""

    task: Task
    rankings: dict[str, dict[str, Ranking]]
    report: dict


def run_baseline(options: BaselineOptions) -> BaselineRun:
    """Load the data, run each strategy in order through the pipeline, score it, and sign the report."""
    benchmark = get_benchmark("epirec")
    task = benchmark.load(options.data).task
    encoder = SharedEncoder(
        options.model, options.cache, options.device, options.executor, options.backend, options.precision
    )
    context = SystemContext(encoder.get, benchmark.dense_policy, options.show_progress)
    rankings: dict[str, dict[str, Ranking]] = {}
    strategies: dict[str, dict] = {}
    durations: dict[str, float] = {}
    for name in options.strategies:
        system = adapt(build_builtin(name, context), name)
        run = rank_task(system, task, True, options.show_progress, options.executor)
        rankings[name] = run.rankings
        strategies[name] = {"config": run.config, "results": score_task(task, run.rankings, options.scoring)}
        if run.uses_gold_labels:
            strategies[name]["uses_gold_labels"] = True
        durations[name] = run.seconds
    model = encoder.get().describe() if any(n in NEEDS_ENCODER for n in options.strategies) else None
    content = baseline_content(task, options.strategies, strategies, rankings, options.scoring, model)
    env = environment(durations, **encoder.run_facts(), **executor_facts(options.executor))
    return BaselineRun(task, rankings, make_report(content, env))
