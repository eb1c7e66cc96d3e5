"""LangChain adapters: tiny hand-checked rankings, determinism, and cross-checks against memrecall's built-ins."""

from __future__ import annotations

import sys
import tomllib
from importlib.metadata import version
from pathlib import Path
from types import SimpleNamespace

import pytest
from framework_support import (
    LOCOMO,
    ask,
    dense_epirec,  # noqa: F401 - a fixture this module uses
    differing,
    epirec_v2,
    locomo_session,
    rank_all,
    tiny_store,
    whitespace_normalised,
)

for _module in ("langchain_community.retrievers", "langchain.retrievers", "langchain_huggingface", "rank_bm25"):
    pytest.importorskip(_module, reason=f"{_module} is not installed: pip install 'memrecall[langchain]'")

from memrecall.errors import ConfigError  # noqa: E402
from memrecall.systems.adapters import langchain as lc  # noqa: E402
from memrecall.systems.builtin.bm25_official import OfficialBM25  # noqa: E402

ADAPTERS = (lc.LangChainBM25Adapter, lc.LangChainVectorAdapter, lc.LangChainEnsembleAdapter)


@pytest.fixture(scope="module")
def epirec_rankings():
    """Each LangChain adapter's rankings of EpiRec v2, computed once."""
    return {cls.name: rank_all(cls(), epirec_v2()) for cls in ADAPTERS}


def test_bm25_is_case_sensitive_whitespace_tokens_and_ties_fall_in_reversed_argsort_order():
    adapter = lc.LangChainBM25Adapter()
    store = tiny_store()
    adapter.index(store)
    # "Puppy" != "puppy" under str.split(): no document matches, every score is 0 -> reversed argsort order.
    assert adapter.rank(ask("Puppy")) == ["cake", "tax", "pet"]
    assert adapter.rank(ask("puppy stick")) == ["pet", "cake", "tax"]


def test_vector_ranks_by_meaning_and_respects_depth():
    adapter = lc.LangChainVectorAdapter()
    adapter.prepare(SimpleNamespace(depth=2))
    adapter.index(tiny_store())
    ranked = adapter.rank(ask("the young dog playing outside"))
    assert len(ranked) == 2 and ranked[0] == "pet"
    adapter.prepare(SimpleNamespace(depth=None))
    adapter.index(tiny_store())
    assert sorted(adapter.rank(ask("dessert for a celebration"))) == ["cake", "pet", "tax"]
    assert adapter.rank(ask("dessert for a celebration"))[0] == "cake"


def test_empty_store_ranks_nothing():
    for cls in ADAPTERS:
        adapter = cls()
        adapter.index(())
        assert adapter.rank(ask("anything")) == []


def test_configs_name_versions_model_basename_and_fusion_weights():
    configs = {cls.name: cls().config() for cls in ADAPTERS}
    assert configs["langchain-bm25"]["versions"]["langchain-community"] == version("langchain-community")
    assert configs["langchain-vector"]["model_path"] == "model"
    assert "/" not in configs["langchain-vector"]["model_path"]
    ensemble = configs["langchain-ensemble"]
    assert (ensemble["weights"], ensemble["c"]) == ([0.5, 0.5], 60)
    assert "weighted reciprocal rank fusion" in ensemble["fusion"]
    assert all(config["unreturned"] == "appended in store order" for config in configs.values())


def test_missing_stack_is_one_config_error_naming_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "langchain_community.retrievers", None)
    with pytest.raises(ConfigError, match=r"langchain-bm25 adapter needs `pip install 'memrecall\[langchain\]'`"):
        lc.LangChainBM25Adapter().index(tiny_store())


def test_entry_points_name_these_classes():
    pyproject = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml").read_text())
    points = pyproject["project"]["entry-points"]["memrecall.systems"]
    for cls in ADAPTERS:
        assert points[cls.name] == f"memrecall.systems.adapters.langchain:{cls.__name__}"
    assert pyproject["project"]["optional-dependencies"]["langchain"]


@pytest.mark.slow
def test_epirec_rankings_are_full_permutations_and_repeat_exactly(epirec_rankings):
    task = epirec_v2()
    store_ids = {q.id: sorted(d.id for d in task.store_of(q)) for q in task.queries}
    for rankings in epirec_rankings.values():
        assert all(sorted(rankings[q]) == store_ids[q] for q in store_ids)
    again = rank_all(lc.LangChainEnsembleAdapter(), task)
    assert again == epirec_rankings["langchain-ensemble"]


@pytest.mark.slow
def test_vector_matches_dense_exactly_on_epirec(epirec_rankings, dense_epirec):  # noqa: F811
    # Same MiniLM weights and truncation, exact cosine: no ranking differs on EpiRec v2.
    dense = {q: list(r.doc_ids) for q, r in dense_epirec.items()}
    assert differing(epirec_rankings["langchain-vector"], dense) == []


@pytest.mark.slow
def test_bm25_matches_bm25_official_on_epirec(epirec_rankings):
    # Same rank_bm25 BM25Okapi and tie order; EpiRec texts have no runs of whitespace, so the tokens agree.
    assert differing(epirec_rankings["langchain-bm25"], rank_all(OfficialBM25(), epirec_v2())) == []


def test_ensemble_is_weighted_rrf_of_its_two_arms(epirec_rankings):
    bm25, vector = epirec_rankings["langchain-bm25"], epirec_rankings["langchain-vector"]
    for query_id, fused in epirec_rankings["langchain-ensemble"].items():
        vector_rank = {d: r for r, d in enumerate(vector[query_id], start=1)}
        scores = {d: 0.5 / (r + 60) + 0.5 / (vector_rank[d] + 60) for r, d in enumerate(bm25[query_id], start=1)}
        assert fused == sorted(bm25[query_id], key=lambda d: -scores[d]), query_id


@pytest.mark.skipif(not LOCOMO.is_file(), reason=f"LoCoMo is not at {LOCOMO}")
def test_bm25_differs_from_bm25_official_on_locomo_only_by_whitespace_tokenisation():
    task = locomo_session()
    adapter = rank_all(lc.LangChainBM25Adapter(), task)
    official = rank_all(OfficialBM25(), task)
    # split(" ") keeps "\n"-joined words as one token; split() does not: the rankings differ ...
    assert differing(adapter, official)
    # ... and once runs of whitespace are single spaces, the two agree on every query.
    assert differing(adapter, rank_all(OfficialBM25(), whitespace_normalised(task))) == []
