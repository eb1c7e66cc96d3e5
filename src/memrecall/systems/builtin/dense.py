"""Dense retrieval: cosine between normalised sentence embeddings."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from memrecall.data.model import Document, PublicTask, Query, Ranking, rank_by_score
from memrecall.encoding.embeddings import Encoder, text_sha256
from memrecall.errors import ConfigError
from memrecall.progress import progress_bar
from memrecall.systems.builtin.base import TaskAware


class DenseRetriever(TaskAware):
    """Cosine similarity of encoder vectors; ties keep store order.

    `prepare` encodes every document and query of a Task in batches, once, through the
    encoder's on-disk cache; `index` and `rank` then only look vectors up. Vectors are kept by
    (role, text sha256): a query and a document with one text differ when the encoder has prompts.
    """

    name = "dense"

    def __init__(self, encoder: Encoder, show_progress: bool = False) -> None:
        self.encoder = encoder
        self.show_progress = show_progress
        self._vectors: dict[tuple[str, str], np.ndarray] = {}
        self._ids: list[str] = []
        self._matrix = np.zeros((0, 0), dtype=np.float32)

    def __getstate__(self) -> dict:
        """Picklable for parallel executors: the vectors travel, the encoder (model and cache) stays here."""
        return {**self.__dict__, "encoder": None, "_identity": self._model_identity()}

    def _model_identity(self) -> dict | None:
        """The encoder's id and weights sha256 (kept when the retriever travels without its encoder)."""
        return self.encoder.describe() if self.encoder is not None else self.__dict__.get("_identity")

    def config(self) -> dict:
        """Name and encoder identity."""
        return {"name": self.name, "model": self._model_identity(), "similarity": "cosine"}

    def prepare(self, task: PublicTask) -> None:
        """Encode all distinct document and query texts of the task."""
        documents = [d.text for store in task.stores.values() for d in store]
        self.ensure_vectors(documents, [q.text for q in task.queries])

    def ensure_vectors(self, documents: Sequence[str], queries: Sequence[str] = ()) -> None:
        """Make sure every document and query text has a vector in memory, encoding the missing ones together."""
        pairs = [("document", t) for t in documents] + [("query", t) for t in queries]
        todo = list(dict.fromkeys(p for p in pairs if (p[0], text_sha256(p[1])) not in self._vectors))
        if not todo:
            return
        if self.encoder is None:
            raise ConfigError(f"{self.name}: {len(todo)} text(s) were not encoded before ranking moved to a worker")
        with progress_bar(len(todo), f"{self.name}: encoding", self.show_progress, unit="text") as bar:
            vectors = self.encoder.encode_pairs(todo, progress=bar.update)
        self._vectors.update(zip(((role, text_sha256(t)) for role, t in todo), vectors, strict=True))

    def vector(self, role: str, text: str) -> np.ndarray:
        """The in-memory vector of a text as a query or a document."""
        return self._vectors[(role, text_sha256(text))]

    def similarities(self, query: Query) -> np.ndarray:
        """Cosine of the query against each document of the indexed store, in store order."""
        self.ensure_vectors((), [query.text])
        return self._matrix @ self.vector("query", query.text)

    def index(self, store: Sequence[Document]) -> None:
        """Stack the store's vectors into a matrix."""
        self.ensure_vectors([d.text for d in store])
        self._ids = [d.id for d in store]
        self._matrix = np.stack([self.vector("document", d.text) for d in store]) if store else self._matrix

    def rank(self, query: Query) -> Ranking:
        """Best cosine first."""
        return rank_by_score(query.id, self._ids, self.similarities(query).astype(np.float64).tolist())
