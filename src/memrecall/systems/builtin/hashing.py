"""The reference hashed bag of words: md5 buckets with signs, L2-normalised, cosine."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

import numpy as np

from memrecall.data.model import Document, Query, Ranking, rank_by_score
from memrecall.systems.builtin.base import TaskAware

DIMENSIONS = 256
_TOKEN = re.compile(r"[a-z0-9']+")


def hashed_vector(text: str, dimensions: int = DIMENSIONS) -> np.ndarray:
    """Lowercase, tokens [a-z0-9']+, md5 -> h; +1 at h mod d if (h >> 8) is even else -1; L2-normalise."""
    vector = np.zeros(dimensions, dtype=np.float64)
    for token in _TOKEN.findall(text.lower()):
        h = int.from_bytes(hashlib.md5(token.encode("utf-8")).digest(), "big")
        vector[h % dimensions] += 1.0 if (h >> 8) % 2 == 0 else -1.0
    norm = np.linalg.norm(vector)
    return vector / norm if norm > 0 else vector


class HashingRetriever(TaskAware):
    """Cosine between hashed bag-of-words vectors; ties keep store order."""

    name = "hashing"

    def __init__(self, dimensions: int = DIMENSIONS) -> None:
        self.dimensions = dimensions
        self._ids: list[str] = []
        self._matrix = np.zeros((0, dimensions))

    def config(self) -> dict:
        """Name and vector size."""
        return {"name": self.name, "dimensions": self.dimensions, "hash": "md5", "tokens": "[a-z0-9']+"}

    def index(self, store: Sequence[Document]) -> None:
        """Hash every document once."""
        self._ids = [d.id for d in store]
        self._matrix = np.array([hashed_vector(d.text, self.dimensions) for d in store]).reshape(-1, self.dimensions)

    def rank(self, query: Query) -> Ranking:
        """Cosine similarity, best first."""
        scores = self._matrix @ hashed_vector(query.text, self.dimensions)
        return rank_by_score(query.id, self._ids, scores.tolist())
