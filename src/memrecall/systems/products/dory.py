"""Dory (dory-memory): one EVENT node per document via DoryMemory.observe, ranked by its public query() or its seeds.

Dory runs offline as it ships: a SQLite file per store (FTS5 BM25, CO_OCCURS edges from observe()'s auto-link).
Its only embedding channel is dory.vector (Ollama nomic-embed-text through sqlite-vec) with no hook for another
model, so the bundled MiniLM is not used; find_seeds skips the channel without a word when dory.vector.available()
is False (this is detected and reported under "degraded"; in 1.2.1 no code path calls vector.index_node either, so
even with Ollama the KNN table stays empty). No environment switch is set beyond common.OFFLINE_ENV; every call runs
with the working directory and HOME in the adapter's temp folder (dory's default db is ~/.dory/dory.db).
Each query reopens DoryMemory on the store's file, so the activation counts spread() bumps in memory (never saved by
a query) cannot change later queries. `dory` reads query()'s prompt against the store's node texts (a text may hold
the prompt's own separators, such as a markdown heading) and maps each back (exact node text -> first node in store
order -> document); `dory-seeds` maps find_seeds() then spread() node ids back. Ties: dory's order
(FTS5 rank; spread levels by salience, then store order). Documents it leaves out are appended in store order; a
prompt that reads as no list of the store's nodes (or as two), or a node id that maps back to no document, makes the
query NotMeasurable.
"""

from __future__ import annotations

import importlib
import re
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from memrecall.systems.adapters import common
from memrecall.systems.contract import NotMeasurable

NODE_TYPE = "EVENT"  # dory's type for "past events, sessions, experiences" (episodic); SESSION is one per session
QUERY_CAP = 90  # session.query serializes at most max_nodes=90 activated nodes
SEED_CAP = 20  # find_seeds: store.search_fts(limit=20)
SPREAD_FROM = 8  # session.query spreads activation from the first 8 seeds
CONTENT_CAP = 1000  # sanitize_node_content truncates longer texts (and appends "…")
ENTRY = re.compile(r"- \[[A-Z_]+(?: \[(?:CORE|CURRENT VALUE|SUPERSEDED)\])*\]")  # "- [TYPE]" and its markers
HINTS = re.compile(r"(?: \([^)\n]*\)| \[[^\]\n]*\])*")  # " (date)", " (×2)", " [amount]" before the text
SECTION = re.compile(r"## [^\n]*\n")
NOTHING = "(no relevant memories found)"


def prompt_nodes(prompt: str, nodes: dict[str, str]) -> tuple[list[str] | None, str]:
    """The node ids a query() prompt shows, in order (None and why when it reads no way, or two ways)."""
    # A node's text may hold what the prompt puts between entries (newlines, "## " headings, "- [EVENT]" lines),
    # so the prompt is not split on those: an entry ends where one of the store's node texts ends.
    if prompt == NOTHING:
        return [], ""
    texts = sorted(nodes, key=len, reverse=True)
    readings: dict[int, list[list[str]]] = {}  # entry start -> at most two readings of the prompt from there

    def entries(pos: int) -> list[list[str]]:
        if pos in readings:
            return readings[pos]
        found: list[list[str]] = []
        label = ENTRY.match(prompt, pos)
        if label is None:
            readings[pos] = found
            return found
        start, newline = label.end(), prompt.find("\n", label.end())
        for space in range(start, len(prompt) if newline < 0 else newline):
            if prompt[space] == " " and HINTS.fullmatch(prompt, start, space):
                for text in (t for t in texts if prompt.startswith(t, space + 1)):
                    found += [[nodes[text], *rest] for rest in after(space + 1 + len(text))]
        readings[pos] = found[:2]
        return readings[pos]

    def after(end: int) -> list[list[str]]:
        if end == len(prompt):
            return [[]]
        if prompt.startswith("\n- [", end):
            return entries(end + 1)
        return section(end + 2) if prompt.startswith("\n\n", end) else []

    def section(pos: int) -> list[list[str]]:
        header = SECTION.match(prompt, pos)
        return entries(header.end()) if header else []

    read = section(0)
    if not read:
        return None, "query() prompt holds text that is not a node entry"
    return (read[0], "") if len(read) == 1 else (None, "query() prompt reads as two different lists of nodes")


