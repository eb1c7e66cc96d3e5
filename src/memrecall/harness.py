"""The dataset harness shared by LongMemEval and LoCoMo: run search modes over a Task, score, diagnose, sign."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from memrecall.diagnostics import coverage, recall_curve, token_efficiency
from memrecall.embeddings import Encoder, cache_dir, resolve_model
from memrecall.errors import ConfigError
from memrecall.model import Ranking, Task
from memrecall.report import environment, make_report, task_identity
from memrecall.retrievers.base import TaskAware
from memrecall.retrievers.dense import DenseRetriever
from memrecall.retrievers.fts5 import Fts5Retriever
from memrecall.retrievers.fusion import HybridRetriever
from memrecall.retrievers.windowed import WindowedDenseRetriever
from memrecall.runner import run_task
from memrecall.scoring import ScoringConfig, score_task

MODES = ("fts5", "dense", "hybrid")
DENSE_POLICIES = ("windows", "truncate")


@dataclass
class HarnessOptions:
    """What to run and how to score it."""

    modes: Sequence[str] = MODES
    ks: Sequence[int] = (1, 3, 5, 10)
    headline_metrics: Sequence[str] = ()
    other_metrics: Sequence[str] = ()
    stratum: str | None = None
    apart: Sequence[str] = ()
    coverage_depth: int | None = None
    dense_policy: str = "windows"
    model: str | None = None
    cache: Path | None = None
    show_progress: bool = False
    seed: int = 0
    resamples: int = 2000
    dataset: dict = field(default_factory=dict)

    def scoring(self) -> ScoringConfig:
        """Headline metrics first (the first one is primary), then the rest, de-duplicated."""
        metrics = tuple(dict.fromkeys([*self.headline_metrics, *self.other_metrics]))
        groupings = ((), (self.stratum,)) if self.stratum else ((),)
        apart = tuple((key,) for key in self.apart)
        return ScoringConfig(metrics, groupings, apart, self.seed, self.resamples)


@dataclass
class HarnessRun:
    """Rankings per mode and the signed report."""

    rankings: dict[str, dict[str, Ranking]]
    report: dict


def resolve_modes(modes: Sequence[str], model: str | None) -> list[str]:
    """Validate mode names; `auto` becomes hybrid when a local encoder is available, else fts5."""
    out = []
    for mode in modes:
        if mode == "auto":
            mode = "hybrid" if embeddings_available(model) else "fts5"
        if mode not in MODES:
            raise ConfigError(f"unknown mode {mode!r}; choose from {', '.join(MODES)} or auto")
        if mode in out:
            raise ConfigError(f"mode {mode} is listed twice")
        out.append(mode)
    return out


def embeddings_available(model: str | None) -> bool:
    """True when sentence-transformers imports and the encoder resolves to a local folder."""
    try:
        import sentence_transformers  # noqa: F401
    except ImportError:
        return False
    return Path(resolve_model(model).location).is_dir()


def build_mode(mode: str, encoder: Encoder | None, policy: str, show_progress: bool) -> TaskAware:
    """fts5, dense (windowed or truncated) or hybrid (RRF of fts5 and that dense)."""
    if policy not in DENSE_POLICIES:
        raise ConfigError(f"unknown dense policy {policy!r}; choose {' or '.join(DENSE_POLICIES)}")
    if mode == "fts5":
        return Fts5Retriever()
    dense_class = WindowedDenseRetriever if policy == "windows" else DenseRetriever
    dense = dense_class(encoder, show_progress)
    return dense if mode == "dense" else HybridRetriever([Fts5Retriever(), dense])


def run_harness(task: Task, options: HarnessOptions) -> HarnessRun:
    """Run each mode over the task, score it, add diagnostics, and sign the report."""
    scoring = options.scoring()
    encoder = None
    if any(m != "fts5" for m in options.modes):
        encoder = Encoder(resolve_model(options.model), cache_dir(options.cache))
    rankings: dict[str, dict[str, Ranking]] = {}
    modes: dict[str, dict] = {}
    durations: dict[str, float] = {}
    for mode in options.modes:
        started = time.perf_counter()
        retriever = build_mode(mode, encoder, options.dense_policy, options.show_progress)
        rankings[mode] = run_task(task, retriever, options.show_progress)
        entry = {
            "config": retriever.config(),
            "results": score_task(task, rankings[mode], scoring),
            "token_efficiency": token_efficiency(task, rankings[mode], options.ks),
            "recall_curve": recall_curve(task, rankings[mode], options.stratum),
        }
        if options.coverage_depth:
            entry["coverage"] = coverage(task, rankings[mode], options.coverage_depth)
        modes[mode] = entry
        durations[mode] = time.perf_counter() - started
    content = {
        "kind": options.dataset.get("kind", task.name),
        "dataset": options.dataset,
        "task": task_identity(task),
        "primary_metric": scoring.metrics[0],
        "headline_metrics": list(options.headline_metrics),
        "primary_stratum": options.stratum,
        "scoring": scoring.describe(),
        "mode_order": list(options.modes),
        "modes": modes,
    }
    extra = {}
    if encoder:
        content["model"] = encoder.describe()
        extra = encoder.run_facts()
    return HarnessRun(rankings, make_report(content, environment(durations, **extra)))


def rankings_rows(task: Task, rankings: dict[str, Ranking]) -> list[dict]:
    """Generic rankings-JSONL rows (store_id, query_id, ranked_ids), in task order."""
    return [
        {"store_id": q.store_id, "query_id": q.id, "ranked_ids": list(rankings[q.id].doc_ids)} for q in task.queries
    ]


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
