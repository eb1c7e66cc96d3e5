"""txtai hybrid adapter: convex fusion (not RRF), tiny rankings, depth, determinism on EpiRec v2."""

from __future__ import annotations

import sys
from types import SimpleNamespace

import pytest
from framework_support import ask, epirec_v2, rank_all, tiny_store

pytest.importorskip("txtai", reason="txtai is not installed: pip install 'memrecall[txtai]'")

from memrecall.errors import ConfigError  # noqa: E402
from memrecall.systems.adapters.txtai import TxtaiHybridAdapter  # noqa: E402


def test_tiny_rankings_and_depth():
    adapter = TxtaiHybridAdapter()
    adapter.index(tiny_store())
    assert adapter.rank(ask("the young dog playing outside"))[0] == "pet"
    assert adapter.rank(ask("lemon cake"))[0] == "cake"
    assert sorted(adapter.rank(ask("lemon cake"))) == ["cake", "pet", "tax"]
    adapter.prepare(SimpleNamespace(depth=2))
    adapter.index(tiny_store())
    assert adapter.rank(ask("tax return")) == adapter.rank(ask("tax return"))[:2]
    assert len(adapter.rank(ask("tax return"))) == 2 and adapter.rank(ask("tax return"))[0] == "tax"


def test_fusion_is_the_stated_weighted_sum_not_rrf():
    adapter = TxtaiHybridAdapter()
    adapter.index(tiny_store())
    config = adapter.config()
    assert config["weights"] == [0.5, 0.5] and "NOT reciprocal rank fusion" in config["fusion"]
    assert config["model_path"] == "model"
    # The score txtai returns is 0.5 x dense + 0.5 x normalised BM25: check it against its two arms.
    embeddings = adapter._embeddings
    fused = dict(embeddings.search("lemon cake", 3, weights=0.5))
    dense = dict(embeddings.search("lemon cake", 3, weights=1.0))
    sparse = dict(embeddings.search("lemon cake", 3, weights=0.0))
    for uid, score in fused.items():
        assert score == pytest.approx(0.5 * dense[uid] + 0.5 * sparse.get(uid, 0.0), abs=1e-6)


def test_empty_store_and_missing_stack(monkeypatch):
    adapter = TxtaiHybridAdapter()
    adapter.index(())
    assert adapter.rank(ask("anything")) == []
    monkeypatch.setitem(sys.modules, "txtai", None)
    with pytest.raises(ConfigError, match=r"txtai-hybrid adapter needs `pip install 'memrecall\[txtai\]'`"):
        TxtaiHybridAdapter().index(tiny_store())


@pytest.mark.slow
def test_epirec_rankings_are_full_permutations_and_repeat_exactly():
    task = epirec_v2()
    first = rank_all(TxtaiHybridAdapter(), task)
    assert all(sorted(first[q.id]) == sorted(d.id for d in task.store_of(q)) for q in task.queries)
    assert rank_all(TxtaiHybridAdapter(), task) == first
