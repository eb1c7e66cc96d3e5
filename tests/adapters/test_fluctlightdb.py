"""FluctlightDB adapters: agent mode (connect) and index mode (connect_index, plain cosine) on MiniLM vectors."""

from __future__ import annotations

import os
from types import SimpleNamespace

import pytest

pytest.importorskip("fluctlightdb", reason="fluctlightdb is not installed (pip install 'memrecall[fluctlightdb]')")

import vector_cases as vc  # noqa: E402
from memory_cases import (  # noqa: E402
    TINY,
    ask,
    check_dense_order,
    check_writes_only_its_folder,
    documents,
    run_on_epirec,
    tiny_documents,
)

from memrecall.systems.contract import NotMeasurable  # noqa: E402
from memrecall.systems.products.fluctlightdb import FluctlightAgentAdapter, FluctlightIndexAdapter  # noqa: E402

CAT = "What does my cat eat?"
ENTRIES = [FluctlightAgentAdapter, FluctlightIndexAdapter]
INDEX_SWITCHES = {"FLUCTLIGHT_CANDIDATE_CAP": "512", "FLUCTLIGHT_FAST_INGEST": "1", "FLUCTLIGHT_VECTOR_FAST": "1"}
LEFT_OUT = "query-document pairs activate() left out (appended in store order)"


@pytest.fixture(params=ENTRIES, ids=[e.name for e in ENTRIES])
def make(request):
    """The entry under test."""
    return request.param


def test_the_tiny_store_is_ranked_as_a_full_permutation(make):
    """Agent mode's order differs from one brain to the next (see its config), so only index mode's top is fixed."""
    adapter = make()
    adapter.prepare(SimpleNamespace(depth=None))
    adapter.index(tiny_documents())
    rankings = [adapter.rank(ask(text)) for text in (CAT, "When is the meeting?")]
    assert all(sorted(ranking) == sorted(TINY) for ranking in rankings)
    if make is FluctlightIndexAdapter:
        assert (rankings[0][:2], rankings[1][0]) == (["tuna", "cat"], "meeting")


@pytest.mark.slow
def test_index_mode_gives_the_same_rankings_twice_and_in_a_fresh_adapter():
    texts = [CAT, "When is the meeting?", "rain in the mountains"]
    first, other = FluctlightIndexAdapter(), FluctlightIndexAdapter()
    first.index(tiny_documents())
    other.index(tiny_documents())
    once = [first.rank(ask(t)) for t in texts]
    assert once[0][:2] == ["tuna", "cat"] and once[2][0] == "hike"
    assert [first.rank(ask(t)) for t in texts] == once == [other.rank(ask(t)) for t in texts]


def test_config_names_the_mode_the_switches_its_connect_function_sets_and_determinism(make):
    adapter = make()
    adapter.prepare(SimpleNamespace(depth=None))  # a probe brain: config knows the switches before any store
    config = vc.check_config(adapter, "fluctlightdb")
    if make is FluctlightIndexAdapter:
        assert (config["mode"], config["switches"], config["deterministic"]) == (
            "index (connect_index)",
            INDEX_SWITCHES,
            "yes",
        )
        assert config["changed"] == ["connect_index() instead of connect(): its switches in `switches`"]
    else:
        assert (config["mode"], config["switches"]) == ("agent (connect)", {})
        assert config["deterministic"].startswith("no: identical stores and queries recall different documents")


def test_the_caller_s_fluctlight_switches_are_restored_and_never_leak_between_entries(monkeypatch):
    monkeypatch.setenv("FLUCTLIGHT_VECTOR_FAST", "caller")
    index, agent = FluctlightIndexAdapter(), FluctlightAgentAdapter()
    index.index(tiny_documents())
    agent.index(tiny_documents())
    index.rank(ask(CAT))
    assert os.environ["FLUCTLIGHT_VECTOR_FAST"] == "caller"
    assert {k: v for k, v in os.environ.items() if k.startswith("FLUCTLIGHT_") and k != "FLUCTLIGHT_VECTOR_FAST"} == {}
    assert (index._switches, agent._switches) == (INDEX_SWITCHES, {})


def test_what_a_recall_leaves_out_is_counted_per_store():
    adapter = FluctlightIndexAdapter()
    adapter.index(tiny_documents())
    adapter.rank(ask(CAT))
    left = adapter.store_counts()[LEFT_OUT]
    assert 0 < left < len(TINY)
    adapter.index(documents({"a": "The dog buried a bone.", "b": "Our train left at dawn."}))
    assert adapter.store_counts() == {}


def test_a_recall_that_maps_back_to_no_document_is_not_measurable():
    adapter = FluctlightIndexAdapter()
    adapter.index(tiny_documents())
    vector = adapter._vectors[2]  # the tuna document's own vector: the stray copy is recalled with it
    adapter._call("experience", "Milo the cat only eats tuna.", doc_id="stray", semantic_vector=vector.tolist())
    answer = adapter.rank(ask(TINY["tuna"], "q-tuna"))
    assert answer == NotMeasurable(
        "fluctlightdb-index: activate() recalled a memory that maps back to no document for query 'q-tuna'"
    )


def test_nothing_is_written_to_the_working_directory_home_or_the_repository(make, tmp_path, monkeypatch):
    adapter = make()
    top = "meeting" if make is FluctlightIndexAdapter else None  # agent mode's order is not fixed
    check_writes_only_its_folder(adapter, tiny_documents(), "When is the meeting?", top, tmp_path, monkeypatch)
    assert any(adapter._folder.path.glob("store-*/brain*"))


def test_a_missing_fluctlightdb_names_the_extra(monkeypatch, make):
    vc.check_missing_stack(monkeypatch, make(), "fluctlightdb", "fluctlightdb")


class RecordingIndex(FluctlightIndexAdapter):
    """Index mode that notes how many documents each query's activate() recalled."""

    def __init__(self) -> None:
        super().__init__()
        self.recalled: dict[str, int] = {}

    def _answer(self, found, query, vector):
        self.recalled[query.id] = len(found.get("recalls") or [])
        return super()._answer(found, query, vector)


@pytest.mark.slow
def test_epirec_index_mode_recalls_in_dense_cosine_order_and_skips_nothing_above_its_floor():
    """Cross-check: connect_index recall over the local MiniLM is plain cosine, so what it recalls is dense's top."""
    adapter = RecordingIndex()
    rankings = run_on_epirec(adapter)
    check_dense_order(rankings, "fluctlightdb-index (its recalled prefix)", adapter.recalled)
    assert sum(adapter.recalled.values()) > 504
