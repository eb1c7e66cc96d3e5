"""LangChain retrievers by name: BM25Retriever, an InMemoryVectorStore retriever, and EnsembleRetriever.

Environment, set by `common.offline_env` before LangChain is imported: HF_HUB_OFFLINE / TRANSFORMERS_OFFLINE
(HuggingFaceEmbeddings loads the bundled MiniLM folder, never the hub), the telemetry opt-outs,
TRANSFORMERS_VERBOSITY=error and HF_HUB_DISABLE_PROGRESS_BARS=1. LangChain needs no key and calls no LLM here.
"""

from __future__ import annotations

from collections.abc import Sequence
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

QUIET_ENV = {"HF_HUB_DISABLE_PROGRESS_BARS": "1"}  # no weight-loading progress bars on stderr
ID_KEY = "memrecall_id"
BM25_SETTINGS = "rank_bm25.BM25Okapi defaults: k1 1.5, b 0.75, epsilon 0.25 (negative idf -> 0.25 x mean idf)"
ENSEMBLE_WEIGHTS = (0.5, 0.5)
ENSEMBLE_C = 60


def _embeddings() -> Any:
    """langchain_huggingface.HuggingFaceEmbeddings over the bundled MiniLM folder, normalised vectors."""
    offline_env(QUIET_ENV)
    module = import_stack("langchain_huggingface", "langchain", "langchain-vector")
    return module.HuggingFaceEmbeddings(model_name=local_model_path(), encode_kwargs={"normalize_embeddings": True})


def _lc_documents(documents: Sequence[Document]) -> list[Any]:
    """LangChain Documents: the text as page_content, our id as id and as metadata[ID_KEY] (no retriever reads it)."""
    offline_env(QUIET_ENV)
    core = import_stack("langchain_core.documents", "langchain", "langchain")
    return [core.Document(page_content=d.text, id=d.id, metadata={ID_KEY: d.id}) for d in documents]


class _LangChainAdapter(RetrieverLoop):
    """LangChain retrievers through the shared loop: documents carry our id in metadata under ID_KEY."""

    name = "langchain"

    def _convert(self, documents: Sequence[Document]) -> list[Any]:
        """One stack object per document."""
        return _lc_documents(documents)

    def _returned_ids(self, retriever: Any, text: str) -> list[str]:
        """Our ids of what the retriever returns, best first."""
        return [doc.metadata[ID_KEY] for doc in retriever.invoke(text)]

    def _base_config(self) -> dict:
        """The settings every LangChain adapter records."""
        return {
            "name": self.name,
            "stack": "langchain",
            "versions": {
                "langchain-core": stack_version("langchain-core"),
                "langchain-community": stack_version("langchain-community"),
            },
            "k": "store size" if self._depth is None else f"min({self._depth}, store size)",
            "unreturned": UNRETURNED,
        }


class LangChainBM25Adapter(_LangChainAdapter):
    """langchain_community BM25Retriever with its default whitespace tokenizer (str.split, case kept)."""

    name = "langchain-bm25"

    def _build(self, documents: list[Any], k: int) -> Any:
        offline_env(QUIET_ENV)
        module = import_stack("langchain_community.retrievers", "langchain", self.name)
        return module.BM25Retriever.from_documents(documents, k=k)

    def config(self) -> dict:
        """Retriever, BM25 variant, tokenizer and tie order."""
        config = self._base_config()
        config["versions"]["rank_bm25"] = stack_version("rank_bm25")
        config.update(
            retriever="langchain_community.retrievers.BM25Retriever",
            bm25=BM25_SETTINGS,
            tokens="str.split() on any whitespace, case-sensitive, no stemming or stopwords (the default)",
            order="rank_bm25 get_top_n: np.argsort(scores)[::-1], so ties fall in reversed argsort order",
        )
        return config


class LangChainVectorAdapter(_LangChainAdapter):
    """InMemoryVectorStore.as_retriever over HuggingFaceEmbeddings (the bundled MiniLM), exact cosine."""

    name = "langchain-vector"

    def __init__(self) -> None:
        super().__init__()
        self._embedding: Any = None

    def _vector_retriever(self, documents: list[Any], k: int) -> Any:
        """A fresh InMemoryVectorStore holding this store's documents, as a top-k similarity retriever."""
        if self._embedding is None:
            self._embedding = _embeddings()
        module = import_stack("langchain_core.vectorstores", "langchain", self.name)
        store = module.InMemoryVectorStore(self._embedding)
        store.add_documents(documents, ids=[doc.id for doc in documents])
        return store.as_retriever(search_type="similarity", search_kwargs={"k": k})

    def _build(self, documents: list[Any], k: int) -> Any:
        return self._vector_retriever(documents, k)

    def config(self) -> dict:
        """Store, embedding interface, model and tie order."""
        config = self._base_config()
        config["versions"].update(
            {
                "langchain-huggingface": stack_version("langchain-huggingface"),
                "sentence-transformers": stack_version("sentence-transformers"),
            }
        )
        config.update(
            model_config(),
            store="langchain_core.vectorstores.InMemoryVectorStore",
            embeddings="langchain_huggingface.HuggingFaceEmbeddings, normalize_embeddings=True",
            search="similarity (exact cosine over every stored vector)",
            order="np.argsort(cosine)[::-1], so ties fall in reversed argsort order",
        )
        return config


class LangChainEnsembleAdapter(LangChainVectorAdapter):
    """EnsembleRetriever over [BM25Retriever, the vector retriever]: weighted reciprocal rank fusion."""

    name = "langchain-ensemble"

    def _build(self, documents: list[Any], k: int) -> Any:
        offline_env(QUIET_ENV)
        community = import_stack("langchain_community.retrievers", "langchain", self.name)
        ensemble = import_stack("langchain.retrievers", "langchain", self.name)
        bm25 = community.BM25Retriever.from_documents(documents, k=k)
        vector = self._vector_retriever(documents, k)
        return ensemble.EnsembleRetriever(
            retrievers=[bm25, vector], weights=list(ENSEMBLE_WEIGHTS), c=ENSEMBLE_C, id_key=ID_KEY
        )

    def config(self) -> dict:
        """Both arms' settings plus the fusion rule and its weights."""
        config = super().config()
        config["versions"].update({"langchain": stack_version("langchain"), "rank_bm25": stack_version("rank_bm25")})
        config.update(
            retrievers=["langchain-bm25", "langchain-vector"],
            bm25=BM25_SETTINGS,
            tokens="BM25 arm: str.split() on any whitespace, case-sensitive",
            fusion="weighted reciprocal rank fusion: sum of weight / (rank + c), rank counted from 1",
            weights=list(ENSEMBLE_WEIGHTS),
            c=ENSEMBLE_C,
            id_key=f"metadata[{ID_KEY!r}] (documents are merged by our id, not by page_content)",
            order="stable sort by fused score: ties keep first appearance, BM25 list then vector list",
        )
        return config
