"""Qdrant in local mode (QdrantClient(":memory:")): cosine distance, exact search, MiniLM from its folder.

Qdrant's own text interface (client.add / models.Document) goes through fastembed, which downloads ONNX
models; so vectors come from sentence-transformers' SentenceTransformer loaded from the bundled MiniLM folder
(normalize_embeddings=True), and Qdrant stores and searches them. Local mode always scans every point
(exact; qdrant-client warns that search_params such as exact=True have no effect there, so none are passed).
Environment (common.OFFLINE_ENV): HF_HUB_OFFLINE=1 and TRANSFORMERS_OFFLINE=1 (no hub).
Ties: equal scores in store order; unreturned ids appended in store order.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from memrecall.systems.adapters import common

COLLECTION = "memrecall"


class QdrantAdapter:
    """A fresh in-memory QdrantClient per store; point ids are store positions, the doc id rides in the payload."""

    name = "qdrant"

    def __init__(self) -> None:
        self._model: Any = None
        self._client: Any = None
        self._ids: list[str] = []
        self._depth: int | None = None

    def prepare(self, task: Any) -> None:
        """Take only the task's depth (an int), if any."""
        self._depth = common.task_depth(task)

    def index(self, documents: Sequence[Any]) -> None:
        """Encode the store and upsert it into a new in-memory collection."""
        common.offline_env()
        qdrant_client = common.import_stack("qdrant_client", "qdrant", self.name)
        from qdrant_client import models

        if self._model is None:
            self._model = common.sentence_encoder(self.name)
        if self._client is not None:
            self._client.close()
        self._client = qdrant_client.QdrantClient(":memory:")
        dimension = (
            getattr(self._model, "get_embedding_dimension", None) or self._model.get_sentence_embedding_dimension
        )
        self._client.create_collection(
            COLLECTION, vectors_config=models.VectorParams(size=dimension(), distance=models.Distance.COSINE)
        )
        self._ids = [d.id for d in documents]
        if documents:
            vectors = common.encode_texts(self._model, [d.text for d in documents])
            points = [
                models.PointStruct(id=i, vector=vector.tolist(), payload={"doc_id": doc_id})
                for i, (doc_id, vector) in enumerate(zip(self._ids, vectors, strict=True))
            ]
            self._client.upsert(COLLECTION, points=points, wait=True)

    def rank_many(self, queries: Sequence[Any]) -> list[list[str]]:
        """One batched query_batch_points call (local mode is brute force) for the queries of the indexed store."""
        from qdrant_client import models

        if not queries:
            return []
        if not self._ids:
            return [[] for _ in queries]
        vectors = common.encode_texts(self._model, [q.text for q in queries])
        requests = [models.QueryRequest(query=v.tolist(), limit=len(self._ids), with_payload=False) for v in vectors]
        out = []
        for response in self._client.query_batch_points(COLLECTION, requests=requests):
            hits = [(self._ids[int(p.id)], p.score) for p in response.points]
            out.append(common.with_unreturned(common.order_hits(hits, self._ids), self._ids, self._depth))
        return out

    def rank(self, query: Any) -> list[str]:
        """The store's ids, best cosine first."""
        return self.rank_many([query])[0]

    def config(self) -> dict:
        """Stack, version, distance, search mode, encoder, model and tie rule."""
        return {
            "name": self.name,
            "stack": "qdrant-client",
            "version": common.stack_version("qdrant-client"),
            "client": "local mode, :memory:",
            "distance": "Cosine",
            "search": "exact (local mode brute force)",
            "encoder": f"sentence-transformers {common.stack_version('sentence-transformers')}",
            **common.model_config(),
            "k": "whole store" if self._depth is None else self._depth,
            "ties": "equal scores in store order",
            "unreturned": common.UNRETURNED,
        }
