"""engram-search: its RetrievalPipeline (dense cosine + BM25 + name/phrase boosts, fused by RRF k=60) per store.

Offline: engram's default recipe needs two hub downloads, both loaded lazily at the first search: Embedder()
(bge-large = BAAI/bge-large-en-v1.5) and, with use_reranker=True, the CrossEncoder BAAI/bge-reranker-v2-m3. The
adapter looks for both on this machine (a local folder or the Hugging Face cache; it never tries a download) and
reports each one missing under "degraded". The entry changes exactly two things (config "changed"): the embedder is
Embedder(<local MiniLM folder>) (engram adds its BGE query prefix only for bge-large/bge-base, so none here) and
use_reranker=False. Environment: common.OFFLINE_ENV only; engram has no telemetry or switches of its own.
A store is a fresh list of engram Documents (id "d<position>", mapped back by a dict built at index time) whose
embeddings Embedder.encode_documents computes once per store, and a fresh pipeline; search() reads only that list
(no engram backend is involved: its README's FaissBackend is never read by search). Each query runs
pipeline.search(text, documents, top_k=depth or store size); question_date is not passed (its default None), so
the temporal boost never fires (engram's own LoCoMo benchmark does not pass it either).
Person-name boost (pipeline._compute_boost_rankings): the query's words matching [A-Z][a-z]{2,15} that are not in
its stop list (What, When, Did, weekdays, months, ...) are "names"; each document scores the share of those names
found as substrings of its lowercased text, and that list, sorted by Python's stable sort (equal scores in store
order), is fused as one more ranking when any score is above 0 (quoted phrases the same way). LoCoMo turn texts start
with "Speaker: ", so a query naming a speaker gives every turn of that speaker the same score, and the tie goes to
store order: the speaker's first turn gets 1/61 from this channel, the n-th 1/(60+n). BM25's many zero scores are
ordered the same way. Ties: engram's own order, deterministic: each channel is a stable sort over store order and
the fused list keeps equal RRF sums in dense-channel order (equal cosines in store order). search() returns only the
Documents it was given, so every result maps back (one that did not would make the query NotMeasurable); ids it
does not return (none when asked for the whole store) are appended in store order.
No RetrievalPipeline setting turns BM25 off, so it never reduces to plain cosine: there is no dense cross-check.
"""

from __future__ import annotations

import inspect
import warnings
from collections.abc import Sequence
from types import SimpleNamespace
from typing import Any

from memrecall.systems.adapters import common
from memrecall.systems.contract import NotMeasurable

EXTRA = "engram"
RRF_K = 60  # engram.retrieval.pipeline.reciprocal_rank_fusion's default, which search() uses
PROBE = "engram probe: a cat"  # encoded once when the embedder loads, so a model that can't load fails at once


def engram_modules(adapter: str) -> SimpleNamespace:
    """engram's Embedder, Document, RetrievalPipeline, model registry and reranker, imported offline."""
    common.offline_env()
    common.import_stack("engram", EXTRA, adapter)  # the package first: a hidden engram then fails every import
    embedder = common.import_stack("engram.retrieval.embedder", EXTRA, adapter)
    pipeline = common.import_stack("engram.retrieval.pipeline", EXTRA, adapter)
    reranker = common.import_stack("engram.retrieval.reranker", EXTRA, adapter)
    base = common.import_stack("engram.backends.base", EXTRA, adapter)
    from transformers.utils import logging as transformers_logging

    transformers_logging.disable_progress_bar()  # no weight-loading bar on stderr
    return SimpleNamespace(
        Embedder=embedder.Embedder,
        default_model=embedder.MODELS.get(embedder.DEFAULT_MODEL, (embedder.DEFAULT_MODEL,))[0],
        Document=base.Document,
        RetrievalPipeline=pipeline.RetrievalPipeline,
        default_reranker=inspect.signature(reranker.CrossEncoderReranker).parameters["model_name"].default,
    )


def load_embedder(engram: SimpleNamespace, model: str | None = None) -> Any:
    """engram's Embedder on `model` (its default when None), loaded now; OSError when the model can't load."""
    embedder = engram.Embedder() if model is None else engram.Embedder(model)
    with warnings.catch_warnings():
        # engram 0.1.7 calls get_sentence_embedding_dimension, which sentence-transformers marks as renamed
        warnings.filterwarnings("ignore", category=FutureWarning, message=".*get_sentence_embedding_dimension")
        embedder.encode_query(PROBE)
    return embedder


def default_failures(engram: SimpleNamespace) -> list[str]:
    """One line per part of engram's default recipe whose model is not on this machine (nothing is downloaded)."""
    parts = (("embedder", engram.default_model, "the local MiniLM folder is given instead"),
             ("reranker", engram.default_reranker, "use_reranker=False"))  # fmt: skip
    return [
        f"default {part} {model} is not on this machine (a hub download; memrecall never downloads): {instead}"
        for part, model, instead in parts
        if not common.on_this_machine(model)
    ]


