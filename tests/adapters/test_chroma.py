"""Chroma adapter: HNSW cosine through SentenceTransformerEmbeddingFunction; offline, deterministic, counted."""

from __future__ import annotations

import pytest

pytest.importorskip("chromadb", reason="chromadb is not installed (pip install 'memrecall[chroma]')")

import vector_cases as vc  # noqa: E402

from memrecall.systems.adapters.chroma import ChromaAdapter  # noqa: E402


@pytest.mark.slow
def test_tiny_task_ranks_every_document_the_same_way_twice():
    vc.check_tiny(ChromaAdapter())


def test_missing_chromadb_names_the_extra(monkeypatch):
    vc.check_missing_stack(monkeypatch, ChromaAdapter(), "chromadb", "chroma")


def test_config_states_cosine_hnsw_and_the_embedding_function():
    config = vc.check_config(ChromaAdapter(), "chromadb")
    assert config["hnsw"]["space"] == "cosine"
    assert config["embedding_function"].startswith("SentenceTransformerEmbeddingFunction")


def test_each_store_is_a_fresh_collection():
    adapter = ChromaAdapter()
    adapter.index(vc.TINY_STORE)
    first = adapter._collection.name
    adapter.index(vc.TINY_STORE[:2])
    assert sorted(adapter.rank(vc.TINY_QUERIES[0])) == ["cat", "stocks"]
    names = [c.name for c in adapter._client.list_collections()]
    assert adapter._collection.name in names and first not in names
