"""Shared pieces of the LangChain, LlamaIndex and txtai adapter tests: real tasks, rankings, comparisons."""

from __future__ import annotations

import dataclasses
import functools
import os
from pathlib import Path

import pytest
from conftest import SHARED_DATA, doc, query

from memrecall.benchmarks import get_benchmark
from memrecall.data.model import Document, Query, Ranking, Task

# The shared reference data, as tests/conftest.py finds it; MEMRECALL_TEST_LOCOMO points elsewhere (a worktree).
LOCOMO = Path(os.environ.get("MEMRECALL_TEST_LOCOMO", SHARED_DATA / "locomo10.json"))
TINY_TEXTS = {
    "pet": "My puppy learned to fetch a stick in the park.",
    "tax": "I filed the tax return at the office.",
    "cake": "We baked a lemon cake for the birthday party.",
}


def tiny_store() -> tuple[Document, ...]:
    """Three dated documents you can rank by hand."""
    return tuple(doc(k, v, i + 1) for i, (k, v) in enumerate(TINY_TEXTS.items()))


def ask(text: str, query_id: str = "q") -> Query:
    """A query against store s."""
    return query(text, (), query_id)


@functools.cache
def epirec_v2() -> Task:
    """The frozen EpiRec v2 release (named: the default `epirec` is v3)."""
    from memrecall.data.releases import bundled_release

    return get_benchmark("epirec").load(bundled_release("epirec_v2.json")).task


@functools.cache
def locomo_session() -> Task:
    """LoCoMo at session granularity."""
    bench = get_benchmark("locomo")
    return bench.load(LOCOMO).task


def ids(output) -> list[str]:
    """The ids of a Ranking or a list of ids."""
    return list(output.doc_ids) if isinstance(output, Ranking) else list(output)


def rank_all(system, task: Task) -> dict[str, list[str]]:
    """Every query's ranking, store by store (prepare once, index each store, rank its queries)."""
    if callable(getattr(system, "prepare", None)):
        system.prepare(task)
    rankings: dict[str, list[str]] = {}
    for store_id, documents in task.stores.items():
        system.index(documents)
        for q in task.queries:
            if q.store_id == store_id:
                rankings[q.id] = ids(system.rank(q))
    return rankings


def scored_all(system, task: Task) -> dict[str, Ranking]:
    """Every query's Ranking from a built-in that returns scores."""
    system.prepare(task)
    rankings: dict[str, Ranking] = {}
    for store_id, documents in task.stores.items():
        system.index(documents)
        for q in task.queries:
            if q.store_id == store_id:
                rankings[q.id] = system.rank(q)
    return rankings


def differing(a: dict[str, list[str]], b: dict[str, list[str]]) -> list[str]:
    """Query ids whose full rankings differ."""
    assert a.keys() == b.keys()
    return sorted(q for q in a if a[q] != b[q])


def whitespace_normalised(task: Task) -> Task:
    """The task with every document's runs of whitespace turned into one space."""
    stores = {
        s: tuple(dataclasses.replace(d, text=" ".join(d.text.split())) for d in docs) for s, docs in task.stores.items()
    }
    return Task(task.name, task.version, task.source_sha256, stores, task.queries, task.reference_time)


def swaps_are_near_ties(ranking: Ranking, other: list[str], tolerance: float) -> bool:
    """True when every pair `other` orders differently from `ranking` has scores within `tolerance`."""
    score = dict(zip(ranking.doc_ids, ranking.scores, strict=True))
    position = {d: i for i, d in enumerate(other)}
    order = list(ranking.doc_ids)
    return all(
        abs(score[x] - score[y]) <= tolerance
        for i, x in enumerate(order)
        for y in order[i + 1 :]
        if position[x] > position[y]
    )


@pytest.fixture(scope="module")
def dense_epirec(embedding_cache) -> dict[str, Ranking]:
    """memrecall's `dense` built-in (exact cosine, with scores) on EpiRec v2."""
    from memrecall.encoding.embeddings import Encoder, resolve_model
    from memrecall.systems.builtin.dense import DenseRetriever

    return scored_all(DenseRetriever(Encoder(resolve_model(), embedding_cache)), epirec_v2())
