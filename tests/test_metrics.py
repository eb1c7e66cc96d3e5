import math

import numpy as np
import pytest

from memrecall.scoring import metrics
from memrecall.scoring.metrics import (
    Metric,
    bootstrap_ci,
    group_bootstrap_ci,
    group_rng,
    metric_values,
    parse_metric,
    rank_matrix,
    target_ranks,
)


def values(name: str, rank_lists) -> list[float]:
    return metric_values(parse_metric(name), rank_matrix(rank_lists)).tolist()


def test_parse_metric_names():
    assert parse_metric("recall@3") == Metric("recall", 3)
    assert parse_metric("Recall_All@10").name == "recall_all@10"
    assert parse_metric("mrr") == Metric("mrr", None)
    with pytest.raises(ValueError, match="unknown metric"):
        parse_metric("recall@0")
    with pytest.raises(ValueError):
        parse_metric("P@5")


def test_target_ranks_are_one_based_sorted_and_inf_when_absent():
    assert target_ranks(["a", "b", "c"], frozenset({"c", "a"})) == [1.0, 3.0]
    assert target_ranks(["a", "b"], frozenset({"z"})) == [math.inf]


def test_recall_any_and_all_on_single_and_multi_target_queries():
    ranks = [[2.0], [1.0, 5.0], [4.0]]
    assert values("recall@1", ranks) == [0.0, 1.0, 0.0]
    assert values("recall@3", ranks) == [1.0, 1.0, 0.0]
    assert values("recall_all@3", ranks) == [1.0, 0.0, 0.0]
    assert values("recall_all@5", ranks) == [1.0, 1.0, 1.0]


def test_k_larger_than_the_store_counts_every_present_target():
    assert values("recall@50", [[14.0]]) == [1.0]
    assert values("recall_all@50", [[3.0, math.inf]]) == [0.0]


def test_mrr_uses_the_first_target():
    assert values("mrr", [[2.0], [1.0, 5.0], [4.0], [math.inf]]) == [0.5, 1.0, 0.25, 0.0]


def test_ndcg_matches_hand_computation():
    # one target at rank 2: (1/log2 3) / 1
    assert values("ndcg@10", [[2.0]]) == pytest.approx([1 / math.log2(3)])
    # two targets at ranks 1 and 3: (1 + 1/2) / (1 + 1/log2 3)
    assert values("ndcg@10", [[1.0, 3.0]]) == pytest.approx([1.5 / (1 + 1 / math.log2(3))])
    # cut at k=2: only rank 1 counts, ideal has two slots
    assert values("ndcg@2", [[1.0, 3.0]]) == pytest.approx([1 / (1 + 1 / math.log2(3))])
    # k=1 with two targets: ideal is capped at one slot
    assert values("ndcg@1", [[1.0, 3.0]]) == [1.0]


def test_bootstrap_is_deterministic_and_brackets_the_mean():
    data = np.array([[1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 1.0, 0.0]])
    low1, high1 = bootstrap_ci(data, group_rng(0, "g"), resamples=2000)
    low2, high2 = bootstrap_ci(data, group_rng(0, "g"), resamples=2000)
    assert (low1, high1) == (low2, high2)
    assert low1[0] < 0.625 < high1[0]
    assert 0.0 <= low1[0] and high1[0] <= 1.0


def test_bootstrap_of_constant_values_has_zero_width():
    low, high = bootstrap_ci(np.ones((2, 5)), group_rng(3, "x"), resamples=100)
    assert low.tolist() == [1.0, 1.0] and high.tolist() == [1.0, 1.0]


@pytest.mark.parametrize("n", [1, 7, 504])
def test_shared_resamples_give_the_bits_of_a_fresh_draw_and_stay_within_their_budget(monkeypatch, n):
    monkeypatch.setattr(metrics, "_resamples", metrics.OrderedDict())
    values = np.random.default_rng(n).random((3, n))
    fresh = bootstrap_ci(values, group_rng(5, f"g{n}"), 300, 0.9)
    first = group_bootstrap_ci(values, 5, f"g{n}", 300, 0.9)
    again = group_bootstrap_ci(values[::-1], 5, f"g{n}", 300, 0.9)  # a second system on the same group
    assert [a.tolist() for a in first] == [a.tolist() for a in fresh]
    assert [a.tolist() for a in again] == [a[::-1].tolist() for a in fresh]
    assert len(metrics._resamples) == 1
    one = metrics._resamples[(5, f"g{n}", n, 300, None)].nbytes
    monkeypatch.setattr(metrics, "RESAMPLE_CACHE_BYTES", 2 * one)
    for group in ("h1", "h2", "h3"):
        group_bootstrap_ci(values, 5, group, 300, 0.9)
    assert [key[1] for key in metrics._resamples] == ["h2", "h3"]  # least recently used out first


def test_group_rng_differs_by_group_and_seed():
    a = group_rng(0, "a").integers(0, 1 << 30, 4).tolist()
    assert a != group_rng(0, "b").integers(0, 1 << 30, 4).tolist()
    assert a != group_rng(1, "a").integers(0, 1 << 30, 4).tolist()


def test_ndcg_lme_uses_longmemevals_discount():
    # LongMemEval's DCG: rank 1 weight 1, rank r >= 2 weight 1/log2(r); so rank 2 counts fully
    assert values("ndcg_lme@10", [[2.0]]) == [1.0]
    assert values("ndcg_lme@10", [[3.0]]) == pytest.approx([1 / math.log2(3)])
    assert values("ndcg_lme@10", [[1.0, 3.0]]) == pytest.approx([(1 + 1 / math.log2(3)) / 2])
    assert values("ndcg_lme@2", [[3.0]]) == [0.0]
