"""Qdrant local-mode adapter: exact cosine; offline, deterministic."""

from __future__ import annotations

import pytest

pytest.importorskip("qdrant_client", reason="qdrant-client is not installed (pip install 'memrecall[qdrant]')")

import vector_cases as vc  # noqa: E402

from memrecall.systems.adapters.qdrant import QdrantAdapter  # noqa: E402


def test_tiny_task_ranks_every_document_the_same_way_twice():
    vc.check_tiny(QdrantAdapter())


def test_missing_qdrant_client_names_the_extra(monkeypatch):
    vc.check_missing_stack(monkeypatch, QdrantAdapter(), "qdrant_client", "qdrant")


def test_config_states_cosine_and_exact_search():
    config = vc.check_config(QdrantAdapter(), "qdrant-client")
    assert (config["distance"], config["client"]) == ("Cosine", "local mode, :memory:")


def test_each_store_is_a_fresh_collection():
    adapter = QdrantAdapter()
    adapter.index(vc.TINY_STORE)
    adapter.index(vc.TINY_STORE[2:])
    assert adapter.rank(vc.TINY_QUERIES[1]) == ["bread", "rain"]
