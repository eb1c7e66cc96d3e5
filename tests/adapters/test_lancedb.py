"""LanceDB adapters: exact cosine search and hybrid (native FTS + RRF); offline, deterministic, temp dirs gone."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("lancedb", reason="lancedb is not installed (pip install 'memrecall[lancedb]')")

import vector_cases as vc  # noqa: E402
from conftest import query  # noqa: E402

from memrecall.systems.adapters.lancedb import LanceDbAdapter, LanceDbHybridAdapter  # noqa: E402


@pytest.mark.parametrize("adapter_class", [LanceDbAdapter, LanceDbHybridAdapter])
def test_tiny_task_ranks_every_document_the_same_way_twice(adapter_class):
    vc.check_tiny(adapter_class())


@pytest.mark.parametrize("adapter_class", [LanceDbAdapter, LanceDbHybridAdapter])
def test_missing_lancedb_names_the_extra(monkeypatch, adapter_class):
    vc.check_missing_stack(monkeypatch, adapter_class(), "lancedb", "lancedb")


def test_config_states_search_settings():
    assert vc.check_config(LanceDbAdapter(), "lancedb")["distance_type"] == "cosine"
    config = vc.check_config(LanceDbHybridAdapter(), "lancedb")
    assert config["rrf_k"] == 60 and config["search"].startswith("hybrid")


@pytest.mark.parametrize("adapter_class", [LanceDbAdapter, LanceDbHybridAdapter])
def test_temp_dirs_are_removed(adapter_class):
    adapter = adapter_class()
    adapter.index(vc.TINY_STORE)
    first = Path(adapter._folder.name)
    adapter.index(vc.TINY_STORE[:2])
    second = Path(adapter._folder.name)
    assert first != second and not first.exists() and second.exists()
    del adapter
    assert not second.exists()


def test_hybrid_fuses_full_text_hits_with_rrf():
    """A query whose words occur in one document only: RRF gives it 1/61 + 1/61 and ranks it first."""
    adapter = LanceDbHybridAdapter()
    adapter.index(vc.TINY_STORE)
    probe = query("sourdough", query_id="q-word")
    found = adapter._search(probe.text)
    scores = dict(found)
    assert adapter.rank(probe)[0] == "bread"
    assert scores["bread"] == pytest.approx(2 / 61)
    assert sorted(scores) == sorted(d.id for d in vc.TINY_STORE)
