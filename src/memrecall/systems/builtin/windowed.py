"""Dense retrieval for documents longer than the encoder's window: score a document by its best window."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from memrecall.data.model import Document, PublicTask, Query
from memrecall.encoding.embeddings import Encoder
from memrecall.systems.builtin.dense import DenseRetriever

WINDOW_WORDS = 160


def split_windows(text: str, max_words: int = WINDOW_WORDS) -> list[str]:
    """Pack consecutive lines into windows of at most `max_words` words; longer lines are cut in chunks.

    160 words stays under MiniLM's 256-wordpiece limit for ordinary English prose.
    """
    windows: list[str] = []
    current: list[str] = []
    count = 0
    for line in text.split("\n"):
        words = line.split()
        if not words:
            continue
        if len(words) > max_words:
            if current:
                windows.append("\n".join(current))
                current, count = [], 0
            windows.extend(" ".join(words[i : i + max_words]) for i in range(0, len(words), max_words))
            continue
        if count + len(words) > max_words and current:
            windows.append("\n".join(current))
            current, count = [], 0
        current.append(line)
        count += len(words)
    if current:
        windows.append("\n".join(current))
    return windows or [""]


class WindowedDenseRetriever(DenseRetriever):
    """Cosine of the query with each window of a document; a document scores its best window (max-sim).

    Ties keep store order.
    """

    name = "dense"

    def __init__(self, encoder: Encoder, show_progress: bool = False, window_words: int = WINDOW_WORDS) -> None:
        super().__init__(encoder, show_progress)
        self.window_words = window_words
        self._offsets = np.zeros(1, dtype=np.int64)

    def config(self) -> dict:
        """Name, encoder identity and the long-document policy."""
        return {**super().config(), "long_documents": f"max over windows of <= {self.window_words} words"}

    def prepare(self, task: PublicTask) -> None:
        """Encode every window of every document, and every query, once."""
        windows = [w for store in task.stores.values() for d in store for w in split_windows(d.text, self.window_words)]
        self.ensure_vectors(windows, [q.text for q in task.queries])

    def index(self, store: Sequence[Document]) -> None:
        """Stack window vectors; remember where each document's windows start."""
        per_doc = [split_windows(d.text, self.window_words) for d in store]
        self.ensure_vectors([w for windows in per_doc for w in windows])
        self._ids = [d.id for d in store]
        counts = [len(w) for w in per_doc]
        self._offsets = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64) if counts else self._offsets
        flat = [self.vector("document", w) for windows in per_doc for w in windows]
        self._matrix = np.stack(flat) if flat else self._matrix

    def similarities(self, query: Query) -> np.ndarray:
        """Best window cosine per document, in store order."""
        self.ensure_vectors((), [query.text])
        window_scores = self._matrix @ self.vector("query", query.text)
        return np.maximum.reduceat(window_scores, self._offsets)
