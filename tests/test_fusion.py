import pytest

from memrecall.data.model import Ranking
from memrecall.systems.builtin.fusion import reciprocal_rank_fusion


def r(*ids):
    return Ranking("q", ids, tuple(float(-i) for i in range(len(ids))))


def test_rrf_sums_reciprocal_ranks_with_k_60():
    fused = reciprocal_rank_fusion([r("a", "b", "c"), r("b", "c", "a")])
    scores = dict(zip(fused.doc_ids, fused.scores, strict=True))
    assert scores["a"] == pytest.approx(1 / 61 + 1 / 63)
    assert scores["b"] == pytest.approx(1 / 62 + 1 / 61)
    assert scores["c"] == pytest.approx(1 / 63 + 1 / 62)
    assert fused.doc_ids == ("b", "a", "c")


def test_rrf_ties_follow_the_first_ranking():
    fused = reciprocal_rank_fusion([r("a", "b"), r("b", "a")])
    assert fused.scores[0] == fused.scores[1]
    assert fused.doc_ids == ("a", "b")


def test_rrf_weights_and_k_are_configurable():
    fused = reciprocal_rank_fusion([r("a", "b"), r("b", "a")], k=1, weights=[1.0, 3.0])
    assert dict(zip(fused.doc_ids, fused.scores, strict=True)) == {"b": 1 / 3 + 3 / 2, "a": 1 / 2 + 3 / 3}


def test_rrf_rejects_mismatched_weights_and_empty_input():
    with pytest.raises(ValueError, match="2 weights for 1 rankings"):
        reciprocal_rank_fusion([r("a")], weights=[1, 1])
    with pytest.raises(ValueError):
        reciprocal_rank_fusion([])
