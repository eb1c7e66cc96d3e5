"""What every vector-store adapter test shares: a tiny task checked by hand, and the missing-stack check."""

from __future__ import annotations

import sys

import pytest
from conftest import doc, query

from memrecall.errors import ConfigError

TINY_STORE = (
    doc("cat", "The cat slept on the warm mat all afternoon.", 1),
    doc("stocks", "Stock markets fell sharply after the bank's report.", 2),
    doc("bread", "I baked a loaf of sourdough bread this morning.", 3),
    doc("rain", "Heavy rain flooded the streets of the old town.", 4),
)
TINY_QUERIES = (
    query("a kitten napping on a rug", query_id="q-cat"),
    query("homemade sourdough loaf", query_id="q-bread"),
    query("the share prices dropped", query_id="q-stocks"),
)
TINY_TOP = {"q-cat": "cat", "q-bread": "bread", "q-stocks": "stocks"}


def tiny_rankings(adapter) -> dict[str, list[str]]:
    """The adapter's rankings of the tiny task's three queries."""
    adapter.index(TINY_STORE)
    answers = (
        adapter.rank_many(TINY_QUERIES) if hasattr(adapter, "rank_many") else [adapter.rank(q) for q in TINY_QUERIES]
    )
    return {q.id: list(a) for q, a in zip(TINY_QUERIES, answers, strict=True)}


def check_tiny(adapter) -> dict[str, list[str]]:
    """Full permutations, the obvious document first, the same answer from rank() and a second fresh index."""
    first = tiny_rankings(adapter)
    for qid, ranking in first.items():
        assert sorted(ranking) == sorted(d.id for d in TINY_STORE), qid
        assert ranking[0] == TINY_TOP[qid], (qid, ranking)
    assert [list(adapter.rank(q)) for q in TINY_QUERIES] == [first[q.id] for q in TINY_QUERIES]
    assert tiny_rankings(adapter) == first
    assert tiny_rankings(type(adapter)()) == first
    return first


def check_missing_stack(monkeypatch, adapter, module: str, extra: str) -> None:
    """With the stack hidden, index() raises one ConfigError line naming the extra."""
    monkeypatch.setitem(sys.modules, module, None)
    with pytest.raises(
        ConfigError, match=rf"^{adapter.name} adapter needs `pip install 'memrecall\[{extra}\]'`"
    ) as err:
        adapter.index(TINY_STORE)
    assert "\n" not in str(err.value)


def check_config(adapter, distribution: str) -> dict:
    """config() names the adapter, the installed version, the model folder's basename only, and the rules."""
    from importlib.metadata import version

    config = adapter.config()
    assert config["name"] == adapter.name
    assert config["version"] == version(distribution)
    assert config["model"] == "sentence-transformers/all-MiniLM-L6-v2"
    assert config["model_path"] == "model" and "/" not in config["model_path"]
    assert config["unreturned"] == "appended in store order"
    assert config["k"] == "whole store"
    return config
