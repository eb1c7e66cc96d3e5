"""Retrievers behind one protocol, and the registry that builds them by name."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from memrecall.embeddings import Encoder
from memrecall.errors import ConfigError
from memrecall.retrievers.base import Retriever, TaskAware
from memrecall.retrievers.dense import DenseRetriever
from memrecall.retrievers.fts5 import Fts5Retriever
from memrecall.retrievers.fusion import HybridRetriever, reciprocal_rank_fusion
from memrecall.retrievers.hashing import HashingRetriever
from memrecall.retrievers.recency import RecencyRetriever

BASELINE_STRATEGIES = ("recency", "hashing", "dense", "fts5", "hybrid")
MEMORY_MODEL_STRATEGIES = ("time-decay", "salience-oracle", "salience-vader", "gated")
ALL_STRATEGIES = BASELINE_STRATEGIES + MEMORY_MODEL_STRATEGIES
NEEDS_ENCODER = {"dense", "hybrid", *MEMORY_MODEL_STRATEGIES}
# (strategy, its ablation, what the ablation removes): reported as paired comparisons when both ran
ABLATIONS = (
    ("time-decay", "dense", "time decay"),
    ("salience-oracle", "dense", "oracle salience"),
    ("salience-vader", "dense", "estimated salience"),
    ("gated", "salience-vader", "the gate"),
    ("gated", "dense", "gated salience"),
)

__all__ = [
    "ABLATIONS",
    "ALL_STRATEGIES",
    "BASELINE_STRATEGIES",
    "Retriever",
    "TaskAware",
    "build_retriever",
    "parse_strategies",
    "reciprocal_rank_fusion",
]


def parse_strategies(text: str, known: Sequence[str] = ALL_STRATEGIES) -> list[str]:
    """Split a comma list of strategy names, rejecting unknown or repeated ones."""
    names = [n.strip() for n in text.split(",") if n.strip()]
    if not names:
        raise ConfigError("no strategy given")
    unknown = [n for n in names if n not in known]
    if unknown:
        raise ConfigError(f"unknown strategy {unknown[0]!r}; choose from {', '.join(known)}")
    if len(set(names)) != len(names):
        raise ConfigError("a strategy is listed twice")
    return names


def build_retriever(name: str, encoder: Callable[[], Encoder], show_progress: bool = False) -> TaskAware:
    """A fresh retriever for a strategy name; `encoder` is called only when one is needed."""
    if name == "recency":
        return RecencyRetriever()
    if name == "hashing":
        return HashingRetriever()
    if name == "fts5":
        return Fts5Retriever()
    if name == "dense":
        return DenseRetriever(encoder(), show_progress)
    if name == "hybrid":
        return HybridRetriever([Fts5Retriever(), DenseRetriever(encoder(), show_progress)])
    if name in MEMORY_MODEL_STRATEGIES:
        from memrecall.retrievers.memory_models import build_memory_model

        return build_memory_model(name, DenseRetriever(encoder(), show_progress))
    raise ConfigError(f"unknown strategy {name!r}")
