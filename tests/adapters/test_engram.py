"""engram adapter: RetrievalPipeline (local MiniLM, no reranker) offline, its name boost, ties and what degrades."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

pytest.importorskip("engram", reason="engram-search is not installed (pip install 'memrecall[engram]')")

import vector_cases as vc  # noqa: E402
from memory_cases import TINY, ask, check_writes_only_its_folder, documents, tiny_documents  # noqa: E402

from memrecall.systems.adapters.common import local_model_path  # noqa: E402
from memrecall.systems.contract import NotMeasurable  # noqa: E402
from memrecall.systems.products.engram import EngramAdapter, engram_modules, load_embedder, map_back  # noqa: E402

CAT = "What does my cat eat?"
MISSING = "is not on this machine (a hub download; memrecall never downloads)"
EMBEDDER_FAILS = f"default embedder BAAI/bge-large-en-v1.5 {MISSING}: the local MiniLM folder is given instead"
RERANKER_FAILS = f"default reranker BAAI/bge-reranker-v2-m3 {MISSING}: use_reranker=False"
SPEAKERS = {
    "puppy": "Melanie: We adopted a puppy from the shelter last month.",
    "weather": "Caroline: The weather was lovely.",
    "beach": "Caroline: We went to the beach.",
    "car": "Jon: My car broke down again.",
}


@pytest.fixture(scope="module")
def tiny():
    adapter = EngramAdapter()
    adapter.index(tiny_documents())
    return adapter


def test_the_tiny_store_is_ranked_by_meaning_as_a_full_permutation(tiny):
    ranking = tiny.rank(ask(CAT))
    assert ranking[:2] == ["tuna", "cat"]
    assert sorted(ranking) == sorted(TINY)


@pytest.mark.slow
def test_the_vector_tiny_task_ranks_the_same_twice_and_in_a_fresh_adapter():
    vc.check_tiny(EngramAdapter())


@pytest.mark.slow
def test_a_task_depth_cuts_the_ranking_and_none_ranks_the_whole_store():
    adapter = EngramAdapter()
    adapter.prepare(SimpleNamespace(depth=2))
    adapter.index(tiny_documents())
    assert adapter.rank(ask(CAT)) == ["tuna", "cat"]
    adapter.prepare(SimpleNamespace(depth=None))
    assert adapter.rank(ask(CAT))[:2] == ["tuna", "cat"] and len(adapter.rank(ask(CAT))) == len(TINY)
    assert adapter.store_counts() == {}


@pytest.mark.slow
def test_each_store_is_fresh_and_documents_of_the_previous_store_never_come_back():
    adapter = EngramAdapter()
    adapter.index(tiny_documents())
    adapter.index(documents({"rain": "Heavy rain flooded the streets.", "bread": "I baked sourdough bread."}))
    assert adapter.rank(ask(CAT)) in (["rain", "bread"], ["bread", "rain"])
    assert adapter.rank(ask("a homemade loaf")) == ["bread", "rain"]
    adapter.index([])
    assert adapter.rank(ask(CAT)) == []


def test_document_embeddings_are_computed_once_per_store_by_engrams_embedder(tiny, monkeypatch):
    calls = []
    encode = tiny._embedder.encode_documents
    monkeypatch.setattr(tiny._embedder, "encode_documents", lambda texts: calls.append(len(texts)) or encode(texts))
    tiny.index(tiny_documents())
    for text in (CAT, "When is the meeting?", "rain in the mountains"):
        tiny.rank(ask(text))
    assert calls == [len(TINY)]
    assert all(len(d.embedding) == 384 for d in tiny._documents)


@pytest.mark.slow
def test_the_name_boost_lifts_a_named_speakers_turns_over_a_better_match():
    """MiniLM is uncased, so "Caroline" and "caroline" embed alike and tokenize alike for BM25: only the
    person-name boost (capitalised words) differs, and it puts Caroline's turns first, in store order."""
    adapter = EngramAdapter()
    question = "What pet did Caroline get from the shelter?"
    adapter.index(documents(SPEAKERS))
    embedder = adapter._embedder
    assert (embedder.encode_query(question) == embedder.encode_query(question.lower())).all()
    assert adapter.rank(ask(question.replace("Caroline", "caroline"))) == ["beach", "puppy", "weather", "car"]
    assert adapter.rank(ask(question)) == ["weather", "beach", "puppy", "car"]


