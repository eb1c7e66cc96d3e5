"""Chroma: an in-memory collection (HNSW, cosine space) embedding with SentenceTransformerEmbeddingFunction.

Chroma's default embedding function downloads an ONNX model at the first add(), so the adapter passes
SentenceTransformerEmbeddingFunction pointed at the bundled MiniLM folder. Environment (common.OFFLINE_ENV):
ANONYMIZED_TELEMETRY=False (Chroma's posthog telemetry; also set in Settings), HF_HUB_OFFLINE=1 and
TRANSFORMERS_OFFLINE=1 (no hub), ORT_DISABLE_TELEMETRY=1 (ONNX Runtime's telemetry host lookup).
Ties: equal distances in store order; ids Chroma leaves out are appended in store order.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

from memrecall.systems.adapters import common

HNSW = {"space": "cosine", "ef_construction": 100, "ef_search": 100, "max_neighbors": 16}


class ChromaAdapter:
    """A fresh EphemeralClient collection per store; query_texts searched for the whole store."""

    name = "chroma"

    def __init__(self) -> None:
        self._client: Any = None
        self._embed: Any = None
        self._collection: Any = None
        self._ids: list[str] = []
        self._depth: int | None = None

    def _setup(self) -> None:
        common.offline_env()
        chromadb = common.import_stack("chromadb", "chroma", self.name)
        from chromadb.config import Settings
        from chromadb.utils.embedding_functions import SentenceTransformerEmbeddingFunction
        from transformers.utils import logging as transformers_logging

        transformers_logging.disable_progress_bar()  # no weight-loading bar on stderr

        self._client = chromadb.EphemeralClient(settings=Settings(anonymized_telemetry=False, allow_reset=True))
        self._embed = SentenceTransformerEmbeddingFunction(
            model_name=common.local_model_path(), device="cpu", normalize_embeddings=True
        )

    def prepare(self, task: Any) -> None:
        """Take only the task's depth (an int), if any."""
        self._depth = common.task_depth(task)

    def index(self, documents: Sequence[Any]) -> None:
        """Drop the previous store's collection and add this store's texts to a new one."""
        if self._client is None:
            self._setup()
        if self._collection is not None:
            self._client.delete_collection(self._collection.name)
        # EphemeralClient shares one in-process system, so each collection gets a unique (unranked) name.
        self._collection = self._client.create_collection(
            f"memrecall-{uuid.uuid4().hex}", embedding_function=self._embed, configuration={"hnsw": dict(HNSW)}
        )
        self._ids = [d.id for d in documents]
        if documents:
            self._collection.add(ids=self._ids, documents=[d.text for d in documents])

    def rank_many(self, queries: Sequence[Any]) -> list[list[str]]:
        """One query call for the queries of the indexed store."""
        if not queries:
            return []
        if not self._ids:
            return [[] for _ in queries]
        found = self._collection.query(
            query_texts=[q.text for q in queries], n_results=len(self._ids), include=["distances"]
        )
        out = []
        for ids, distances in zip(found["ids"], found["distances"], strict=True):
            ordered = common.order_hits(zip(ids, distances, strict=True), self._ids, higher_is_better=False)
            out.append(common.with_unreturned(ordered, self._ids, self._depth))
        return out

    def rank(self, query: Any) -> list[str]:
        """The store's ids, smallest cosine distance first."""
        return self.rank_many([query])[0]

    def config(self) -> dict:
        """Stack, version, HNSW settings, embedding function, model and tie rule."""
        return {
            "name": self.name,
            "stack": "chromadb",
            "version": common.stack_version("chromadb"),
            "client": "EphemeralClient",
            "hnsw": dict(HNSW),
            "embedding_function": "SentenceTransformerEmbeddingFunction(normalize_embeddings=True)",
            **common.model_config(),
            "k": "whole store" if self._depth is None else self._depth,
            "ties": "equal distances in store order",
            "unreturned": common.UNRETURNED,
        }
