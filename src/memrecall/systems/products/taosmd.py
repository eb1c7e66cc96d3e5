"""taOSmd: its VectorMemory on the bundled MiniLM folder, and its public api.ingest_batch/search on an ONNX export.

`taosmd`: VectorMemory(db, embed_mode="local", local_model=<the bundled MiniLM folder>) per store, ranked by its default
search (hybrid=True, fusion="boost": cosine + 0.3 x the share of query keywords found in the text). `taosmd-api`:
api.ingest_batch (the id kept in metadata) and api.search on ONNX Runtime over memrecall's fp32 export of the same
MiniLM via TAOSMD_ONNX_PATH (else its QMD HTTP fallback embeds nothing); librarian fanout lifted 3 -> 20. Around calls
only: TAOSMD_ONNX_PATH set; TAOSMD_DATA_DIR, TAOSMD_DIR, TAOSMD_ONNX_QUERY_PREFIX/_DOC_PREFIX/_POOLING removed (a
user's value would move the store or change the embedder); cwd and HOME are the temp folder (taosmd writes
./data/agents.json); one asyncio loop per adapter. Ties: taosmd's order; unreturned ids appended in store order (no
hits: a miss); a hit that maps back to no document makes the query NotMeasurable. Drops, cuts and logs: counted
per store."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from memrecall.errors import ConfigError
from memrecall.systems.adapters import common
from memrecall.systems.contract import NotMeasurable

AGENT = "memrecall"
EMBED_CUT = 512  # taosmd embeds text[:512]
FANOUT = "high"  # the largest librarian fanout level (20 hits); taosmd's default is "low" (3)
TOKENIZER_FILES = ("config.json", "special_tokens_map.json", "tokenizer.json", "tokenizer_config.json", "vocab.txt")
REMOVED_ENV = tuple(f"TAOSMD_{k}" for k in ("DATA_DIR", "DIR", "ONNX_QUERY_PREFIX", "ONNX_DOC_PREFIX", "ONNX_POOLING"))


def hit_doc_id(hit: dict) -> str | None:
    """The document id an api.search hit carries: vector hits in metadata.metadata, archive hits in data_json."""
    with contextlib.suppress(AttributeError, TypeError, ValueError, KeyError):
        meta = hit["metadata"]
        doc_id = (meta.get("metadata") or json.loads(meta.get("data_json") or "{}")["metadata"])["doc_id"]
        return doc_id if isinstance(doc_id, str) else None
    return None


class _TaosmdBase(common.StoreCounts):
    """The event loop, working folder, scoped environment and warning capture both entries share."""

    name = "taosmd"
    _search: Any  # (query, limit) -> (the hits' document ids best first, None where unmappable; what went wrong)
    _close_store: Any  # () -> a coroutine closing the current store's connections

    def __init__(self) -> None:
        self._folder = common.WorkingFolder(self.name)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._env: dict[str, str] = {}
        self._warnings = logging.Handler(logging.WARNING)  # the warnings taosmd logs (its silent fallbacks)
        self._warnings.emit = lambda r: self._count(f"taosmd logged: {str(r.msg).splitlines()[0][:160]}")
        self._ids: list[str] = []
        self._depth: int | None = None

    def prepare(self, task: Any) -> None:
        """Use the task's depth when it gives one; otherwise rank the whole store."""
        self._depth = common.task_depth(task)

    @contextlib.contextmanager
    def _inside(self) -> Iterator[None]:
        """The working folder, this entry's TAOSMD_* settings and the warning capture, all restored after."""
        saved = {key: os.environ.pop(key, None) for key in (*REMOVED_ENV, *self._env)}
        os.environ.update(self._env)
        logging.getLogger("taosmd").addHandler(self._warnings)
        try:
            with self._folder.inside():
                yield
        finally:
            logging.getLogger("taosmd").removeHandler(self._warnings)
            for key, value in saved.items():
                os.environ.pop(key, None)
                os.environ.update({} if value is None else {key: value})

    def _run(self, coroutine: Any) -> Any:
        """Run one taosmd coroutine to completion on the adapter's own event loop."""
        self._loop = self._loop or asyncio.new_event_loop()
        with self._inside():
            return self._loop.run_until_complete(coroutine)

    def _stack(self, *modules: str) -> list[Any]:
        """Import modules (taosmd's, or what it needs) offline, or raise ConfigError naming the extra."""
        common.offline_env()
        with self._inside():
            return [common.import_stack(module, "taosmd", self.name) for module in modules]

    def rank(self, query: Any) -> Any:
        """The product's hits for k (the store, or the depth) mapped back, then the rest in store order."""
        if not self._ids:
            return []
        ids, what = self._search(query, min(self._depth or len(self._ids), len(self._ids)))
        if None in ids:
            return NotMeasurable(f"{self.name}: {what} for query {query.id!r}")
        self._count("queries with no hits (every document appended in store order: a miss)", not ids)
        return common.with_unreturned(ids, self._ids, self._depth)

    def close(self) -> None:
        """Close the current store and the event loop."""
        if self._loop is not None:
            self._run(self._close_store())
            self._loop.close()
            self._loop = None

    def _config(self) -> dict:
        """What both entries report."""
        return {
            "name": self.name,
            "stack": "taosmd",
            "version": common.stack_version("taosmd"),
            **common.model_config(),
            "k": "whole store" if self._depth is None else self._depth,
            "unreturned": common.UNRETURNED,
        }


