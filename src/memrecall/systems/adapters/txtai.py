"""txtai Embeddings with hybrid=True by name: its default convex (weighted-sum) fusion, not RRF.

Environment, set by `common.offline_env` before txtai is imported: HF_HUB_OFFLINE / TRANSFORMERS_OFFLINE (the
vectors model is the bundled MiniLM folder, never the hub), the telemetry opt-outs, TRANSFORMERS_VERBOSITY=error
and HF_HUB_DISABLE_PROGRESS_BARS=1.
txtai calls no LLM for search. The BM25 term index is a private SQLite file ("" path) removed on close().
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from memrecall.data.model import Document, Query
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

QUIET_ENV = {"HF_HUB_DISABLE_PROGRESS_BARS": "1"}  # no weight-loading progress bars on stderr
WEIGHTS = 0.5  # txtai's default: 0.5 x dense + 0.5 x normalised BM25
METHOD = "sentence-transformers"  # txtai's own sentence-transformers vectors: the model's 256-token truncation


class TxtaiHybridAdapter:
    """txtai.Embeddings(hybrid=True): dense cosine (faiss IDMap,Flat) and BM25 terms, fused by weighted sum."""

    name = "txtai-hybrid"

    def __init__(self) -> None:
        self._ids: list[str] = []
        self._depth: int | None = None
        self._embeddings: Any = None
        self._models: dict = {}  # txtai's model cache, so MiniLM loads once for every store

    def prepare(self, task: Any) -> None:
        """Keep the task's `depth` when it is an int; everything else is ignored."""
        self._depth = task_depth(task)

    def _k(self) -> int:
        """How many results to ask for: the whole store, or the task's depth when smaller."""
        return min(self._depth, len(self._ids)) if self._depth else len(self._ids)

    def _close(self) -> None:
        if self._embeddings is not None:
            self._embeddings.close()
            self._embeddings = None

    def index(self, documents: Sequence[Document]) -> None:
        """A fresh in-memory Embeddings index over this store (the previous one is closed)."""
        offline_env(QUIET_ENV)
        module = import_stack("txtai", "txtai", self.name)
        self._close()
        self._ids = [d.id for d in documents]
        if not documents:
            return
        embeddings = module.Embeddings(path=local_model_path(), method=METHOD, hybrid=True, models=self._models)
        embeddings.index([(d.id, d.text, None) for d in documents])
        self._embeddings = embeddings

    def rank(self, query: Query) -> list[str]:
        """txtai's hybrid results for the query text, best first, then any it left out in store order."""
        returned = [] if self._embeddings is None else self._embeddings.search(query.text, self._k(), weights=WEIGHTS)
        return with_unreturned([str(uid) for uid, _ in returned], self._ids, self._depth)

    def config(self) -> dict:
        """Version, vectors, sparse scoring, the fusion rule we measure, and tie order."""
        return {
            "name": self.name,
            "stack": "txtai",
            "versions": {
                "txtai": stack_version("txtai"),
                "faiss-cpu": stack_version("faiss-cpu"),
                "sentence-transformers": stack_version("sentence-transformers"),
            },
            **model_config(),
            "vectors": f"method={METHOD!r}, normalised",
            "dense": "faiss IDMap,Flat inner product (exact; txtai's choice for <= 5000 rows)",
            "sparse": "scoring bm25 with terms index: k1 1.2, b 0.75, idf log(1 + (N - n + 0.5) / (n + 0.5))",
            "tokens": "txtai Tokenizer(): lowercase, Unicode UAX #29 words, no stopwords, no stemming",
            "normalize": (
                "BM25 / min(top BM25 + a, 6a), capped at 1; a = BM25 of a mean term (mean tf, mean idf, mean length)"
            ),
            "fusion": (
                f"hybrid=True default: convex weighted sum {WEIGHTS} x dense cosine + {1 - WEIGHTS} x normalised BM25 "
                "(a document no query term matches gets the dense part only); NOT reciprocal rank fusion"
            ),
            "weights": [WEIGHTS, 1 - WEIGHTS],
            "candidates": "each arm returns 10 x k, then the fused list is cut to k",
            "k": "store size" if self._depth is None else f"min({self._depth}, store size)",
            "order": "stable sort by fused score: ties keep first appearance, dense list then BM25 list",
            "unreturned": UNRETURNED,
        }
