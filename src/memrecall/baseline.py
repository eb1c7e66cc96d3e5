"""Run retrieval strategies on an EpiRec release and build the signed baseline report."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from memrecall.compare import compare_systems
from memrecall.datasets.epirec import load_epirec
from memrecall.embeddings import Encoder, cache_dir, resolve_model
from memrecall.model import Ranking, Task
from memrecall.report import environment, make_report, task_identity
from memrecall.retrievers import ABLATIONS, NEEDS_ENCODER, build_retriever
from memrecall.runner import run_task
from memrecall.scoring import ScoringConfig, score_task


@dataclass
class BaselineOptions:
    """Everything a baseline run depends on."""

    data: Path
    strategies: Sequence[str]
    model: str | None = None
    cache: Path | None = None
    scoring: ScoringConfig = field(default_factory=ScoringConfig)
    show_progress: bool = False


@dataclass
class BaselineRun:
    """The task, each strategy's rankings and the signed report."""

    task: Task
    rankings: dict[str, dict[str, Ranking]]
    report: dict


def run_baseline(options: BaselineOptions) -> BaselineRun:
    """Load the data, run each strategy in order, score it, and sign the report."""
    task = load_epirec(options.data)
    encoder: list[Encoder] = []

    def shared_encoder() -> Encoder:
        if not encoder:
            encoder.append(Encoder(resolve_model(options.model), cache_dir(options.cache)))
        return encoder[0]

    rankings: dict[str, dict[str, Ranking]] = {}
    strategies: dict[str, dict] = {}
    durations: dict[str, float] = {}
    for name in options.strategies:
        started = time.perf_counter()
        retriever = build_retriever(name, shared_encoder, options.show_progress)
        rankings[name] = run_task(task, retriever, options.show_progress)
        strategies[name] = {"config": retriever.config(), "results": score_task(task, rankings[name], options.scoring)}
        durations[name] = time.perf_counter() - started
    content = {
        "kind": "baseline",
        "task": task_identity(task),
        "primary_metric": options.scoring.metrics[0],
        "scoring": options.scoring.describe(),
        "strategy_order": list(options.strategies),
        "strategies": strategies,
    }
    ablations = ablation_comparisons(task, rankings, options.scoring)
    if ablations:
        content["ablations"] = ablations
    if any(n in NEEDS_ENCODER for n in options.strategies):
        content["model"] = shared_encoder().describe()
    extra = encoder[0].run_facts() if encoder else {}
    return BaselineRun(task, rankings, make_report(content, environment(durations, **extra)))


def ablation_comparisons(task: Task, rankings: dict[str, dict[str, Ranking]], scoring: ScoringConfig) -> list[dict]:
    """Each strategy against its removal ablation, paired, by probe type; only pairs that both ran."""
    return [
        {
            "strategy": full,
            "ablation": reduced,
            "removes": removed,
            "by_group": compare_systems(task, rankings[full], rankings[reduced], scoring),
        }
        for full, reduced, removed in ABLATIONS
        if full in rankings and reduced in rankings
    ]


def epirec_rankings_rows(task: Task, rankings: dict[str, Ranking]) -> list[dict]:
    """One rankings-JSONL row per probe, in task order."""
    return [
        {"persona_id": q.store_id, "probe_id": q.id, "ranked_episode_ids": list(rankings[q.id].doc_ids)}
        for q in task.queries
    ]
