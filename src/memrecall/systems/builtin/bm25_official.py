"""LongMemEval's own BM25 baseline (`flat-bm25`), reproduced exactly for comparison with the paper."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from memrecall.data.model import Document, Query, Ranking
from memrecall.systems.builtin.base import TaskAware


class OfficialBM25(TaskAware):
    """rank_bm25.BM25Okapi over `text.split(" ")`, case-sensitive, the query split the same way.

    Order: `np.argsort(scores)[::-1]`, as the official code ranks, so ties fall in that (reversed
    argsort) order. memrecall's own `fts5` stays the recommended keyword arm.
    """

    name = "bm25-official"

    def __init__(self) -> None:
        self._ids: list[str] = []
        self._bm25 = None

    def config(self) -> dict:
        """Library, tokenisation and tie order."""
        from importlib.metadata import version

        return {
            "name": self.name,
            "library": f"rank_bm25 {version('rank_bm25')}",
            "tokens": 'text.split(" "), case-sensitive',
            "order": "np.argsort(scores)[::-1]",
        }

    def index(self, documents: Sequence[Document]) -> None:
        """Build BM25Okapi (default k1 1.5, b 0.75, epsilon 0.25) over the store."""
        from rank_bm25 import BM25Okapi

        self._ids = [d.id for d in documents]
        self._bm25 = BM25Okapi([d.text.split(" ") for d in documents])

    def rank(self, query: Query) -> Ranking:
        """Every document, best BM25 score first, in the official order."""
        scores = np.asarray(self._bm25.get_scores(query.text.split(" ")), dtype=np.float64)
        order = np.argsort(scores)[::-1]
        return Ranking(query.id, tuple(self._ids[i] for i in order), tuple(float(scores[i]) for i in order))