class TaosmdAdapter(_TaosmdBase):
    """VectorMemory(embed_mode="local") per store; its default search(hybrid=True, fusion="boost")."""

    name = "taosmd"

    def __init__(self, fusion: str = "boost") -> None:
        super().__init__()
        self.fusion = fusion  # "none" (plain cosine) is for the cross-check only
        self._memory, self._rows = None, {}

    async def _close_store(self) -> None:
        """Close the VectorMemory database."""
        if self._memory is not None:
            await self._memory.close()

    def index(self, documents: Sequence[Any]) -> None:
        """A fresh VectorMemory database in a new store folder; one add() per document, its id in metadata."""
        names = ("taosmd.vector_memory", "taosmd.secret_filter", "sentence_transformers", "transformers.utils.logging")
        vector_memory, secrets, _, hf_logging = self._stack(*names)
        hf_logging.disable_progress_bar()  # no weight-loading bar on stderr
        self._run(self._close_store())
        self._new_store()
        db = self._folder.store_folder() / "vector-memory.db"
        self._memory = vector_memory.VectorMemory(db, embed_mode="local", local_model=common.local_model_path())
        self._run(self._memory.init())
        self._ids, self._rows = [d.id for d in documents], {}
        for document in documents:
            row = self._run(self._memory.add(document.text, {"doc_id": document.id}))
            self._count(f"documents longer than {EMBED_CUT} characters embedded from their start only",
                        len(document.text) > EMBED_CUT)  # fmt: skip
            self._count("documents matched taosmd's secret filter: stored and embedded redacted",
                        bool(secrets.contains_secrets(document.text)))  # fmt: skip
            self._count("documents not stored: VectorMemory.add() returned -1 (no embedding)", row == -1)
            self._rows.update({} if row == -1 else {row: document.id})

    def _search(self, query: Any, limit: int) -> tuple[list[str | None], str]:
        """VectorMemory.search, mapped back through the row ids add() returned."""
        hits = self._run(self._memory.search(query.text, limit=limit, hybrid=True, fusion=self.fusion))
        return [self._rows.get(hit["id"]) for hit in hits], "search gave a row the adapter did not add"

    def config(self) -> dict:
        """VectorMemory's settings."""
        return {
            **self._config(),
            "store": "VectorMemory (SQLite), embed_mode='local', local_model=<the bundled MiniLM folder>",
            "search": f"VectorMemory.search(hybrid=True, fusion={self.fusion!r}, limit=k)",
            "embedding": f"SentenceTransformer.encode(text[:{EMBED_CUT}]) per text; cosine at search",
            "ties": "taosmd's order (numpy argsort of the score, reversed)",
        }