@pytest.mark.slow
def test_equal_scores_keep_store_order_in_both_directions():
    same = {name: "Caroline: I like green tea." for name in ("a", "b", "c")} | {"o": "Melanie: I like green tea."}
    adapter = EngramAdapter()
    adapter.index(documents(same))
    assert adapter.rank(ask("What does Caroline like?")) == ["a", "b", "c", "o"]
    adapter.index(documents(dict(reversed(list(same.items())))))
    assert adapter.rank(ask("What does Caroline like?")) == ["c", "b", "a", "o"]


def test_results_that_map_to_no_document_make_the_query_not_measurable():
    """On engram's real result objects: every result of its search maps back, a foreign id does not."""
    engram = engram_modules("engram")
    embedder = load_embedder(engram, local_model_path())
    texts = list(TINY.values())
    docs = [
        engram.Document(id=f"d{i}", text=t, embedding=v.tolist())
        for i, (t, v) in enumerate(zip(texts, embedder.encode_documents(texts), strict=True))
    ]
    found = engram.RetrievalPipeline(embedder=embedder, use_reranker=False).search(CAT, docs, top_k=len(docs))
    ids = {f"d{i}": doc_id for i, doc_id in enumerate(TINY)}
    assert map_back(found, ids)[:2] == ["tuna", "cat"]
    ids.pop(found[1].id)
    answer = map_back(found, ids)
    assert isinstance(answer, NotMeasurable)
    first = found[1].id
    assert answer.reason == f"engram returned 1 result(s) whose id maps to no document of the store (first {first!r})"


@pytest.mark.slow
def test_long_documents_are_counted_as_chunked_by_engram():
    adapter = EngramAdapter()
    adapter.index(documents({"long": "My cat eats tuna. " * 80, "short": "The meeting moved to Tuesday."}))
    assert adapter.store_counts() == {"documents longer than 1024 characters: embedded as engram's mean over chunks": 1}
    assert adapter.rank(ask(CAT)) == ["long", "short"]


def test_nothing_is_written_to_the_working_directory_home_or_the_repository(tmp_path, monkeypatch):
    adapter = EngramAdapter()
    check_writes_only_its_folder(adapter, tiny_documents(), CAT, "tuna", tmp_path, monkeypatch)
    assert adapter.config()["degraded"] == [EMBEDDER_FAILS, RERANKER_FAILS]


def test_a_missing_engram_names_the_extra(monkeypatch):
    vc.check_missing_stack(monkeypatch, EngramAdapter(), "engram", "engram")


def test_config_names_the_version_the_two_changes_and_the_detected_offline_failures():
    config = vc.check_config(EngramAdapter(), "engram-search")
    assert (config["stack"], config["use_reranker"]) == ("engram-search", False)
    assert [line.split(" ")[0] for line in config["changed"]] == ["embedder:", "use_reranker=False"]
    assert "BAAI/bge-large-en-v1.5" in config["changed"][0] and "BAAI/bge-reranker-v2-m3" in config["changed"][1]
    assert config["degraded"] == [EMBEDDER_FAILS, RERANKER_FAILS]
    assert config["ties"].startswith("engram's order")


def test_a_default_model_on_this_machine_is_not_reported(monkeypatch):
    """With engram's bge-large registry entry pointed at the local folder, only the reranker is missing."""
    import engram.retrieval.embedder as embedder_module

    monkeypatch.setitem(embedder_module.MODELS, embedder_module.DEFAULT_MODEL, (local_model_path(), 384))
    adapter = EngramAdapter()
    adapter.index(tiny_documents())
    assert adapter.config()["degraded"] == [RERANKER_FAILS]
