"""MemPalace adapters: its raw drawer search ranks like dense; its hybrid search is its documented blend."""

from __future__ import annotations

import importlib.util
import os
from importlib import metadata
from types import SimpleNamespace

import pytest
from memory_cases import (
    TINY,
    ask,
    check_dense_order,
    dense_cosines,
    epirec_task,
    run_on_epirec,
    tiny_documents,
    untied_differences,
)

if importlib.util.find_spec("mempalace") is None:  # find_spec: importing it here would beat the adapter's env
    pytest.skip("MemPalace adapter tests need `pip install 'memrecall[mempalace]'`", allow_module_level=True)

from memrecall.systems.adapters.mempalace import MemPalaceHybridAdapter, MemPalaceRawAdapter  # noqa: E402

ADAPTERS = (MemPalaceRawAdapter, MemPalaceHybridAdapter)


@pytest.fixture(scope="module", params=ADAPTERS, ids=[a.name for a in ADAPTERS])
def tiny(request):
    adapter = request.param()
    adapter.index(tiny_documents())
    yield adapter
    adapter.close()


def test_ranks_the_tiny_store_by_meaning_as_a_full_permutation(tiny):
    ranking = tiny.rank(ask("What does my cat eat?"))
    assert ranking[:2] == ["tuna", "cat"]
    assert sorted(ranking) == sorted(TINY)


def test_two_fresh_adapters_give_the_same_rankings(tiny):
    other = type(tiny)()
    other.index(tiny_documents())
    texts = ["What does my cat eat?", "When is the meeting?", "rain in the mountains"]
    try:
        assert [other.rank(ask(t)) for t in texts] == [tiny.rank(ask(t)) for t in texts]
    finally:
        other.close()


def test_the_embedding_patch_and_settings_are_scoped_and_restored(tiny):
    import mempalace.embedding

    original = mempalace.embedding.get_embedding_function
    before = os.environ.get("MEMPALACE_CONFIG_DIR")
    tiny.rank(ask("piano lessons"))
    assert mempalace.embedding.get_embedding_function is original
    assert os.environ.get("MEMPALACE_CONFIG_DIR") == before
    assert not os.path.exists(os.path.expanduser("~/.mempalace/palace/" + os.path.basename(str(tiny._folder))))


@pytest.mark.parametrize("adapter_class", ADAPTERS, ids=[a.name for a in ADAPTERS])
def test_depth_config_and_cleanup(adapter_class):
    adapter = adapter_class()
    adapter.prepare(SimpleNamespace(depth=2))
    adapter.index(tiny_documents())
    assert adapter.rank(ask("What does my cat eat?")) == ["tuna", "cat"]
    config, folder = adapter.config(), adapter._folder
    assert (config["name"], config["version"], config["n_results"]) == (
        adapter_class.name,
        metadata.version("mempalace"),
        2,
    )
    adapter.close()
    assert folder is not None and not os.path.exists(folder)


@pytest.mark.slow
def test_epirec_raw_rankings_are_dense_cosine_order():
    """Cross-check: Chroma (cosine) over MemPalace's drawers, fed the same MiniLM, ranks as dense does."""
    check_dense_order(run_on_epirec(MemPalaceRawAdapter()), "mempalace-raw")


@pytest.mark.slow
def test_epirec_hybrid_rankings_are_its_documented_blend_over_the_whole_store():
    """Cross-check: 0.6 * (1 - distance) + 0.4 * max-normalised BM25 (MemPalace's own _bm25_scores) per document.

    search_memories rounds each Chroma distance to 4 decimals before it blends, so the expected blend does too;
    with the unrounded cosine, 6 of 504 rankings differed without a tie.
    """
    from mempalace.searcher import _bm25_scores

    rankings = run_on_epirec(MemPalaceHybridAdapter())
    task, cosines = epirec_task(), dense_cosines()
    texts = {d.id: d.text for store in task.stores.values() for d in store}
    untied = identical = 0
    for query in task.queries:
        ids = list(cosines[query.id])
        bm25 = _bm25_scores(query.text, [texts[d] for d in ids])
        top = max(bm25) or 1.0
        blend = {
            d: 0.6 * max(0.0, 1.0 - round(1.0 - cosines[query.id][d], 4)) + 0.4 * b / top
            for d, b in zip(ids, bm25, strict=True)
        }
        expected = sorted(ids, key=lambda d: -blend[d])
        identical += rankings[query.id] == expected
        untied += untied_differences(rankings[query.id], expected, blend)
    assert (len(rankings), untied) == (504, 0)
    print(f"mempalace-hybrid vs its blend on dense cosines: {identical}/504 identical")
