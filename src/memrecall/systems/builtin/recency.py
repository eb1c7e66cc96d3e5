"""Recency: newest document first, whatever the query."""

from __future__ import annotations

from collections.abc import Sequence

from memrecall.data.model import Document, Query, Ranking, rank_by_score
from memrecall.systems.builtin.base import TaskAware


class RecencyRetriever(TaskAware):
    """Scores a document by its timestamp (POSIX seconds); ties and undated ones keep store order."""

    name = "recency"

    def __init__(self) -> None:
        self._store: tuple[Document, ...] = ()

    def index(self, store: Sequence[Document]) -> None:
        """Keep the store."""
        self._store = tuple(store)

    def rank(self, query: Query) -> Ranking:
        """Newest first; undated documents last, in store order."""
        oldest = min((d.timestamp.timestamp() for d in self._store if d.timestamp), default=0.0)
        scores = [d.timestamp.timestamp() if d.timestamp else oldest - 1.0 for d in self._store]
        return rank_by_score(query.id, [d.id for d in self._store], scores)
