"""A memrecall system on the bm25s library: BM25 over English-stopworded tokens.

Run it:  memrecall run epirec --system examples.bm25s_system:BM25sSystem
"""

from __future__ import annotations

from collections.abc import Sequence

import bm25s
import numpy as np


class BM25sSystem:
    """BM25 (bm25s defaults: k1 1.5, b 0.75, Lucene idf); ties keep store order."""

    name = "bm25s"

    def __init__(self) -> None:
        self._ids: list[str] = []
        self._retriever: bm25s.BM25 | None = None

    def config(self) -> dict:
        """What defines this system's output."""
        return {"name": self.name, "library": f"bm25s {bm25s.__version__}", "stopwords": "en"}

    def index(self, documents: Sequence) -> None:
        """Tokenise the store's texts and build the BM25 index."""
        self._ids = [d.id for d in documents]
        tokens = bm25s.tokenize([d.text for d in documents], stopwords="en", show_progress=False)
        self._retriever = bm25s.BM25()
        self._retriever.index(tokens, show_progress=False)

    def rank(self, query) -> list[str]:
        """Every document id, best BM25 score first."""
        words = bm25s.tokenize([query.text], stopwords="en", show_progress=False, return_ids=False)[0]
        scores = self._retriever.get_scores(words) if words else np.zeros(len(self._ids))
        order = sorted(range(len(self._ids)), key=lambda i: (-float(scores[i]), i))
        return [self._ids[i] for i in order]