class _DoryBase(common.StoreCounts):
    """A fresh dory SQLite store per store folder, one EVENT node per document; subclasses rank."""

    name = "dory"

    def __init__(self) -> None:
        self._folder = common.WorkingFolder(self.name)
        self._db: Path | None = None
        self._ids: list[str] = []
        self._depth: int | None = None
        self._node_doc: dict[str, str] = {}  # node id -> document id
        self._text_node: dict[str, str] = {}  # stored node text -> first node in store order

    def prepare(self, task: Any) -> None:
        """Use the task's depth when it gives one; otherwise rank the whole store."""
        self._depth = common.task_depth(task)

    def _stack(self) -> Any:
        """The dory package, imported offline inside the working folder, or ConfigError naming the extra."""
        common.offline_env()
        with self._folder.inside():
            return common.import_stack("dory", "dory", self.name)

    def close(self) -> None:
        """Close dory's cached connection to the current store and remove its folder."""
        if self._db is not None:
            from dory import store

            with self._folder.inside():
                store.close_connection(self._db)
            shutil.rmtree(self._db.parent, ignore_errors=True)
            self._db = None

    def index(self, documents: Sequence[Any]) -> None:
        """A new store file; DoryMemory.observe(text, node_type=EVENT) per document in store order."""
        dory = self._stack()
        self.close()
        self._db = self._folder.store_folder() / "dory.db"
        self._ids, self._node_doc, self._text_node = [d.id for d in documents], {}, {}
        self._new_store()
        with self._folder.inside():
            memory = dory.DoryMemory(self._db)
            try:
                for document in documents:
                    self._node_doc[memory.observe(document.text, node_type=NODE_TYPE)] = document.id
                nodes = memory.graph
                for node_id in self._node_doc:
                    node = nodes.get_node(node_id)
                    injected = any(tag.startswith("flag_reason:") and "injection:" in tag for tag in node.tags)
                    self._count("documents matched dory's injection filter: stored, tagged 'flagged'", injected)
                    first = self._text_node.setdefault(node.content, node_id)
                    self._count("documents whose text repeats an earlier one's (mapped to the first)", first != node_id)
                lost = len(documents) - len(nodes.all_nodes(zone=None))
                self._count("documents lost: observe() reused a node id (8-hex uuid4 prefix) and replaced a node", lost)
                long = sum(len(d.text) > CONTENT_CAP for d in documents)
                self._count(f"documents longer than {CONTENT_CAP} characters stored truncated (+ '…', flagged)", long)
            finally:
                memory.close()

    def _vector_state(self) -> dict[str, Any]:
        """Whether find_seeds' vector channel can run in this process (sqlite-vec and an Ollama client)."""
        self._stack()
        vector = importlib.import_module("dory.vector")
        return {
            "available": vector.available(),
            "sqlite_vec": vector._SQLITE_VEC_OK,
            "ollama_client": vector._OLLAMA_OK,
        }

    def rank(self, query: Any) -> Any:
        """The product's nodes for the query mapped back to documents, then the rest in store order."""
        if not self._ids:
            return []
        dory = self._stack()
        with self._folder.inside():
            memory = dory.DoryMemory(self._db)
            try:
                returned, what = self._returned(memory, query.text)
            finally:
                memory.close()
        if None in returned:
            return NotMeasurable(f"{self.name}: {what} for query {query.id!r}")
        self._count("queries with nothing returned (every document appended in store order: a miss)", not returned)
        short = 0 < len(dict.fromkeys(returned)) < min(self._depth or len(self._ids), len(self._ids))
        self._count("queries: fewer than k documents returned; the rest appended in store order", short)
        return common.with_unreturned(returned, self._ids, self._depth)

    def _returned(self, memory: Any, text: str) -> tuple[list[str | None], str]:
        """The document ids the product returns for text, best first (None where one maps back to nothing)."""
        raise NotImplementedError

    def _degraded(self) -> list[str]:
        """What dory silently turns off in this process."""
        vector = self._vector_state()
        if vector["available"]:
            return ["vector channel on but empty: observe() never embeds nodes (dory.vector.index_node has no caller)"]
        missing = [name for name in ("sqlite_vec", "ollama_client") if not vector[name]]
        return [f"vector channel off: dory.vector.available() is False ({', '.join(missing)} missing); "
                "find_seeds ranks by FTS5 BM25 only, with no error or warning"]  # fmt: skip

    def _config(self) -> dict:
        """What both entries report."""
        return {
            "name": self.name,
            "stack": "dory-memory",
            "version": common.stack_version("dory-memory"),
            "store": "DoryMemory(<store folder>/dory.db), one per store; reopened per query",
            "observe": f"DoryMemory.observe(text, node_type={NODE_TYPE!r}) per document, in store order",
            "node_type": f"{NODE_TYPE}: dory's type for past events and experiences (its episodic memory)",
            "timestamps": "not passed: observe() takes none (created_at is the wall clock at observe())",
            "embedder": "none: dory's only vector channel is Ollama nomic-embed-text (no hook for the MiniLM)",
            "vector_channel": self._vector_state(),
            "k": "whole store" if self._depth is None else self._depth,
            "unreturned": common.UNRETURNED,
            "degraded": self._degraded(),
        }


