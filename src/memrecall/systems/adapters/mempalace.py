"""MemPalace: its raw drawer-store vector search, and its own hybrid `search_memories`, on the bundled MiniLM.

MemPalace has no embedding parameter, so while it runs `mempalace.embedding.get_embedding_function` is replaced
(scoped, then restored) by one returning Chroma's SentenceTransformerEmbeddingFunction on the local MiniLM
folder. Environment set for the same scope (besides common.OFFLINE_ENV, set once):
- MEMPALACE_CONFIG_DIR=<the store's temp folder>: no ~/.mempalace config is read or written;
- MEMPALACE_BACKEND=chroma and MEMPALACE_EMBEDDING_MODEL=minilm: its default backend and model identity;
- MEMPALACE_HYBRID_VECTOR_WEIGHT=0.6, MEMPALACE_HYBRID_BM25_WEIGHT=0.4: its defaults, pinned against a user's env;
- MEMPALACE_LANG / MEMPAL_LANG removed: no stop-word filtering (its default).
One palace per store in a temp folder (removed); one drawer per document (id = document id, source_file = the
document id, authored_at = its timestamp); no closets, so the hybrid search is drawer-only.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator, Sequence
from typing import Any

from memrecall.errors import SystemFailure
from memrecall.systems.adapters.common import (
    UNRETURNED,
    import_stack,
    local_model_path,
    model_config,
    offline_env,
    stack_version,
    task_depth,
    with_unreturned,
)

SCOPED_ENV = {
    "MEMPALACE_BACKEND": "chroma",
    "MEMPALACE_EMBEDDING_MODEL": "minilm",
    "MEMPALACE_HYBRID_VECTOR_WEIGHT": "0.6",
    "MEMPALACE_HYBRID_BM25_WEIGHT": "0.4",
}
REMOVED_ENV = ("MEMPALACE_LANG", "MEMPAL_LANG")
_EMBEDDERS: dict[str, Any] = {}


def local_embedder() -> Any:
    """Chroma's SentenceTransformerEmbeddingFunction on the local MiniLM folder (one per process)."""
    path = local_model_path()
    if path not in _EMBEDDERS:
        functions = import_stack("chromadb.utils.embedding_functions", "mempalace", "mempalace")
        _EMBEDDERS[path] = functions.SentenceTransformerEmbeddingFunction(
            model_name=path, device="cpu", normalize_embeddings=True
        )
    return _EMBEDDERS[path]


def drawer_metadata(document: Any) -> dict[str, Any]:
    """A drawer's metadata: the document id as its source file, and its timestamp as authored_at."""
    stamp = {"authored_at": document.timestamp.isoformat()} if document.timestamp is not None else {}
    return {"source_file": document.id, "wing": "memrecall", "room": "store", "chunk_index": 0, **stamp}


@contextlib.contextmanager
def patched(config_dir: str) -> Iterator[Any]:
    """MemPalace with the local embedder and pinned settings; everything is restored on exit."""
    offline_env()
    embedding = import_stack("mempalace.embedding", "mempalace", "mempalace")
    embedder = local_embedder()
    saved_env = {key: os.environ.get(key) for key in (*SCOPED_ENV, *REMOVED_ENV, "MEMPALACE_CONFIG_DIR")}
    saved_factory = embedding.get_embedding_function
    os.environ.update({**SCOPED_ENV, "MEMPALACE_CONFIG_DIR": config_dir})
    for key in REMOVED_ENV:
        os.environ.pop(key, None)
    embedding.get_embedding_function = lambda device=None, model=None: embedder
    try:
        yield embedding
    finally:
        embedding.get_embedding_function = saved_factory
        for key, value in saved_env.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