def map_back(results: Sequence[Any], doc_ids: dict[str, str]) -> list[str] | NotMeasurable:
    """The caller's ids of engram's result Documents, best first; NotMeasurable if any maps to no document."""
    ids = [doc_ids.get(result.id) for result in results]
    unknown = [result.id for result, doc_id in zip(results, ids, strict=True) if doc_id is None]
    if unknown:
        return NotMeasurable(
            f"engram returned {len(unknown)} result(s) whose id maps to no document of the store (first {unknown[0]!r})"
        )
    return [doc_id for doc_id in ids if doc_id is not None]


class EngramAdapter(common.StoreCounts):
    """engram's RetrievalPipeline with its defaults except the local MiniLM embedder and no reranker."""

    name = "engram"

    def __init__(self) -> None:
        self._folder = common.WorkingFolder(self.name)
        self._engram: SimpleNamespace | None = None
        self._embedder: Any = None
        self._pipeline: Any = None
        self._degraded: list[str] = []
        self._documents: list[Any] = []
        self._doc_ids: dict[str, str] = {}
        self._store_ids: list[str] = []
        self._depth: int | None = None

    def prepare(self, task: Any) -> None:
        """Use the task's depth when it gives one; otherwise rank the whole store."""
        self._depth = common.task_depth(task)

    def _setup(self) -> None:
        """Import engram, load the local embedder once and try the default recipe's models (once per adapter)."""
        if self._embedder is not None:
            return
        engram = engram_modules(self.name)
        with self._folder.inside():
            self._embedder = load_embedder(engram, common.local_model_path())
            self._degraded = default_failures(engram)
        self._engram = engram

    def index(self, documents: Sequence[Any]) -> None:
        """A fresh Document list (embedded once by engram's Embedder) and a fresh pipeline for this store."""
        self._setup()
        assert self._engram is not None
        self._documents, self._pipeline = [], None
        self._new_store()
        self._store_ids = [document.id for document in documents]
        self._doc_ids = {f"d{position}": doc_id for position, doc_id in enumerate(self._store_ids)}
        if not documents:
            return
        texts = [document.text for document in documents]
        with self._folder.inside():
            vectors = self._embedder.encode_documents(texts)
            limit = self._embedder.max_seq_length * 4  # encode_documents' own chunking threshold (characters)
            self._pipeline = self._engram.RetrievalPipeline(embedder=self._embedder, use_reranker=False)
        long = sum(len(text) > limit for text in texts)
        self._count(f"documents longer than {limit} characters: embedded as engram's mean over chunks", long)
        self._documents = [
            self._engram.Document(id=product_id, text=text, embedding=vector.tolist())
            for product_id, text, vector in zip(self._doc_ids, texts, vectors, strict=True)
        ]

    def _k(self) -> int:
        """How many results to ask for: the whole store, or the task's depth when smaller."""
        return min(self._depth, len(self._documents)) if self._depth else len(self._documents)

    def rank(self, query: Any) -> list[str] | NotMeasurable:
        """engram's results for the query text, best first, then any it left out in store order."""
        if not self._documents:
            return []
        with self._folder.inside():
            found = self._pipeline.search(query.text, self._documents, top_k=self._k())
        mapped = map_back(found, self._doc_ids)
        if isinstance(mapped, NotMeasurable):
            return mapped
        self._count("results engram left out of a query's k (appended in store order)", self._k() - len(mapped))
        return common.with_unreturned(mapped, self._store_ids, self._depth)

    def config(self) -> dict:
        """engram's version, its recipe, what changed from its default and what degraded."""
        self._setup()
        assert self._engram is not None
        return {
            "name": self.name,
            "stack": "engram-search",
            "version": common.stack_version("engram-search"),
            "pipeline": f"RetrievalPipeline.search: dense cosine + BM25 + name/quoted-phrase boosts, RRF k={RRF_K}",
            "embedder": "Embedder(<local model folder>): no query prefix (engram adds it for bge-large/bge-base only)",
            "use_reranker": False,
            "dense_top_k": "50 (engram's default; search() does not use it in 0.1.7)",
            "question_date": "not passed (search's default None): the temporal boost never fires",
            "bm25": "engram.retrieval.sparse.BM25 (k1=1.5, b=0.75) over the whole store, per query",
            "name_boost": "share of the query's capitalised non-stop words found in the text; ties in store order",
            **common.model_config(),
            "k": "whole store" if self._depth is None else self._depth,
            "changed": [
                f"embedder: Embedder(<local MiniLM folder>) instead of Embedder() ({self._engram.default_model}, "
                "a hub download that can't load offline; memrecall hands every product the same local model)",
                f"use_reranker=False instead of True (its CrossEncoder {self._engram.default_reranker} is a hub "
                "download that can't load offline)",
            ],
            "ties": "engram's order: stable sorts over store order in every channel; equal RRF sums in dense order",
            "unreturned": common.UNRETURNED,
            "degraded": sorted(self._degraded),
        }
