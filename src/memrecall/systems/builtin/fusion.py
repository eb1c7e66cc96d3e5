"""Reciprocal-rank fusion as a plain function over rankings, and the hybrid retriever."""

from __future__ import annotations

from collections.abc import Sequence

from memrecall.data.model import Document, Query, Ranking
from memrecall.systems.builtin.base import TaskAware

RRF_K = 60


def reciprocal_rank_fusion(
    rankings: Sequence[Ranking], k: int = RRF_K, weights: Sequence[float] | None = None
) -> Ranking:
    """Score each id by sum of weight / (k + rank); ties follow the first ranking's order.

    Ids missing from some rankings simply get no contribution from them.
    """
    if not rankings:
        raise ValueError("reciprocal_rank_fusion needs at least one ranking")
    weights = list(weights) if weights is not None else [1.0] * len(rankings)
    if len(weights) != len(rankings):
        raise ValueError(f"{len(weights)} weights for {len(rankings)} rankings")
    scores: dict[str, float] = {}
    order: dict[str, int] = {}
    for ranking, weight in zip(rankings, weights, strict=True):
        for rank, doc_id in enumerate(ranking.doc_ids, start=1):
            scores[doc_id] = scores.get(doc_id, 0.0) + weight / (k + rank)
            order.setdefault(doc_id, len(order))
    ids = sorted(scores, key=lambda d: (-scores[d], order[d]))
    return Ranking(rankings[0].query_id, tuple(ids), tuple(scores[d] for d in ids))


class HybridRetriever(TaskAware):
    """RRF of several retrievers' rankings (by default fts5 and dense, k = 60, equal weights)."""

    name = "hybrid"

    def __init__(self, parts: Sequence[TaskAware], k: int = RRF_K, weights: Sequence[float] | None = None) -> None:
        self.parts = list(parts)
        self.k = k
        self.weights = list(weights) if weights is not None else [1.0] * len(self.parts)

    def config(self) -> dict:
        """Fusion constant, weights and the parts' own configs."""
        return {
            "name": self.name,
            "fusion": "rrf",
            "k": self.k,
            "weights": self.weights,
            "parts": [p.config() for p in self.parts],
        }

    def prepare(self, task) -> None:
        """Prepare every part."""
        for part in self.parts:
            part.prepare(task)

    def index(self, store: Sequence[Document]) -> None:
        """Index the store in every part."""
        for part in self.parts:
            part.index(store)

    def rank(self, query: Query) -> Ranking:
        """Fuse the parts' rankings."""
        return reciprocal_rank_fusion([p.rank(query) for p in self.parts], self.k, self.weights)