class _MemPalaceBase:
    """One palace per store; subclasses say how a query is searched."""

    name = "mempalace"

    def __init__(self) -> None:
        self._folder: str | None = None
        self._store_ids: list[str] = []
        self._depth: int | None = None

    @property
    def _palace(self) -> str:
        return os.path.join(str(self._folder), "palace")

    def prepare(self, task: Any) -> None:
        """Use the task's depth when it gives one; otherwise rank the whole store."""
        self._depth = task_depth(task)

    def close(self) -> None:
        """Release MemPalace's Chroma client for the palace and remove its temp folder."""
        if self._folder is None:
            return
        with patched(self._folder):
            from mempalace.backends import get_backend

            get_backend("chroma").close_palace(self._palace)
        shutil.rmtree(self._folder, ignore_errors=True)
        self._folder = None

    def index(self, documents: Sequence[Any]) -> None:
        """A fresh palace; every document becomes one drawer (embedded by MemPalace through the local embedder)."""
        self.close()
        self._folder = tempfile.mkdtemp(prefix="memrecall-mempalace-")
        self._store_ids = [document.id for document in documents]
        with patched(self._folder):
            from mempalace.palace import get_collection

            collection = get_collection(self._palace, create=True)
            if documents:
                collection.add(
                    documents=[document.text for document in documents],
                    ids=list(self._store_ids),
                    metadatas=[drawer_metadata(document) for document in documents],
                )

    def _limit(self) -> int:
        return min(self._depth, len(self._store_ids)) if self._depth else len(self._store_ids)

    def rank(self, query: Any) -> list[str]:
        """The stack's ids for the query, then unreturned ids in store order."""
        if not self._limit():
            return []
        with patched(str(self._folder)):
            ids = self._search(query.text, self._limit())
        return with_unreturned(ids, self._store_ids, self._depth)

    def _search(self, text: str, limit: int) -> list[str]:
        raise NotImplementedError

    def config(self) -> dict:
        """MemPalace's version and every setting that changes its rankings."""
        return {
            "name": self.name,
            "stack": "mempalace",
            "version": stack_version("mempalace"),
            "chromadb": stack_version("chromadb"),
            "backend": "chroma (hnsw:space=cosine, hnsw:num_threads=1)",
            "embedder": "chromadb SentenceTransformerEmbeddingFunction (normalized) replacing get_embedding_function",
            **model_config(),
            "n_results": self._depth or "store size",
            "unreturned": UNRETURNED,
        }


class MemPalaceRawAdapter(_MemPalaceBase):
    """MemPalace's raw drawer store: the collection's own vector query, nothing on top."""

    name = "mempalace-raw"

    def _search(self, text: str, limit: int) -> list[str]:
        from mempalace.palace import get_collection

        collection = get_collection(self._palace, create=False, read_only=True)
        found = collection.query(query_texts=[text], n_results=limit, include=["distances"])
        return list(found.ids[0]) if found.ids else []

    def config(self) -> dict:
        """Raw search settings."""
        return {**super().config(), "search": "drawer collection query (vector only)", "ties": "Chroma order"}


class MemPalaceHybridAdapter(_MemPalaceBase):
    """MemPalace's hybrid search_memories: vector pool, then 0.6 (1 - distance, 4 decimals) + 0.4 BM25 / max BM25."""

    name = "mempalace-hybrid"

    def _search(self, text: str, limit: int) -> list[str]:
        searcher = import_stack("mempalace.searcher", "mempalace", "mempalace")
        found = searcher.search_memories(text, self._palace, n_results=limit, max_distance=0.0)
        if "error" in found:
            raise SystemFailure(f"mempalace-hybrid: search_memories failed: {found['error']}")
        ids: list[str] = []
        for hit in found["results"]:
            ids.append(hit["drawer_id"])
            ids.extend(copy["drawer_id"] for copy in hit.get("also_in", ()))
        return ids

    def config(self) -> dict:
        """Hybrid search settings."""
        return {
            **super().config(),
            "search": "search_memories (candidate_strategy=vector, max_distance=0.0, no closets)",
            "fusion": "0.6 * (1 - cosine distance) + 0.4 * BM25 (k1=1.5, b=0.75) min-max normalised over the pool",
            "pool": "4 x n_results from the vector query",
            "stop_words": "none",
            "ties": "MemPalace order (score, then authored_at newest first, then vector order)",
            "folded_copies": "identical texts of 100+ characters come back as also_in; placed right after the hit",
        }
