"""midas adapters: Memory.recall on the MiniLM embedder and on its silent offline default, mapped back, with drops."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

pytest.importorskip("midas", reason="midas-memory is not installed (pip install 'memrecall[midas]')")

import vector_cases as vc  # noqa: E402
from memory_cases import (  # noqa: E402
    TINY,
    ask,
    check_writes_only_its_folder,
    dense_cosines,
    documents,
    epirec_task,
    tiny_documents,
)

from memrecall.systems.contract import NotMeasurable  # noqa: E402
from memrecall.systems.products.midas import DROPPED, MidasAdapter, MidasHashingAdapter  # noqa: E402

pytestmark = pytest.mark.adapters

CAT = "What does my cat eat?"
TEXTS = [CAT, "When is the meeting?", "rain in the mountains"]


@pytest.fixture(scope="module")
def tiny():
    """The MiniLM entry over the tiny store (the model loads once for the module)."""
    adapter = MidasAdapter()
    adapter.index(tiny_documents())
    yield adapter
    adapter.close()


def test_the_tiny_store_is_ranked_by_meaning_as_a_full_permutation(tiny):
    rankings = [tiny.rank(ask(text)) for text in TEXTS]
    assert [ranking[0] for ranking in rankings] == ["tuna", "meeting", "hike"]
    assert rankings[0][:2] == ["tuna", "cat"] and all(sorted(r) == sorted(TINY) for r in rankings)


def test_hits_under_the_relevance_floor_are_dropped_counted_and_appended_in_store_order():
    """recall's min_relevance_ratio (0.3 x the best relevance) drops far hits: they come back in store order."""
    adapter = MidasAdapter()
    adapter.index(tiny_documents())
    hits = adapter._memory.recall(CAT, limit=5)
    kept = [hit.record.metadata["doc_id"] for hit in hits]
    assert len(kept) < 5 and kept[:2] == ["tuna", "cat"]
    assert adapter.rank(ask(CAT)) == kept + [d for d in TINY if d not in kept]
    assert adapter.store_counts() == {DROPPED: 1}
    adapter.close()


def test_the_relevance_midas_scores_is_memrecalls_dense_cosine_on_epirec():
    """Cross-check on one real EpiRec v2 store: every hit's relevance is the dense built-in's cosine (float32)."""
    task = epirec_task()
    store_id, store = next(iter(task.stores.items()))
    adapter = MidasAdapter()
    adapter.index(store)
    cosines = dense_cosines()
    queries = [q for q in task.queries if q.store_id == store_id]
    for query in queries:
        for hit in adapter._memory.recall(query.text, limit=len(store)):
            assert hit.relevance == pytest.approx(cosines[query.id][hit.record.metadata["doc_id"]], abs=1e-5)
    assert len(queries) > 0
    adapter.close()


def test_rankings_repeat_in_one_adapter_and_in_a_fresh_one(tiny):
    other = MidasAdapter()
    other.index(tiny_documents())
    once = [tiny.rank(ask(t)) for t in TEXTS]
    assert [tiny.rank(ask(t)) for t in TEXTS] == once == [other.rank(ask(t)) for t in TEXTS]


def test_a_depth_cuts_the_ranking_and_is_asked_of_the_product():
    adapter = MidasAdapter()
    adapter.prepare(SimpleNamespace(depth=2))
    adapter.index(tiny_documents())
    assert adapter.rank(ask(CAT)) == ["tuna", "cat"] and adapter.config()["k"] == 2
    assert adapter.store_counts() == {}
    adapter.close()


def test_each_store_is_fresh_and_empty_documents_are_counted_not_stored():
    adapter = MidasAdapter()
    adapter.index(tiny_documents())
    adapter.index(documents({"x1": "The dog buried a bone in the garden.", "blank": "  ", "x2": "Our train left."}))
    assert len(adapter._memory.store.all()) == 2
    assert adapter.rank(ask("where is the bone?")) == ["x1", "x2", "blank"]
    assert adapter.store_counts() == {"documents not stored: empty text, which remember() refuses": 1, DROPPED: 1}
    adapter.close()


@pytest.mark.parametrize("adapter_class", [MidasAdapter, MidasHashingAdapter])
def test_nothing_is_written_to_the_working_directory_home_or_the_repository(adapter_class, tmp_path, monkeypatch):
    check_writes_only_its_folder(adapter_class(), tiny_documents(), CAT, None, tmp_path, monkeypatch)


def test_a_missing_midas_names_the_extra(monkeypatch):
    vc.check_missing_stack(monkeypatch, MidasAdapter(), "midas", "midas")


def test_config_names_the_embedder_and_the_recall_defaults(tiny):
    config = vc.check_config(tiny, "midas-memory")
    assert (config["stack"], config["version"]) == ("midas-memory", "1.0.0")
    assert config["recall"].startswith("Memory.recall(text, limit=k) (dense;")
    assert config["embedder"].startswith("MiniLMEmbedder")


def test_the_bare_default_silently_runs_on_its_hashing_embedder(monkeypatch):
    """With fastembed absent, Memory() picks HashingEmbedder without a word; MIDAS_EMBEDDER=local would refuse."""
    monkeypatch.setenv("MIDAS_EMBEDDER", "local")  # removed around the adapter's calls, restored after
    adapter = MidasHashingAdapter()
    adapter.index(tiny_documents())
    assert type(adapter._memory.embedder).__name__ == "HashingEmbedder" and adapter._memory.embedder.dim == 256
    assert adapter.rank(ask("tuna for dinner"))[0] == "tuna"
    assert adapter.rank(ask("xylophone quartet")) == list(TINY)  # no word shared: nothing returned, store order
    assert adapter.config()["embedder"] == "Memory()'s own default, offline here: HashingEmbedder"
    assert adapter.store_counts() == {DROPPED: 2}
    import os

    assert os.environ["MIDAS_EMBEDDER"] == "local"
    adapter.close()


def test_a_hit_the_adapter_did_not_remember_is_not_measurable():
    adapter = MidasAdapter()
    adapter.index(tiny_documents())
    adapter._memory.remember("Milo the cat adores tuna and salmon for dinner.")
    answer = adapter.rank(ask(CAT, "q-cat"))
    assert answer == NotMeasurable("midas: a recall hit maps back to no document for query 'q-cat'")
    adapter.close()
