"""mneme (flywheel-mneme): AgentMemory with the bundled MiniLM as its `embedder=`, ranked by its default hybrid recall.

mneme runs offline as it ships (stdlib sqlite3, no model of its own): one AgentMemory file per store, one user.
Every document is one turn {role: "user", text, id: document id} of one remember() call (user "memrecall"); mneme's
default rule extractor (rule/v1) turns each into atoms (L1 memories), one per fact-shaped sentence, and keeps none
for the rest: by its design those documents produce no memory, are never returned, and are counted per store
(appended in store order, so misses). Recall is AgentMemory.recall(strategy="hybrid", its
default): BM25 and the embedder's cosine fused by RRF(k=60). mneme calls the embedder on every memory for every
query, so the embedder (common.sentence_encoder/encode_texts, unit length) is memoized by text per store; memory
texts are encoded in one batch at index time, queries one at a time. A hybrid recall that ran without its vector
channel is detected (the receipt's fusion rule) and counted. Environment: common.OFFLINE_ENV, and
XDG_STATE_HOME removed around calls (mneme sweeps replay snapshots under it whenever a store opens); every call runs
with the working directory and HOME in the adapter's temp folder. Ties: mneme's (equal fused score by memory id).
Hits map back through remember()'s provenance (memory id -> source turn ids -> document); a hit that maps back to no
document makes the query NotMeasurable. Documents recall leaves out are appended in store order.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from memrecall.systems.adapters import common
from memrecall.systems.contract import NotMeasurable

USER = "memrecall"  # one store = one user
SESSION = "memrecall"  # documents carry no session; recall searches every session of the user
ROLE = "user"  # rule/v1 extracts from user/human turns only; documents carry no role
STRATEGY = "hybrid"  # AgentMemory.recall's default
FUSION = "rrf(k=60) over bm25+cosine"  # the fusion rule mneme's receipt names when both channels ran
REMOVED_ENV = ("XDG_STATE_HOME",)


class MnemeAdapter(common.StoreCounts):
    """AgentMemory(embedder=MiniLM) per store; one remember() per document; recall(strategy="hybrid")."""

    name = "mneme"

    def __init__(self, embed: bool = True) -> None:
        self.embed = embed  # False (no embedder at all) is for the degradation test only
        self._folder = common.WorkingFolder(self.name)
        self._memory: Any = None
        self._db: Path | None = None
        self._model: Any = None
        self._vectors: dict[str, list[float]] = {}
        self._ids: list[str] = []
        self._depth: int | None = None
        self._sources: dict[str, tuple[str, ...]] = {}  # memory id -> its source turn ids, in source order
        self._turn_doc: dict[str, str] = {}  # source turn id -> document id

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

    def _embedder(self, text: str) -> list[float]:
        """The MiniLM vector of a text (unit length), memoized for the current store."""
        if text not in self._vectors:
            self._vectors[text] = common.encode_texts(self._model, [text])[0].tolist()
        return self._vectors[text]

    def _stack(self) -> Any:
        """The mneme package and, once, the bundled MiniLM; ConfigError naming the extra when missing."""
        common.offline_env()
        with self._inside():
            mneme = common.import_stack("mneme", "mneme", self.name)
            if self._model is None and self.embed:
                self._model = common.sentence_encoder(self.name)
        return mneme

    def close(self) -> None:
        """Close the current AgentMemory and remove its store folder."""
        if self._memory is not None:
            with self._inside():
                self._memory.close()
            self._memory = None
        if self._db is not None:
            shutil.rmtree(self._db.parent, ignore_errors=True)
            self._db = None

    def index(self, documents: Sequence[Any]) -> None:
        """A fresh AgentMemory; remember() each document as one user turn; its provenance kept."""
        mneme = self._stack()
        self.close()
        self._db = self._folder.store_folder() / "mneme.db"
        self._ids, self._sources, self._turn_doc, self._vectors = [d.id for d in documents], {}, {}, {}
        self._new_store()
        with self._inside():
            self._memory = mneme.AgentMemory(str(self._db), embedder=self._embedder if self.embed else None)
            for document in documents:
                turn = {"role": ROLE, "text": document.text, "id": document.id}
                done = self._memory.remember(SESSION, [turn], user=USER)
                for receipt in done["provenance"]:
                    self._sources[receipt["memory_id"]] = tuple(receipt["source_ids"])
                    self._turn_doc.update(dict.fromkeys(receipt["source_ids"], document.id))
                self._count(
                    "documents that produced no memory (rule/v1 kept no fact): always appended", not done["atoms"]
                )
            texts = [row["text"] for row in self._memory.store.memories(layer="L1", user=USER)]
        self._count("memories (L1 atoms) remembered", len(texts))
        if self.embed and texts:
            encoded = common.encode_texts(self._model, list(dict.fromkeys(texts)))
            self._vectors.update(zip(dict.fromkeys(texts), (v.tolist() for v in encoded), strict=True))

    def _hit_docs(self, hits: Sequence[Any]) -> list[str | None]:
        """Each hit's source documents in source order (None for a memory or source not from a document)."""
        out: list[str | None] = []
        for hit in hits:
            sources = self._sources.get(hit.memory_id)
            out.extend([None] if not sources else (self._turn_doc.get(s) for s in sources))
        return out

    def rank(self, query: Any) -> Any:
        """recall() over every memory of the store, mapped back through provenance, then the rest in store order."""
        if not self._ids:
            return []
        with self._inside():
            rows = len(self._memory.store.memories(layer="L1", user=USER))
            receipt = self._memory.recall(query.text, strategy=STRATEGY, top_k=max(rows, 1), user=USER)
        self._count(f"queries whose hybrid recall ran as {receipt.fusion!r}, not {FUSION!r}", receipt.fusion != FUSION)
        short = "queries: recall returned fewer memories than the store holds (zero-scored hits dropped); rest appended"
        self._count(short, len(receipt.hits) < rows)
        returned = self._hit_docs(receipt.hits)
        if None in returned:
            return NotMeasurable(f"{self.name}: a recall hit maps back to no document for query {query.id!r}")
        return common.with_unreturned(returned, self._ids, self._depth)

    def config(self) -> dict:
        """mneme's version and its recipe."""
        return {
            "name": self.name,
            "stack": "flywheel-mneme",
            "version": common.stack_version("flywheel-mneme"),
            "store": f"AgentMemory(<store folder>/mneme.db, embedder=<MiniLM>), one per store, user {USER!r}",
            "remember": f"remember({SESSION!r}, [{{role: {ROLE!r}, text, id: document id}}], user={USER!r}) "
            "per document, in store order",
            "role": f"{ROLE!r} for every document: rule/v1 extracts from user/human turns only",
            "extractor": "rule/v1 (mneme's default RuleExtractor: sentences of 3+ words with a fact cue)",
            "timestamps": "not passed: remember() takes none (mneme orders rows by a clock-free ordinal)",
            "recall": f"AgentMemory.recall(text, strategy={STRATEGY!r} (its default), top_k=<every memory>, "
            f"user={USER!r})",
            "fusion": f"{FUSION} (BM25 k1=1.5, b=0.75; cosine of the embedder's vectors); memories with BM25 0 still "
            "take BM25 ranks (in memory-id order) into the fusion",
            "embedder": "common.sentence_encoder/encode_texts (unit length), memoized by text per store"
            if self.embed
            else "none (degradation test)",
            **common.model_config(),
            "k": "whole store" if self._depth is None else self._depth,
            "top_k": "every memory of the store (a document can give several memories)",
            "mapping": "memory id -> its source turn ids (remember()'s provenance) -> documents; a memory with "
            "several sources gives its rank to each source in source order; a document ranks at its best memory",
            "ties": "mneme's order (equal fused score by memory id, a content hash)",
            "unreturned": common.UNRETURNED,
            "never_returned": "documents that produced no memory (counted per store): always appended",
        }
