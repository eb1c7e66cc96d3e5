"""LlamaIndex retrievers by name: VectorStoreIndex, BM25Retriever, and QueryFusionRetriever (reciprocal rerank).

Environment, set by `common.offline_env` before LlamaIndex is imported: HF_HUB_OFFLINE / TRANSFORMERS_OFFLINE
(HuggingFaceEmbedding loads the bundled MiniLM folder, never the hub), the telemetry opt-outs,
TRANSFORMERS_VERBOSITY=error and HF_HUB_DISABLE_PROGRESS_BARS=1. `Settings.llm = None` (process-wide, set once)
makes LlamaIndex use its MockLLM instead of resolving an OpenAI LLM, which QueryFusionRetriever otherwise asks
for; with num_queries=1 no LLM call is made.
Its "LLM is explicitly disabled" notice goes to stderr. NLTK stopwords come from LlamaIndex's bundled cache.
"""

from __future__ import annotations

import contextlib
import functools
import sys
import warnings
from collections.abc import Sequence
from types import SimpleNamespace
from typing import Any

from memrecall.data.model import Document
from memrecall.systems.adapters.common import (
    UNRETURNED,
    RetrieverLoop,
    import_stack,
    local_model_path,
    model_config,
    offline_env,
    stack_version,
)

ID_KEY = "memrecall_id"
QUIET_ENV = {"HF_HUB_DISABLE_PROGRESS_BARS": "1"}  # no weight-loading progress bars on stderr
METADATA_KEYS = [ID_KEY, "timestamp"]
EMBED_BATCH = 10  # HuggingFaceEmbedding's default embed_batch_size, stated because batching moves the last bits


@functools.cache
def _stack() -> SimpleNamespace:
    """LlamaIndex's core and schema, imported offline once with Settings.llm = None; ConfigError if not installed."""
    offline_env(QUIET_ENV)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # llama_index.core.bridge imports langchain when present: deprecation noise
        core = import_stack("llama_index.core", "llamaindex", "llamaindex")
        schema = import_stack("llama_index.core.schema", "llamaindex", "llamaindex")
    with contextlib.redirect_stdout(sys.stderr):
        core.Settings.llm = None
    return SimpleNamespace(core=core, schema=schema)


def _nodes(documents: Sequence[Document]) -> list[Any]:
    """One TextNode per document (no chunking), id_ = our id; its metadata is kept out of embedding and LLM text."""
    schema = _stack().schema
    return [
        schema.TextNode(
            text=d.text,
            id_=d.id,
            metadata={ID_KEY: d.id, "timestamp": d.timestamp.isoformat() if d.timestamp else None},
            excluded_embed_metadata_keys=list(METADATA_KEYS),
            excluded_llm_metadata_keys=list(METADATA_KEYS),
        )
        for d in documents
    ]


class _LlamaIndexAdapter(RetrieverLoop):
    """LlamaIndex retrievers through the shared loop: one TextNode per document, its id as the node id."""

    name = "llamaindex"

    def __init__(self) -> None:
        super().__init__()
        self._embedding: Any = None

    def _convert(self, documents: Sequence[Document]) -> list[Any]:
        """One stack object per document."""
        return _nodes(documents)

    def _returned_ids(self, retriever: Any, text: str) -> list[str]:
        """Our ids of what the retriever returns, best first."""
        return [hit.node.node_id for hit in retriever.retrieve(text)]

    def _vector_retriever(self, nodes: list[Any], k: int) -> Any:
        """VectorStoreIndex (SimpleVectorStore, in memory) over the nodes, as a top-k retriever."""
        stack = _stack()
        if self._embedding is None:
            module = import_stack("llama_index.embeddings.huggingface", "llamaindex", self.name)
            self._embedding = module.HuggingFaceEmbedding(
                model_name=local_model_path(), normalize=True, embed_batch_size=EMBED_BATCH
            )
        index = stack.core.VectorStoreIndex(nodes, embed_model=self._embedding, show_progress=False)
        return index.as_retriever(similarity_top_k=k)

    def _bm25_retriever(self, nodes: list[Any], k: int) -> Any:
        """llama-index-retrievers-bm25 BM25Retriever over the nodes with its default tokenizer."""
        _stack()
        module = import_stack("llama_index.retrievers.bm25", "llamaindex", self.name)
        return module.BM25Retriever.from_defaults(nodes=nodes, similarity_top_k=k)

    def _base_config(self) -> dict:
        return {
            "name": self.name,
            "stack": "llama-index",
            "versions": {"llama-index-core": stack_version("llama-index-core")},
            "nodes": "one TextNode per document, no chunking; metadata (id, timestamp) kept out of embed/LLM text",
            "llm": "none (Settings.llm = None -> MockLLM, never called)",
            "k": "store size" if self._depth is None else f"min({self._depth}, store size)",
            "dedup": "BaseRetriever drops nodes with a repeated hash (text + metadata); ids are in metadata",
            "unreturned": UNRETURNED,
        }

    def _vector_config(self) -> dict:
        return {
            **model_config(),
            "embeddings": f"HuggingFaceEmbedding, normalize=True, embed_batch_size={EMBED_BATCH}, max_length default",
            "store": "SimpleVectorStore (in memory), cosine similarity, exact",
            "vector_order": "heap of (score, node_id), sorted by score descending; equal scores keep heap order",
        }

    def _bm25_config(self) -> dict:
        return {
            "bm25": "rank_bm25.BM25Okapi defaults: k1 1.5, b 0.75, epsilon 0.25 (negative idf -> 0.25 x mean idf)",
            "tokens": (
                "tokenize_remove_stopwords: lowercase, \\w+ words, NLTK English stopwords removed, distinct words only "
                "(a term counts once per text), Porter stemmed"
            ),
            "bm25_order": "scores.argsort()[::-1], so ties fall in reversed argsort order",
        }


