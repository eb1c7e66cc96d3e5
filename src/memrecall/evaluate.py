"""Score an external system's rankings file against a Task, optionally against a second system."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from memrecall.compare import compare_systems
from memrecall.datasets.jsonfile import file_sha256
from memrecall.datasets.registry import dataset_spec
from memrecall.rankings import load_rankings
from memrecall.report import environment, make_report, task_identity
from memrecall.scoring import score_task


@dataclass
class EvaluateOptions:
    """What to score and how."""

    rankings: Path
    dataset: str
    data: Path
    compare: Path | None = None
    seed: int = 0
    resamples: int = 2000


def evaluate_rankings(options: EvaluateOptions) -> dict:
    """Load the task and rankings (strictly), score them, and sign the report."""
    spec = dataset_spec(options.dataset)
    task = spec.load(options.data)
    scoring = replace(spec.scoring, seed=options.seed, resamples=options.resamples)
    system = load_rankings(options.rankings, task, spec.require_full_rankings)
    content: dict = {
        "kind": "evaluate",
        "dataset": spec.name,
        "task": task_identity(task),
        "primary_metric": scoring.metrics[0],
        "primary_stratum": spec.primary_stratum,
        "scoring": scoring.describe(),
        "system": {"rankings_sha256": file_sha256(options.rankings), "results": score_task(task, system, scoring)},
    }
    if options.compare:
        other = load_rankings(options.compare, task, spec.require_full_rankings)
        content["other"] = {
            "rankings_sha256": file_sha256(options.compare),
            "results": score_task(task, other, scoring),
        }
        content["comparison"] = {
            "difference": "system minus other",
            "test": "paired bootstrap CI; two-sided paired sign-flip randomisation test, 2000 permutations",
            "by_group": compare_systems(task, system, other, scoring, spec.primary_stratum),
        }
    env = environment({}, rankings=str(options.rankings), compare=str(options.compare) if options.compare else None)
    return make_report(content, env)
