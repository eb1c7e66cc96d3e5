"""LlamaIndex adapters: metadata kept out of embeddings, no LLM, determinism, cross-checks with built-ins."""

from __future__ import annotations

import sys
from types import SimpleNamespace

import pytest
from framework_support import (
    ask,
    dense_epirec,  # noqa: F401 - a fixture this module uses
    differing,
    epirec_v2,
    rank_all,
    tiny_store,
)

for _module in ("llama_index.core", "llama_index.embeddings.huggingface", "llama_index.retrievers.bm25"):
    pytest.importorskip(_module, reason=f"{_module} is not installed: pip install 'memrecall[llamaindex]'")

from memrecall.errors import ConfigError  # noqa: E402
from memrecall.systems.adapters import llamaindex as li  # noqa: E402

ADAPTERS = (li.LlamaIndexVectorAdapter, li.LlamaIndexBM25Adapter, li.LlamaIndexFusionAdapter)


@pytest.fixture(scope="module")
def epirec_rankings():
    """Each LlamaIndex adapter's rankings of EpiRec v2, computed once."""
    return {cls.name: rank_all(cls(), epirec_v2()) for cls in ADAPTERS}


def test_nodes_embed_only_the_text_and_settings_have_no_real_llm():
    from llama_index.core import Settings
    from llama_index.core.llms import MockLLM
    from llama_index.core.schema import MetadataMode

    nodes = li._nodes(tiny_store())
    assert [n.node_id for n in nodes] == ["pet", "tax", "cake"]
    assert [n.get_content(MetadataMode.EMBED) for n in nodes] == [d.text for d in tiny_store()]
    assert nodes[0].metadata["timestamp"] == "2025-01-01T00:00:00+00:00"
    assert isinstance(Settings.llm, MockLLM)


@pytest.mark.slow
def test_tiny_rankings_by_meaning_by_stemmed_keywords_and_fused():
    store = tiny_store()
    vector, bm25, fusion = (cls() for cls in ADAPTERS)
    for adapter in (vector, bm25, fusion):
        adapter.index(store)
    assert vector.rank(ask("the young dog playing outside"))[0] == "pet"
    # Porter stemming: "baking cakes" meets "baked ... cake"; the two unmatched documents follow.
    assert bm25.rank(ask("baking cakes"))[0] == "cake"
    assert sorted(fusion.rank(ask("baking cakes"))) == ["cake", "pet", "tax"]
    assert fusion.rank(ask("baking cakes"))[0] == "cake"


def test_depth_cuts_and_empty_store_ranks_nothing():
    adapter = li.LlamaIndexFusionAdapter()
    adapter.prepare(SimpleNamespace(depth=1))
    adapter.index(tiny_store())
    assert adapter.rank(ask("tax office")) == ["tax"]
    adapter.index(())
    assert adapter.rank(ask("tax office")) == []


def test_configs_state_fusion_tokenizer_and_model():
    fusion = li.LlamaIndexFusionAdapter().config()
    assert fusion["num_queries"] == 1 and "reciprocal_rerank" in fusion["fusion"]
    assert fusion["model_path"] == "model"
    assert "Porter stemmed" in li.LlamaIndexBM25Adapter().config()["tokens"]


def test_missing_stack_is_one_config_error_naming_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "llama_index.retrievers.bm25", None)
    with pytest.raises(ConfigError, match=r"llamaindex-bm25 adapter needs `pip install 'memrecall\[llamaindex\]'`"):
        li.LlamaIndexBM25Adapter().index(tiny_store())


@pytest.mark.slow
def test_vector_matches_dense_exactly_on_epirec(epirec_rankings, dense_epirec):  # noqa: F811
    dense = {q: list(r.doc_ids) for q, r in dense_epirec.items()}
    assert differing(epirec_rankings["llamaindex-vector"], dense) == []


@pytest.mark.slow
def test_bm25_is_rank_bm25_over_its_own_tokens(epirec_rankings):
    # Every difference from bm25-official is the tokenizer: BM25Okapi over tokenize_remove_stopwords reproduces it.
    import numpy as np
    from llama_index.retrievers.bm25.base import tokenize_remove_stopwords
    from rank_bm25 import BM25Okapi

    task = epirec_v2()
    for store_id, documents in task.stores.items():
        bm25 = BM25Okapi([tokenize_remove_stopwords(d.text) for d in documents])
        for q in (q for q in task.queries if q.store_id == store_id):
            order = np.asarray(bm25.get_scores(tokenize_remove_stopwords(q.text))).argsort()[::-1]
            assert epirec_rankings["llamaindex-bm25"][q.id] == [documents[i].id for i in order], q.id


@pytest.mark.slow
def test_fusion_is_unweighted_rrf_from_rank_zero_and_repeats(epirec_rankings):
    vector, bm25 = epirec_rankings["llamaindex-vector"], epirec_rankings["llamaindex-bm25"]
    for query_id, fused in epirec_rankings["llamaindex-fusion"].items():
        bm25_rank = {d: r for r, d in enumerate(bm25[query_id])}
        scores = {d: 1 / (r + 60) + 1 / (bm25_rank[d] + 60) for r, d in enumerate(vector[query_id])}
        assert fused == sorted(vector[query_id], key=lambda d: -scores[d]), query_id
    assert rank_all(li.LlamaIndexFusionAdapter(), epirec_v2()) == epirec_rankings["llamaindex-fusion"]
