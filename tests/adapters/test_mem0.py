"""mem0 adapter: Memory(infer=False) on local Qdrant ranks like memrecall's dense, minus what mem0 drops."""

from __future__ import annotations

import importlib.util
import os
from importlib import metadata
from types import SimpleNamespace

import pytest
from memory_cases import TINY, ask, dense_cosines, epirec_task, run_on_epirec, tiny_documents, untied_differences

if importlib.util.find_spec("mem0") is None:  # find_spec: importing it here would beat the adapter's env
    pytest.skip("mem0 adapter tests need `pip install 'memrecall[mem0]'`", allow_module_level=True)

from memrecall.systems.adapters.mem0 import Mem0Adapter  # noqa: E402


@pytest.fixture(scope="module")
def tiny():
    adapter = Mem0Adapter()
    adapter.index(tiny_documents())
    yield adapter
    adapter.close()


@pytest.mark.slow
def test_ranks_the_tiny_store_by_meaning_as_a_full_permutation(tiny):
    ranking = tiny.rank(ask("What does my cat eat?"))
    assert ranking[:2] == ["tuna", "cat"]
    assert sorted(ranking) == sorted(TINY)


def test_two_fresh_adapters_give_the_same_rankings(tiny):
    other = Mem0Adapter()
    other.index(tiny_documents())
    texts = ["What does my cat eat?", "When is the meeting?", "rain in the mountains"]
    try:
        assert [other.rank(ask(t)) for t in texts] == [tiny.rank(ask(t)) for t in texts]
    finally:
        other.close()


def test_a_task_depth_cuts_the_ranking_and_none_ranks_the_whole_store():
    adapter = Mem0Adapter()
    adapter.prepare(SimpleNamespace(depth=2))
    adapter.index(tiny_documents())
    assert adapter.rank(ask("What does my cat eat?")) == ["tuna", "cat"]
    adapter.prepare(SimpleNamespace(depth=None))
    assert len(adapter.rank(ask("What does my cat eat?"))) == len(TINY)
    adapter.close()


def test_config_names_the_version_and_settings_and_close_removes_the_store_folder():
    adapter = Mem0Adapter()
    adapter.index(tiny_documents())
    folder = adapter._folder
    config = adapter.config()
    assert config["version"] == metadata.version("mem0ai")
    assert (config["threshold"], config["infer"], config["top_k"]) == (0.0, False, "store size")
    assert config["model_path"] == os.path.basename(config["model_path"])
    assert os.environ["MEM0_TELEMETRY"] == "False"
    adapter.close()
    assert folder is not None and not os.path.exists(folder)


@pytest.mark.slow
def test_epirec_rankings_are_dense_cosine_order_with_negative_cosines_appended_in_store_order():
    """Cross-check: no BM25 (fastembed absent) and no entity boost (spaCy absent), so mem0 is exact cosine."""
    adapter = Mem0Adapter()
    assert adapter.config()["bm25"].startswith("off") and adapter.config()["entity_boost"].startswith("off")
    rankings = run_on_epirec(adapter)
    task, cosines = epirec_task(), dense_cosines()
    untied = identical = dropped = 0
    for query in task.queries:
        scores = cosines[query.id]
        store_order = list(scores)
        kept = sorted((d for d in store_order if scores[d] >= 0), key=lambda d: -scores[d])
        expected = kept + [d for d in store_order if scores[d] < 0]
        dropped += len(store_order) - len(kept)
        identical += rankings[query.id] == expected
        untied += untied_differences(rankings[query.id], expected, scores)
    assert (len(rankings), untied) == (504, 0)
    assert adapter.unreturned == dropped
    print(f"mem0 vs dense on EpiRec v2: {identical}/504 identical, {dropped} negative-cosine documents appended")


def test_mem0_imported_with_telemetry_on_is_refused_in_one_line(tiny, monkeypatch):
    """mem0 reads MEM0_TELEMETRY once at import; the adapter refuses a mem0 imported with it on."""
    import sys

    from memrecall.errors import ConfigError

    monkeypatch.setattr(sys.modules["mem0.memory.telemetry"], "MEM0_TELEMETRY", True)
    with pytest.raises(ConfigError, match=r"^mem0 adapter: mem0 was imported with its telemetry on .*MEM0_TEL"):
        Mem0Adapter().index([])
