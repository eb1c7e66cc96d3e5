"""Datasets by name: how to load each into a Task and how its rankings are scored by default."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from memrecall.model import Task
from memrecall.scoring import ScoringConfig


@dataclass(frozen=True)
class DatasetSpec:
    """A loader, the default scoring, and whether rankings must cover the whole store."""

    name: str
    load: Callable[[Path], Task]
    scoring: ScoringConfig
    require_full_rankings: bool
    primary_stratum: str | None


def _epirec() -> DatasetSpec:
    from memrecall.datasets.epirec import load_epirec

    return DatasetSpec("epirec", load_epirec, ScoringConfig(), require_full_rankings=True, primary_stratum="probe_type")


def _longmemeval(protocol: str) -> Callable[[], DatasetSpec]:
    def spec() -> DatasetSpec:
        from memrecall.datasets.longmemeval import load_longmemeval

        ks = (1, 3, 5, 10)
        if protocol == "official":
            headline = [f"recall_all@{k}" for k in ks] + [f"ndcg_lme@{k}" for k in ks]
        else:
            headline = [f"recall@{k}" for k in ks]
        others = [f"recall@{k}" for k in ks] + [f"recall_all@{k}" for k in ks] + ["ndcg@10", "ndcg_lme@10", "mrr"]
        scoring = ScoringConfig(tuple(dict.fromkeys(headline + others)), ((), ("question_type",)), (("abstention",),))
        return DatasetSpec(
            f"longmemeval-{protocol}",
            lambda path: load_longmemeval(path, protocol),
            scoring,
            require_full_rankings=False,
            primary_stratum="question_type",
        )

    return spec


def _locomo(granularity: str) -> Callable[[], DatasetSpec]:
    def spec() -> DatasetSpec:
        from memrecall.datasets.locomo import load_locomo

        ks = (1, 3, 5, 10)
        metrics = [f"recall@{k}" for k in ks] + [f"recall_all@{k}" for k in ks] + ["ndcg@10", "mrr"]
        scoring = ScoringConfig(tuple(metrics), ((), ("category",)), (("category",),))
        return DatasetSpec(
            f"locomo-{granularity}",
            lambda path: load_locomo(path, granularity).task,
            scoring,
            require_full_rankings=False,
            primary_stratum="category",
        )

    return spec


DATASETS: dict[str, Callable[[], DatasetSpec]] = {
    "epirec": _epirec,
    "longmemeval": _longmemeval("perseus"),
    "longmemeval-official": _longmemeval("official"),
    "locomo": _locomo("session"),
    "locomo-turn": _locomo("turn"),
}


def dataset_spec(name: str) -> DatasetSpec:
    """The spec of a registered dataset; KeyError names the choices."""
    if name not in DATASETS:
        raise KeyError(f"unknown dataset {name!r}; choose from {', '.join(sorted(DATASETS))}")
    return DATASETS[name]()
