"""The report of `baseline`: built-in strategies on EpiRec, each with its removal ablation when both ran."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from memrecall.data.model import Ranking, Task
from memrecall.reports.content import data_identity, task_identity
from memrecall.scoring.paired import compare_systems
from memrecall.scoring.policy import ScoringConfig

# (strategy, its ablation, what the ablation removes): reported as paired comparisons when both ran
ABLATIONS = (
    ("time-decay", "dense", "time decay"),
    ("salience-oracle", "dense", "oracle salience"),
    ("salience-vader", "dense", "estimated salience"),
    ("gated", "salience-vader", "the gate"),
    ("gated", "dense", "gated salience"),
)


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


def baseline_content(
    task: Task,
    order: Sequence[str],
    strategies: Mapping[str, dict],
    rankings: dict[str, dict[str, Ranking]],
    scoring: ScoringConfig,
    model: dict | None,
) -> dict:
    """The content of a baseline report from each strategy's entry (config, results) and rankings."""
    content = {
        "kind": "baseline",
        "task": task_identity(task),
        "data": data_identity(task),
        "primary_metric": scoring.metrics[0],
        "scoring": scoring.describe(),
        "strategy_order": list(order),
        "strategies": dict(strategies),
    }
    ablations = ablation_comparisons(task, rankings, scoring)
    if ablations:
        content["ablations"] = ablations
    if model is not None:
        content["model"] = model
    return content
