"""A small pure-Python TF-IDF system for memrecall: cosine of log-scaled tf-idf vectors.

Run it:  memrecall run locomo --data ../shared/data/locomo10.json --system examples.tfidf_system:TfidfSystem
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

WORD = re.compile(r"[a-z0-9]+")


def words(text: str) -> list[str]:
    """Lowercase alphanumeric runs."""
    return WORD.findall(text.lower())


class TfidfSystem:
    """Cosine between (1 + log tf) * idf vectors, idf = log((1 + N) / (1 + df)) + 1; ties keep store order."""

    name = "tfidf"

    def index(self, documents: Sequence) -> None:
        """Count terms per document and document frequencies over the store."""
        self._ids = [d.id for d in documents]
        counts = [Counter(words(d.text)) for d in documents]
        frequency = Counter(term for c in counts for term in c)
        total = len(documents)
        self._idf = {term: math.log((1 + total) / (1 + df)) + 1 for term, df in frequency.items()}
        self._vectors = [self._unit(c) for c in counts]

    def _unit(self, counts: Counter) -> dict[str, float]:
        """The normalised tf-idf vector of a bag of words (terms unknown to the store are dropped)."""
        vector = {t: (1 + math.log(n)) * self._idf[t] for t, n in counts.items() if t in self._idf}
        norm = math.sqrt(sum(v * v for v in vector.values())) or 1.0
        return {t: v / norm for t, v in vector.items()}

    def rank(self, query) -> list[str]:
        """Every document id, highest cosine first."""
        q = self._unit(Counter(words(query.text)))
        scores = [sum(weight * doc.get(term, 0.0) for term, weight in q.items()) for doc in self._vectors]
        order = sorted(range(len(self._ids)), key=lambda i: (-scores[i], i))
        return [self._ids[i] for i in order]
