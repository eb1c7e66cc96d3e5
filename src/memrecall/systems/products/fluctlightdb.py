"""FluctlightDB (its Rust core in process): connect() "agent mode", and connect_index() plain cosine, on MiniLM vectors.

FluctlightDB has no embedder of its own for paraphrase recall: each document and query is encoded with the bundled
MiniLM (common.sentence_encoder / encode_texts, unit length) and handed over as `semantic_vector=`; the document id
goes in as `doc_id=` and comes back in each recall's episode.rag, beside the engram id experience() returned.
Its modes are process-wide FLUCTLIGHT_* environment switches the Rust core reads at call time (connect() removes
three, connect_index() sets three and leaves them set). Around every call into it the adapter removes every
FLUCTLIGHT_* variable, applies the switches its own connect function set when the store was opened (captured then),
and restores the caller's values after, so two entries in one process never change each other. No other variable
is set beyond common.OFFLINE_ENV; FluctlightDB makes no network call in process (its HTTP client is not used).
What it rejects, folds, leaves out or skips is counted per store.
A brain at <path> writes <path>.lock, <path>.flct.index.sqlite and <path>.flct.wal.NNN beside the path, so the path
is <store folder>/brain. Ties: FluctlightDB's order. Documents a recall leaves out are appended in store order
(nothing recalled: all of them, a miss); a recall that maps back to no document makes the query NotMeasurable.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from memrecall.systems.adapters import common
from memrecall.systems.contract import NotMeasurable

PREFIX = "FLUCTLIGHT_"
TIE_TOLERANCE = 1e-5  # cosines this close count as equal (float32 paths differ slightly)
NONDETERMINISTIC = (
    "no: identical stores and queries recall different documents and activations from one brain to the next, "
    "in one process too (its Rust core's random engram ids and hash order); not fixable from outside"
)


@contextlib.contextmanager
def mode_switches(switches: Mapping[str, str]) -> Iterator[None]:
    """Run the block with exactly `switches` as the FLUCTLIGHT_* environment; the caller's values are restored."""
    saved = {key: value for key, value in os.environ.items() if key.startswith(PREFIX)}
    for key in saved:
        del os.environ[key]
    os.environ.update(switches)
    try:
        yield
    finally:
        for key in [key for key in os.environ if key.startswith(PREFIX)]:
            del os.environ[key]
        os.environ.update(saved)


def recalled_id(recall: Mapping[str, Any], engrams: Mapping[str, str], store: set[str]) -> str | None:
    """The document id of one recall: through the engram id experience() gave, else its episode's rag doc_id."""
    doc_id = engrams.get(str(recall.get("engram_id")))
    if doc_id is None:
        rag = (recall.get("episode") or {}).get("rag") or {}
        doc_id = rag.get("doc_id") if rag.get("doc_id") in store else None
    return doc_id


def skipped_above_floor(returned: Sequence[str], store_ids: Sequence[str], cosines: Any) -> int:
    """Documents a cosine recall left out although their cosine beats the lowest one it returned."""
    position = {doc_id: index for index, doc_id in enumerate(store_ids)}
    floor = min(float(cosines[position[doc_id]]) for doc_id in returned)
    kept = set(returned)
    pairs = zip(store_ids, cosines, strict=True)
    return sum(1 for doc_id, cosine in pairs if doc_id not in kept and cosine > floor + TIE_TOLERANCE)


