"""midas (midas-memory): its in-memory Memory with the bundled MiniLM as its `embedder=`, ranked by its default recall.

`midas`: Memory(embedder=<MiniLM>, now=<a fixed clock>) per store; remember_many() of every document (content, metadata
{"doc_id": id}; what remember() does per item, its embeddings in one batch; its default kind "note"; with no
importance_scorer given, midas gives every memory importance 1); ranked by Memory.recall(text, limit=k) with every other
argument at its default (dense, not hybrid; pool = 5 x limit; score = relevance + 0.3 x importance + 0.2 x recency; hits
under 0.3 x the best relevance dropped). `midas-hashing`: a bare Memory() as `pip install midas-memory` runs it offline:
with fastembed absent midas picks its HashingEmbedder (a 256-dimension hashed bag of words, no model) without a word,
and that embedder's own floor drops no-overlap hits. The clock is fixed (documents carry no time midas is given):
recency is then 1.0 for every memory instead of depending on how many seconds ingest took. MIDAS_EMBEDDER is removed
around calls (it would switch the bare default). Every call runs with the working directory and HOME in the adapter's
temp folder. Ties: midas's order (score, then updated_at, then its vector search's order). Hits map back through the
metadata; a hit that maps back to no document makes the query NotMeasurable. Documents recall leaves out (dropped by its
relevance floors) are appended in store order and counted per store."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Sequence
from typing import Any

from memrecall.systems.adapters import common
from memrecall.systems.contract import NotMeasurable

CLOCK = 1_700_000_000.0  # the fixed "now" (seconds since the epoch) every memory is stamped and recalled at
REMOVED_ENV = ("MIDAS_EMBEDDER",)
DROPPED = "queries: recall returned fewer memories than asked (its relevance floors dropped the rest); rest appended"


class MiniLMEmbedder:
    """midas's Embedder protocol (dim, embed, embed_many) over the bundled MiniLM, unit-length vectors."""

    dim = 384
    model_name = "all-MiniLM-L6-v2 (memrecall's bundled folder)"
    min_relevance = 0.0  # the floor midas reads from a semantic embedder: none

    def __init__(self, model: Any) -> None:
        self._model = model

    def embed(self, text: str) -> list[float]:
        """One text's vector."""
        return common.encode_texts(self._model, [text])[0].tolist()

    def embed_many(self, texts: list[str]) -> list[list[float]]:
        """Many texts' vectors in one batch."""
        return [vector.tolist() for vector in common.encode_texts(self._model, texts)]


class MidasAdapter(common.StoreCounts):
    """Memory(embedder=MiniLM) per store; remember_many() of the documents; recall(limit=k) at its defaults."""

    name = "midas"
    embed = True  # False: midas's own offline default embedder (midas-hashing)

    def __init__(self) -> None:
        self._folder = common.WorkingFolder(self.name)
        self._memory: Any = None
        self._model: Any = None
        self._ids: list[str] = []
        self._depth: int | None = None

    def prepare(self, task: Any) -> None:
        """Use the task's depth when it gives one; otherwise rank the whole store."""
        self._depth = common.task_depth(task)

    @contextlib.contextmanager
    def _inside(self) -> Iterator[None]:
        """The working folder, with REMOVED_ENV unset; everything restored after."""
        saved = {key: os.environ.pop(key, None) for key in REMOVED_ENV}
        try:
            with self._folder.inside():
                yield
        finally:
            os.environ.update({key: value for key, value in saved.items() if value is not None})

    def _stack(self) -> Any:
        """The midas package and, once, the bundled MiniLM; ConfigError naming the extra when missing."""
        common.offline_env()
        with self._inside():
            midas = common.import_stack("midas", "midas", self.name)
            if self._model is None and self.embed:
                self._model = common.sentence_encoder(self.name)
        return midas

    def index(self, documents: Sequence[Any]) -> None:
        """A fresh Memory; remember_many() of the documents in store order, each id in metadata."""
        midas = self._stack()
        self._new_store()
        self._ids = [d.id for d in documents]
        with self._inside():
            embedder = MiniLMEmbedder(self._model) if self.embed else None
            self._memory = midas.Memory(embedder=embedder, now=lambda: CLOCK)
            kept = [d for d in documents if d.text.strip()]  # remember() refuses empty content (ValueError)
            self._count("documents not stored: empty text, which remember() refuses", len(documents) - len(kept))
            self._memory.remember_many([{"content": d.text, "metadata": {"doc_id": d.id}} for d in kept])

    def rank(self, query: Any) -> Any:
        """recall() for k memories (the store, or the depth), mapped back, then the rest in store order."""
        if not self._ids:
            return []
        limit = min(self._depth or len(self._ids), len(self._ids))
        with self._inside():
            hits = self._memory.recall(query.text, limit=limit)
        self._count(DROPPED, len(hits) < limit)
        returned = [hit.record.metadata.get("doc_id") for hit in hits]
        if any(doc_id not in self._ids for doc_id in returned):
            return NotMeasurable(f"{self.name}: a recall hit maps back to no document for query {query.id!r}")
        return common.with_unreturned(returned, self._ids, self._depth)

    def close(self) -> None:
        """Drop the current store (midas's default store is in memory)."""
        self._memory = None

    def config(self) -> dict:
        """midas's version, its embedder and its recall defaults."""
        embedder = type(self._memory.embedder).__name__ if self._memory is not None else None
        return {
            "name": self.name,
            "stack": "midas-memory",
            "version": common.stack_version("midas-memory"),
            "store": "Memory(store=InMemoryStore (its default), now=<fixed clock>), one per store",
            "remember": "remember_many([{content: text, metadata: {'doc_id': id}}]) in store order (kind 'note', "
            "importance 1: no importance_scorer, midas's default)",
            "recall": "Memory.recall(text, limit=k) (dense; pool 5 x k; score relevance + 0.3 importance + 0.2 "
            "recency; min_relevance_ratio 0.3)",
            "embedder": "MiniLMEmbedder: common.sentence_encoder/encode_texts (unit length) through embedder="
            if self.embed
            else f"Memory()'s own default, offline here: {embedder}",
            "clock": f"fixed at {CLOCK} (recency 1.0 for every memory)",
            **(common.model_config() if self.embed else {}),
            "k": "whole store" if self._depth is None else self._depth,
            "ties": "midas's order (score, then updated_at, then its vector search's order)",
            "unreturned": common.UNRETURNED,
        }


class MidasHashingAdapter(MidasAdapter):
    """A bare Memory() as it runs offline: midas's HashingEmbedder, picked silently when fastembed is absent."""

    name = "midas-hashing"
    embed = False

    def index(self, documents: Sequence[Any]) -> None:
        """As midas, after checking that the bare default is the hashing embedder (not a fastembed download)."""
        super().index(documents)
        picked = type(self._memory.embedder).__name__
        self._count(f"stores whose default embedder was {picked}, not HashingEmbedder", picked != "HashingEmbedder")
