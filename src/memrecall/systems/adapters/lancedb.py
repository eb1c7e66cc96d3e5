"""LanceDB: flat (exact) cosine vector search, and hybrid with its native full-text index fused by RRFReranker.

Embedding goes through LanceDB's own registry: get_registry().get("sentence-transformers") created with the
bundled MiniLM folder as `name`, normalize=True; the table schema's SourceField/VectorField make LanceDB embed
documents on add() and query text on search(). No vector index is built, so search scans every row (exact).
Each store gets a new database in a fresh temp dir, removed when the next store is indexed or the adapter goes.
Environment (common.OFFLINE_ENV): HF_HUB_OFFLINE=1, TRANSFORMERS_OFFLINE=1 (no hub).
Ties: equal scores in store order; ids a search leaves out are appended in store order.
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from typing import Any

from memrecall.systems.adapters import common

TABLE = "memrecall"


class LanceDbAdapter:
    """Vector search over a LanceDB table embedded by its sentence-transformers registry function."""

    name = "lancedb"

    def __init__(self) -> None:
        self._embed: Any = None
        self._schema: Any = None
        self._folder: tempfile.TemporaryDirectory | None = None
        self._table: Any = None
        self._ids: list[str] = []
        self._depth: int | None = None

    def _setup(self) -> None:
        common.offline_env()
        common.import_stack("lancedb", "lancedb", self.name)
        from lancedb.embeddings import get_registry
        from lancedb.pydantic import LanceModel, Vector

        embed = (
            get_registry()
            .get("sentence-transformers")
            .create(name=common.local_model_path(), device="cpu", normalize=True)
        )

        class Row(LanceModel):
            doc_id: str
            position: int
            text: str = embed.SourceField()
            vector: Vector(embed.ndims()) = embed.VectorField()  # type: ignore[valid-type]

        self._embed, self._schema = embed, Row

    def prepare(self, task: Any) -> None:
        """Take only the task's depth (an int), if any."""
        self._depth = common.task_depth(task)

    def index(self, documents: Sequence[Any]) -> None:
        """A new database in a new temp dir, one table of the store's rows (LanceDB embeds them)."""
        if self._embed is None:
            self._setup()
        import lancedb

        self._close()
        self._folder = tempfile.TemporaryDirectory(prefix="memrecall-lancedb-")
        database = lancedb.connect(self._folder.name)
        self._table = database.create_table(TABLE, schema=self._schema)
        self._ids = [d.id for d in documents]
        if documents:
            self._table.add([{"doc_id": d.id, "position": i, "text": d.text} for i, d in enumerate(documents)])
            self._after_add()

    def _after_add(self) -> None:
        """Nothing more for pure vector search."""

    def _close(self) -> None:
        if self._folder is not None:
            self._table = None
            self._folder.cleanup()
            self._folder = None

    def __del__(self) -> None:
        self._close()

    def _search(self, text: str) -> list[tuple[str, float]]:
        """(doc id, cosine distance) for the whole table."""
        found = self._table.search(text).distance_type("cosine").limit(len(self._ids)).to_list()
        return [(row["doc_id"], -row["_distance"]) for row in found]

    def rank(self, query: Any) -> list[str]:
        """The store's ids, best score first."""
        if not self._ids:
            return []
        ordered = common.order_hits(self._search(query.text), self._ids)
        return common.with_unreturned(ordered, self._ids, self._depth)

    def settings(self) -> dict:
        """Search settings that change results."""
        return {"search": "vector, flat (no index, exact)", "distance_type": "cosine"}

    def config(self) -> dict:
        """Stack, version, search settings, embedding function, model and tie rule."""
        return {
            "name": self.name,
            "stack": "lancedb",
            "version": common.stack_version("lancedb"),
            **self.settings(),
            "embedding_function": 'registry "sentence-transformers" (normalize=True)',
            **common.model_config(),
            "k": "whole store" if self._depth is None else self._depth,
            "ties": "equal scores in store order",
            "unreturned": common.UNRETURNED,
        }


class LanceDbHybridAdapter(LanceDbAdapter):
    """Vector search plus LanceDB's native full-text index, fused by RRFReranker (K=60)."""

    name = "lancedb-hybrid"
    rrf_k = 60
    fts = {
        "base_tokenizer": "simple",
        "language": "English",
        "lower_case": True,
        "stem": True,
        "remove_stop_words": True,
        "ascii_folding": True,
    }

    def _after_add(self) -> None:
        """Build the native (non-tantivy) full-text index on the text column, its settings stated."""
        from lancedb.index import FTS

        self._table.create_index("text", config=FTS(**self.fts))

    def _search(self, text: str) -> list[tuple[str, float]]:
        """(doc id, RRF relevance) over the union of the vector and full-text results."""
        from lancedb.rerankers import RRFReranker

        found = (
            self._table.search(text, query_type="hybrid")
            .distance_type("cosine")
            .rerank(RRFReranker(K=self.rrf_k))
            .limit(len(self._ids))
            .to_list()
        )
        return [(row["doc_id"], row["_relevance_score"]) for row in found]

    def settings(self) -> dict:
        """Hybrid settings that change results."""
        return {
            "search": "hybrid: vector flat (exact) + native full-text index, RRFReranker",
            "distance_type": "cosine",
            "rrf_k": self.rrf_k,
            "fts": {"index": "native FTS (not tantivy)", **self.fts},
        }
