"""mneme adapter: AgentMemory's default hybrid recall on the MiniLM embedder, mapped back through its provenance."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

pytest.importorskip("mneme", reason="flywheel-mneme is not installed (pip install 'memrecall[mneme]')")

import vector_cases as vc  # noqa: E402
from memory_cases import ask, check_writes_only_its_folder, documents  # noqa: E402

from memrecall.systems.contract import NotMeasurable  # noqa: E402
from memrecall.systems.products.mneme import FUSION, USER, MnemeAdapter  # noqa: E402

FACTS = {
    "cat": "I adopted a cat named Milo last spring.",
    "tuna": "My cat Milo only eats tuna for dinner.",
    "hike": "We went hiking in the Alps and got caught in the rain.",
    "meeting": "Our quarterly budget meeting is on Tuesday afternoon.",
    "piano": "My sister practises the piano every evening.",
}
CHATTER = {"ok": "Okay!", "sure": "Sounds good to me."}  # no fact cue: rule/v1 keeps no memory of these
TEXTS = ["What does my cat eat?", "When is the budget meeting?", "rain in the mountains"]
TOP = ["tuna", "meeting", "hike"]
DROPPED = "documents that produced no memory (rule/v1 kept no fact): always appended"
MEMORIES = "memories (L1 atoms) remembered"


@pytest.fixture(scope="module")
def tiny():
    """One adapter over the facts and the chatter (the model loads once for the module)."""
    adapter = MnemeAdapter()
    adapter.index(documents({**FACTS, **CHATTER}))
    yield adapter
    adapter.close()


def test_the_tiny_store_is_ranked_as_a_full_permutation_with_the_matching_document_first(tiny):
    rankings = [tiny.rank(ask(text)) for text in TEXTS]
    assert [ranking[0] for ranking in rankings] == TOP
    assert rankings[0][:2] == ["tuna", "cat"]
    assert all(sorted(ranking) == sorted({**FACTS, **CHATTER}) for ranking in rankings)


def test_documents_that_produced_no_memory_are_counted_and_only_ever_appended(tiny):
    assert tiny.store_counts() == {DROPPED: 2, MEMORIES: 5}
    assert all(tiny.rank(ask(text))[-2:] == ["ok", "sure"] for text in [*TEXTS, "Okay, sounds good to me!"])


def test_rankings_repeat_in_one_adapter_and_in_a_fresh_one(tiny):
    other = MnemeAdapter()
    other.index(documents({**FACTS, **CHATTER}))
    once = [tiny.rank(ask(t)) for t in TEXTS]
    assert [tiny.rank(ask(t)) for t in TEXTS] == once == [other.rank(ask(t)) for t in TEXTS]
    other.close()


def test_a_depth_cuts_the_ranking():
    adapter = MnemeAdapter()
    adapter.prepare(SimpleNamespace(depth=2))
    adapter.index(documents(FACTS))
    assert adapter.rank(ask(TEXTS[0])) == ["tuna", "cat"]
    assert adapter.config()["k"] == 2
    adapter.close()


def test_each_store_is_a_fresh_empty_store_and_the_previous_one_is_removed():
    adapter = MnemeAdapter()
    adapter.index(documents(FACTS))
    first = adapter._db
    adapter.index(documents({"x1": "My dog buried a bone in the garden.", "x2": "Our train left at dawn."}))
    assert adapter._db != first and not first.parent.exists()
    assert adapter.rank(ask(TEXTS[0])) == ["x1", "x2"]
    assert len(adapter._memory.store.memories(layer="L1", user=USER)) == 2
    adapter.close()


def test_nothing_is_written_to_the_working_directory_home_state_home_or_the_repository(tmp_path, monkeypatch):
    adapter = MnemeAdapter()  # mneme sweeps replay snapshots under XDG_STATE_HOME when a store opens
    check_writes_only_its_folder(adapter, documents(FACTS), TEXTS[0], "tuna", tmp_path, monkeypatch, ["XDG_STATE_HOME"])
    assert adapter._db is not None and adapter._db.is_file() and adapter._folder.path in adapter._db.parents


def test_a_missing_mneme_names_the_extra(monkeypatch):
    vc.check_missing_stack(monkeypatch, MnemeAdapter(), "mneme", "mneme")


def test_config_names_the_default_recipe_and_the_fusion_that_ran(tiny):
    tiny.rank(ask(TEXTS[0]))
    config = vc.check_config(tiny, "flywheel-mneme")
    assert (config["stack"], config["version"]) == ("flywheel-mneme", "0.7.0")
    assert config["recall"].startswith("AgentMemory.recall(text, strategy='hybrid' (its default)")
    assert FUSION == "rrf(k=60) over bm25+cosine" and config["fusion"].startswith(FUSION)
    assert config["extractor"].startswith("rule/v1") and tiny.store_counts() == {DROPPED: 2, MEMORIES: 5}


def test_a_hybrid_recall_without_its_vector_channel_is_reported():
    """With no embedder, mneme's hybrid recall silently runs BM25 only and drops every zero-scored memory."""
    adapter = MnemeAdapter(embed=False)
    adapter.index(documents(FACTS))
    assert adapter.rank(ask("kitten food")) == list(FACTS)  # no word in common: nothing returned, store order
    assert adapter.store_counts() == {
        MEMORIES: 5,
        "queries: recall returned fewer memories than the store holds (zero-scored hits dropped); rest appended": 1,
        "queries whose hybrid recall ran as 'bm25 (no embedder -> keyword fallback)', not "
        "'rrf(k=60) over bm25+cosine'": 1,
    }
    adapter.close()


def test_a_document_with_several_memories_ranks_once_at_its_best():
    adapter = MnemeAdapter()
    adapter.index(documents({"two": "My cat Milo sleeps all day. I feed Milo tuna at night.", **FACTS}))
    assert adapter.store_counts()[MEMORIES] == 7
    ranking = adapter.rank(ask("What does my cat eat?"))
    assert sorted(ranking) == sorted(["two", *FACTS]) and ranking[0] in {"two", "tuna"}
    adapter.close()


def test_a_memory_with_several_sources_gives_its_rank_to_each_source_in_source_order(tiny):
    """The mapping on mneme's real hits: one memory made to cite two documents' turns."""
    hits = tiny._memory.recall(TEXTS[0], top_k=2, user=USER).hits
    cat, tuna = (tiny._sources[_memory_of(tiny, doc_id)][0] for doc_id in ("cat", "tuna"))
    saved = dict(tiny._sources)
    try:
        for sources, expected in (((cat, tuna), ["cat", "tuna"]), ((tuna, cat), ["tuna", "cat"])):
            tiny._sources[hits[0].memory_id] = sources
            assert tiny._hit_docs(hits)[:2] == expected
    finally:
        tiny._sources = saved


def _memory_of(adapter: MnemeAdapter, doc_id: str) -> str:
    """The memory id remember() gave a document (its first)."""
    return next(m for m, sources in adapter._sources.items() if adapter._turn_doc[sources[0]] == doc_id)


def test_a_memory_the_adapter_did_not_remember_is_not_measurable():
    """supersede() (mneme's own API) adds a memory citing the old memory, not a document's turn."""
    adapter = MnemeAdapter()
    adapter.index(documents(FACTS))
    with adapter._folder.inside():
        adapter._memory.supersede(_memory_of(adapter, "tuna"), "My cat Milo now eats salmon for dinner.")
    answer = adapter.rank(ask("What does my cat eat?"))
    assert isinstance(answer, NotMeasurable) and "maps back to no document" in answer.reason
    adapter.close()