class _FluctlightBase(common.StoreCounts):
    """One brain per store, opened by the subclass's connect function; MiniLM vectors in, recalls out."""

    name = "fluctlightdb"
    connector = "connect"
    cosine_recall = False  # True where recall is documented as vector recall: skipped documents are then counted

    def __init__(self) -> None:
        self._folder = common.WorkingFolder(self.name)
        self._encoder: Any = None
        self._brain: Any = None
        self._switches: dict[str, str] = {}
        self._ids: list[str] = []
        self._engrams: dict[str, str] = {}
        self._depth: int | None = None
        self._vectors: Any = []

    def prepare(self, task: Any) -> None:
        """The task's depth (None: the whole store), and the switches this entry's connect function sets (a probe)."""
        self._depth = common.task_depth(task)
        self._open(str(self._folder.store_folder() / "probe"))
        self._brain = None

    def _call(self, method: str, *args: Any, **kwargs: Any) -> Any:
        """One call into the brain, in the working folder, under this entry's FLUCTLIGHT_* switches only."""
        with self._folder.inside(), mode_switches(self._switches):
            return getattr(self._brain, method)(*args, **kwargs)

    def close(self) -> None:
        """Drop the current brain (its files go with the working folder)."""
        self._brain = None

    def _open(self, path: str) -> None:
        """Open a brain at path with this entry's connect function; keep the FLUCTLIGHT_* switches it set."""
        with self._folder.inside(), mode_switches({}):
            fluctlightdb = common.import_stack("fluctlightdb", "fluctlightdb", self.name)
            common.import_stack("fluctlightdb_native", "fluctlightdb", self.name)
            self._brain = getattr(fluctlightdb, self.connector)(path)
            self._switches = {key: value for key, value in os.environ.items() if key.startswith(PREFIX)}

    def index(self, documents: Sequence[Any]) -> None:
        """A fresh brain in a new store folder; one experience() per document with its MiniLM vector and id."""
        self.close()
        common.offline_env()
        if self._encoder is None:
            self._encoder = common.sentence_encoder("fluctlightdb")
        self._open(str(self._folder.store_folder() / "brain"))
        self._ids, self._engrams = [d.id for d in documents], {}
        self._new_store()
        vectors = common.encode_texts(self._encoder, [d.text for d in documents]) if documents else []
        self._vectors = vectors
        for document, vector in zip(documents, vectors, strict=True):
            made = self._call("experience", document.text, doc_id=document.id, semantic_vector=vector.tolist())
            if made.get("gate_rejected"):
                self._count("documents experience()'s gate rejected (never recalled)")
            elif made.get("deduplicated"):
                self._count("documents experience() folded into an earlier memory (never recalled)")
            else:
                self._engrams.setdefault(str(made.get("engram_id")), document.id)

    def rank_many(self, queries: Sequence[Any]) -> list[Any]:
        """One activate() per query with its MiniLM vector, asked for the whole store or the depth."""
        if not queries:
            return []
        if not self._ids:
            return [[] for _ in queries]
        limit = min(self._depth, len(self._ids)) if self._depth else len(self._ids)
        vectors = common.encode_texts(self._encoder, [q.text for q in queries])
        return [
            self._answer(self._call("activate", q.text, semantic_vector=v.tolist(), limit=limit), q, v)
            for q, v in zip(queries, vectors, strict=True)
        ]

    def rank(self, query: Any) -> Any:
        """The recalled ids best first, then unreturned ids in store order (or NotMeasurable)."""
        return self.rank_many([query])[0]

    def _answer(self, found: Mapping[str, Any], query: Any, vector: Any) -> Any:
        """Map one activate() answer back to document ids."""
        recalls = list(found.get("recalls") or [])
        store = set(self._ids)
        ids = [recalled_id(recall, self._engrams, store) for recall in recalls]
        if None in ids:
            what = "recalled a memory that maps back to no document"
            return NotMeasurable(f"{self.name}: activate() {what} for query {query.id!r}")
        self._count("queries that recalled nothing (every document appended in store order: a miss)", not ids)
        self._count("query-document pairs activate() left out (appended in store order)", len(store) - len(set(ids)))
        if self.cosine_recall and ids:
            skipped = skipped_above_floor(ids, self._ids, self._vectors @ vector)
            self._count("query-document pairs left out although their cosine beats the lowest returned", skipped)
        return common.with_unreturned(ids, self._ids, self._depth)

    def config(self) -> dict:
        """FluctlightDB's version, mode, switches and what it left out."""
        return {
            "name": self.name,
            "stack": "fluctlightdb",
            "version": common.stack_version("fluctlightdb"),
            "native": common.stack_version("fluctlightdb-native"),
            "open": f"fluctlightdb.{self.connector}(<store folder>/brain)",
            "switches": dict(sorted(self._switches.items())),
            "ingest": "experience(text, doc_id=<id>, semantic_vector=<MiniLM>) per document",
            "search": "activate(text, semantic_vector=<MiniLM>, limit=k)",
            "embedder": "memrecall: sentence-transformers MiniLM, unit length, passed as semantic_vector",
            **common.model_config(),
            "k": "whole store" if self._depth is None else self._depth,
            "ties": "FluctlightDB's order (activation)",
            "unreturned": common.UNRETURNED,
            "skipped_above_floor": "counted" if self.cosine_recall else "not checked (activation is not cosine)",
        }


class FluctlightAgentAdapter(_FluctlightBase):
    """connect(): the full episodic path (separation, graph spread, lexical + semantic seeds), "agent mode"."""

    name = "fluctlightdb"
    connector = "connect"

    def config(self) -> dict:
        """Agent-mode settings; this mode does not give the same rankings twice."""
        return {**super().config(), "mode": "agent (connect)", "deterministic": NONDETERMINISTIC}


class FluctlightIndexAdapter(_FluctlightBase):
    """connect_index(): fast ingest and vector-fast recall, i.e. cosine order above an activation floor."""

    name = "fluctlightdb-index"
    connector = "connect_index"
    cosine_recall = True

    def config(self) -> dict:
        """Index-mode settings and what differs from the agent-mode entry."""
        return {
            **super().config(),
            "mode": "index (connect_index)",
            "deterministic": "yes",
            "changed": ["connect_index() instead of connect(): its switches in `switches`"],
        }