class TaosmdApiAdapter(_TaosmdBase):
    """taosmd's public api: ingest_batch and search (recipe, intent routing, recall gate), fanout lifted to "high"."""

    name = "taosmd-api"

    def __init__(self, onnx_cache: str | Path | None = None) -> None:
        super().__init__()
        self._cache = onnx_cache  # memrecall's embedding cache folder (where the ONNX export is kept)
        self._data_dir, self._recipe = "", None
        self.fanout = {"default": 0, "set": 0}

    async def _close_store(self) -> None:
        """Close the data dir's archive, vector, graph and claim stores; taosmd's cache is its only handle on them."""
        from taosmd import api

        for store in (api._stores_cache.pop(self._data_dir, None) or {}).values():
            await store.close() if hasattr(store, "close") else None

    def prepare(self, task: Any) -> None:
        """The task's depth, and the once-only setup, so config() names the recipe before any store is ranked."""
        super().prepare(task)
        self._setup()

    def _setup(self) -> None:
        """Once: memrecall's ONNX export of the MiniLM and its tokenizer, the lifted fanout, taosmd's recipe."""
        if "TAOSMD_ONNX_PATH" in self._env:
            return
        from memrecall.encoding.embeddings import cache_dir
        from memrecall.encoding.encoders import export_for

        self._stack("taosmd.api")
        folder = self._folder.path / "minilm-onnx"  # no "nomic"/"arctic" in it: taosmd picks prefixes by path
        folder.mkdir()
        (folder / "model.onnx").symlink_to(export_for(cache_dir(self._cache).resolve(), "fp32"))
        for name in TOKENIZER_FILES:
            (folder / name).symlink_to(Path(common.local_model_path()) / name)
        self._env["TAOSMD_ONNX_PATH"] = str(folder)
        probe = str(self._folder.store_folder())
        with self._inside():
            from taosmd import agents, recipes

            agents.ensure_agent(AGENT)  # the working folder's ./data/agents.json, as api.ingest_batch does
            self.fanout["default"] = agents.effective_fanout(AGENT)
            agents.set_librarian(AGENT, fanout=FANOUT)
            self.fanout["set"] = agents.effective_fanout(AGENT)
            agents.ensure_agent(AGENT, data_dir=probe)  # as api.search does before it resolves the recipe
            self._recipe = recipes.resolve_recipe(AGENT, data_dir=probe)
        if self._recipe.retrieval.get("reranker", "none") != "none":
            raise ConfigError(f"taosmd-api: recipe {self._recipe.id!r} needs a reranker download")

    def index(self, documents: Sequence[Any]) -> None:
        """A fresh data dir; api.ingest_batch of every document (id, metadata.doc_id)."""
        self._setup()
        (api,) = self._stack("taosmd.api")
        self._run(self._close_store())
        self._new_store()
        self._data_dir, self._ids = str(self._folder.store_folder()), [d.id for d in documents]
        items = [{"text": d.text, "id": d.id, "metadata": {"doc_id": d.id}} for d in documents]
        done = self._run(api.ingest_batch(items, agent=AGENT, data_dir=self._data_dir))
        self._count("documents skipped by ingest_batch (empty or repeated)", len(documents) - done["ingested"])

    def _search(self, query: Any, limit: int) -> tuple[list[str | None], str]:
        """api.search; each hit mapped back through the document id it carries."""
        from taosmd import api, intent_classifier

        hits = self._run(api.search(query.text, agent=AGENT, limit=limit, data_dir=self._data_dir))
        cut = f"queries cut at {self.fanout['set']} hits by the librarian fanout ({FANOUT!r}, the largest)"
        self._count(cut, len(hits) == self.fanout["set"] < limit)
        ids = [hit_doc_id(h) for h in hits]
        if None not in ids:  # the route is worked out only to say why a query is not measurable
            return ids, ""
        route = intent_classifier.get_search_strategy(query.text)
        return ids, f"{len(hits)} hits, intent {route['intent']!r} ({route['primary']} first)"

    def config(self) -> dict:
        """The recipe taosmd picked and the lifted fanout."""
        cap = self.fanout["set"]
        return {
            **self._config(),
            "ingest": "api.ingest_batch(text, id, metadata={'doc_id': id}) per document",
            "search": "api.search(agent, data_dir, limit=k)",
            "recipe": None if self._recipe is None else {"id": self._recipe.id, **self._recipe.retrieval},
            "embedder": "embed_mode='onnx' (ONNX Runtime, mean pooling) on memrecall's fp32 export of the MiniLM",
            "fanout": {"default_k": self.fanout["default"], "level": FANOUT, "k": cap},
            "changed": [
                "TAOSMD_ONNX_PATH=<memrecall's ONNX export of the bundled MiniLM> (default: none, nothing embedded)",
                f"taosmd.agents.set_librarian(fanout={FANOUT!r}): k {self.fanout['default']} -> {cap}",
            ],
            "ties": "taosmd's order (its recall gate's stable sort by 4-decimal confidence)",
        }
