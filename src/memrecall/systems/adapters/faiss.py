"""FAISS: IndexFlatIP (exact cosine over unit vectors) and IndexHNSWFlat (approximate), MiniLM from its folder.

FAISS has no embedding interface of its own; vectors come from sentence-transformers' SentenceTransformer
loaded from the bundled MiniLM folder (`encode`, normalize_embeddings=True), the usual way to feed FAISS.
Environment (common.OFFLINE_ENV): HF_HUB_OFFLINE=1 and TRANSFORMERS_OFFLINE=1 so nothing reaches the hub.
Ties: equal inner products in store order; the full store is searched, so nothing is left unreturned.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from memrecall.systems.adapters import common


class _FaissAdapter:
    """Shared FAISS flow: encode the store, build one index per store, search every query for the whole store."""

    name = "faiss"

    def __init__(self) -> None:
        self._model: Any = None
        self._index: Any = None
        self._ids: list[str] = []
        self._depth: int | None = None

    def _faiss(self) -> Any:
        common.offline_env()
        return common.import_stack("faiss", "faiss", self.name)

    def _build(self, faiss: Any, dimension: int) -> Any:
        raise NotImplementedError

    def prepare(self, task: Any) -> None:
        """Take only the task's depth (an int), if any."""
        self._depth = common.task_depth(task)

    def index(self, documents: Sequence[Any]) -> None:
        """Encode the store's texts and add them, in store order, to a fresh index."""
        faiss = self._faiss()
        if self._model is None:
            self._model = common.sentence_encoder(self.name)
        faiss.omp_set_num_threads(1)  # one thread: the same float sums on every machine
        self._ids = [d.id for d in documents]
        vectors = common.encode_texts(self._model, [d.text for d in documents])
        self._index = self._build(faiss, vectors.shape[1])
        self._index.add(vectors)

    def rank_many(self, queries: Sequence[Any]) -> list[list[str]]:
        """One batched search for the queries of the indexed store."""
        if not queries:
            return []
        vectors = common.encode_texts(self._model, [q.text for q in queries])
        k = len(self._ids)
        scores, rows = self._index.search(vectors, k)
        out = []
        for score_row, id_row in zip(scores, rows, strict=True):
            hits = [(self._ids[i], s) for i, s in zip(id_row.tolist(), score_row.tolist(), strict=True) if i >= 0]
            out.append(common.with_unreturned(common.order_hits(hits, self._ids), self._ids, self._depth))
        return out

    def rank(self, query: Any) -> list[str]:
        """The store's ids, best inner product first."""
        return self.rank_many([query])[0]

    def settings(self) -> dict:
        """Index settings that change results."""
        return {}

    def config(self) -> dict:
        """Stack, version, index settings, model and tie rule."""
        return {
            "name": self.name,
            "stack": "faiss-cpu",
            "version": common.stack_version("faiss-cpu"),
            "encoder": f"sentence-transformers {common.stack_version('sentence-transformers')}",
            **common.model_config(),
            **self.settings(),
            "k": "whole store" if self._depth is None else self._depth,
            "ties": "equal scores in store order",
            "unreturned": common.UNRETURNED,
            "threads": 1,
        }


class FaissFlatAdapter(_FaissAdapter):
    """IndexFlatIP over unit-length MiniLM vectors: exact cosine."""

    name = "faiss-flat"

    def _build(self, faiss: Any, dimension: int) -> Any:
        return faiss.IndexFlatIP(dimension)

    def settings(self) -> dict:
        """Exact inner product."""
        return {"index": "IndexFlatIP", "metric": "inner product over unit vectors (cosine)"}


class FaissHnswAdapter(_FaissAdapter):
    """IndexHNSWFlat (inner product) with fixed M, efConstruction and efSearch: approximate cosine."""

    name = "faiss-hnsw"

    def __init__(self, m: int = 32, ef_construction: int = 40, ef_search: int = 16) -> None:
        super().__init__()
        self.m, self.ef_construction, self.ef_search = m, ef_construction, ef_search

    def _build(self, faiss: Any, dimension: int) -> Any:
        index = faiss.IndexHNSWFlat(dimension, self.m, faiss.METRIC_INNER_PRODUCT)
        index.hnsw.efConstruction = self.ef_construction
        index.hnsw.efSearch = self.ef_search
        return index

    def settings(self) -> dict:
        """HNSW graph parameters."""
        return {
            "index": "IndexHNSWFlat",
            "metric": "inner product over unit vectors (cosine)",
            "M": self.m,
            "efConstruction": self.ef_construction,
            "efSearch": self.ef_search,
        }