class DoryAdapter(_DoryBase):
    """Dory's public DoryMemory.query(topic): its prompt's node texts, in prompt order, mapped back."""

    name = "dory"

    def _returned(self, memory: Any, text: str) -> tuple[list[str | None], str]:
        """query()'s prompt read against the store's node texts; each node -> its document."""
        found, problem = prompt_nodes(memory.query(text), self._text_node)
        # _text_node holds only the nodes index() created, so every node read maps to a document
        return ([None], problem) if found is None else ([self._node_doc[n] for n in found], "")

    def config(self) -> dict:
        """The public query path and what it cuts."""
        return {
            **self._config(),
            "search": "DoryMemory.query(topic): find_seeds, spread(seeds[:8]), FTS sweep (50), _serialize_structured",
            "order": "the prompt's order: EVENT nodes are listed chronologically (created_at = store order), "
            "not by relevance; other types by activation",
            "mapping": "each entry's text -> the first node in store order with that exact text -> its document",
            "cap": f"at most {QUERY_CAP} nodes (max_nodes={QUERY_CAP})",
            "ties": "dory's order (chronological; its 90-node cut by activation, then salience)",
        }


class DorySeedsAdapter(_DoryBase):
    """Dory's own activation order: dory.activation.find_seeds, then the nodes spread() reaches from the first 8."""

    name = "dory-seeds"

    def _returned(self, memory: Any, text: str) -> tuple[list[str | None], str]:
        """Seeds in find_seeds order, then spread's other nodes by activation, salience, store order."""
        from dory import activation

        graph = memory.graph
        seeds = activation.find_seeds(text, graph)
        levels = activation.spread(seeds[:SPREAD_FROM], graph) if seeds else {}
        position, seeded = {node_id: i for i, node_id in enumerate(self._node_doc)}, set(seeds)
        rest = sorted(
            (n for n in levels if n not in seeded),
            key=lambda n: (-levels[n], -graph.get_node(n).salience, position.get(n, len(position))),
        )
        return [self._node_doc.get(n) for n in [*seeds, *rest]], "a seed or spread node is not a document's node"

    def config(self) -> dict:
        """The seed path and how it differs from query()."""
        return {
            **self._config(),
            "search": f"activation.find_seeds(topic) then activation.spread(seeds[:{SPREAD_FROM}]) (as query() does)",
            "order": "every seed in find_seeds order (FTS5 BM25 rank), then the other nodes spread() reached by "
            "activation level, then salience (dory's serialize order)",
            "mapping": "node id (observe()'s return) -> document",
            "changed": [
                "ranked list taken from find_seeds + spread instead of query()'s prompt (no chronological "
                "EVENT listing, no 90-node cut, no supplementary FTS sweep)",
            ],
            "cap": f"at most {SEED_CAP} seeds (FTS limit) plus the nodes spread reaches",
            "ties": "FTS5 rank order; equal activation by salience, then store order",
        }