class LlamaIndexVectorAdapter(_LlamaIndexAdapter):
    """VectorStoreIndex retriever over HuggingFaceEmbedding (the bundled MiniLM)."""

    name = "llamaindex-vector"

    def _build(self, nodes: list[Any], k: int) -> Any:
        return self._vector_retriever(nodes, k)

    def config(self) -> dict:
        """Versions, node rule, embedding interface, store and tie order."""
        config = self._base_config()
        config["versions"].update(
            {
                "llama-index-embeddings-huggingface": stack_version("llama-index-embeddings-huggingface"),
                "sentence-transformers": stack_version("sentence-transformers"),
            }
        )
        config.update(self._vector_config())
        return config


class LlamaIndexBM25Adapter(_LlamaIndexAdapter):
    """llama-index-retrievers-bm25 BM25Retriever with its default (stemming, stopword) tokenizer."""

    name = "llamaindex-bm25"

    def _build(self, nodes: list[Any], k: int) -> Any:
        return self._bm25_retriever(nodes, k)

    def config(self) -> dict:
        """Versions, BM25 variant, tokenizer and tie order."""
        config = self._base_config()
        config["versions"].update(
            {
                "llama-index-retrievers-bm25": stack_version("llama-index-retrievers-bm25"),
                "rank_bm25": stack_version("rank_bm25"),
                "nltk": stack_version("nltk"),
            }
        )
        config.update(self._bm25_config())
        return config


class LlamaIndexFusionAdapter(_LlamaIndexAdapter):
    """QueryFusionRetriever over [vector, BM25], mode reciprocal_rerank, num_queries=1 (no generated queries)."""

    name = "llamaindex-fusion"

    def _build(self, nodes: list[Any], k: int) -> Any:
        _stack()
        module = import_stack("llama_index.core.retrievers", "llamaindex", self.name)
        retrievers = [self._vector_retriever(nodes, k), self._bm25_retriever(nodes, k)]
        return module.QueryFusionRetriever(
            retrievers, mode="reciprocal_rerank", num_queries=1, similarity_top_k=k, use_async=False
        )

    def config(self) -> dict:
        """Both arms' settings plus the fusion rule."""
        config = self._base_config()
        config["versions"].update(
            {
                "llama-index-embeddings-huggingface": stack_version("llama-index-embeddings-huggingface"),
                "llama-index-retrievers-bm25": stack_version("llama-index-retrievers-bm25"),
                "sentence-transformers": stack_version("sentence-transformers"),
                "rank_bm25": stack_version("rank_bm25"),
                "nltk": stack_version("nltk"),
            }
        )
        config.update(self._vector_config(), **self._bm25_config())
        config.update(
            retrievers=["llamaindex-vector", "llamaindex-bm25"],
            fusion=(
                "reciprocal_rerank: sum of 1 / (rank + 60), rank counted from 0 after each list is re-sorted by "
                "score; unweighted (this mode ignores retriever_weights); nodes merged by text"
            ),
            num_queries=1,
            use_async=False,
            order="sorted by fused score, stable: ties keep first appearance, vector list then BM25 list",
        )
        return config
