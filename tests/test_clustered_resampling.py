"""Store-level resampling: whole stores are drawn by the bootstrap and flipped by the paired test (issue #34.3)."""

import numpy as np
import pytest

from memrecall.benchmarks import get_benchmark
from memrecall.errors import ConfigError
from memrecall.scoring import metrics
from memrecall.scoring.metrics import cluster_numbers, group_bootstrap_ci, group_rng
from memrecall.scoring.paired import randomisation_p
from memrecall.scoring.policy import ScoringConfig


def test_cluster_numbers_follow_first_appearance():
    assert cluster_numbers(["p02", "p01", "p02", "p03", "p01"]) == (0, 1, 0, 2, 1)
    assert cluster_numbers([]) == ()


@pytest.mark.parametrize("n", [1, 2, 7, 40])
def test_clusters_of_one_query_give_the_query_level_bits(n):
    values = np.random.default_rng(n).random((2, n))
    singletons = tuple(range(n))
    assert [a.tolist() for a in group_bootstrap_ci(values, 3, f"one:{n}", 500, 0.9, singletons)] == [
        a.tolist() for a in group_bootstrap_ci(values, 3, f"one:{n}", 500, 0.9)
    ]
    diff = values[0] - values[1]
    assert randomisation_p(diff, group_rng(3, "p"), 999, singletons) == randomisation_p(diff, group_rng(3, "p"), 999)


@pytest.mark.parametrize("size, stores", [(2, 5), (14, 12), (3, 30)])
def test_equal_stores_of_equal_values_resample_as_their_store_means(size, stores):
    per_store = np.random.default_rng(size).random((1, stores))
    values = np.repeat(per_store, size, axis=1)
    clusters = tuple(np.repeat(np.arange(stores), size).tolist())
    clustered = group_bootstrap_ci(values, 0, f"eq:{size}:{stores}", 1000, 0.95, clusters)
    of_means = group_bootstrap_ci(per_store, 0, f"eq:{size}:{stores}", 1000, 0.95)
    assert [float(a[0]) for a in clustered] == pytest.approx([float(a[0]) for a in of_means], abs=1e-12)
    by_query = group_bootstrap_ci(values, 0, f"eq:{size}:{stores}", 1000, 0.95)
    assert clustered[1][0] - clustered[0][0] > by_query[1][0] - by_query[0][0]


def test_unequal_stores_divide_each_resample_by_the_queries_it_drew():
    values = np.array([[1.0, 1.0, 1.0, 0.0]])  # store 0 holds three hits, store 1 one miss
    counts = metrics.resample_counts(0, "uneq", 4, 400, (0, 0, 0, 1))
    means = counts.astype(np.int64) @ values[0] / counts.sum(axis=1)
    assert set(np.round(means, 12).tolist()) <= {1.0, 0.75, 0.0}
    low, high = group_bootstrap_ci(values, 0, "uneq", 400, 0.95, (0, 0, 0, 1))
    assert (low[0], high[0]) == (0.0, 1.0)


def test_the_paired_test_flips_whole_stores():
    diff = np.array([0.5, 0.5, 0.5, -1.0, -1.0, 0.25])
    clusters = (0, 0, 0, 1, 1, 2)
    sums = np.array([1.5, -2.0, 0.25])
    assert randomisation_p(diff, group_rng(1, "s"), 500, clusters) == randomisation_p(sums, group_rng(1, "s"), 500)
    assert randomisation_p(np.ones(12), group_rng(1, "s"), 2000, (0,) * 12) == 1.0  # one store: no evidence


def test_benchmarks_declare_their_unit_and_reports_record_it():
    assert {
        name: get_benchmark(name).scoring().resample_unit for name in ("epirec", "locomo", "locomo-turn")
    } == dict.fromkeys(("epirec", "locomo", "locomo-turn"), "store")
    assert get_benchmark("longmemeval").scoring().resample_unit == "query"
    assert get_benchmark("beir").scoring().resample_unit == "query"
    assert get_benchmark("epirec").scoring(resample_unit="query").resample_unit == "query"
    assert get_benchmark("epirec").scoring().describe()["bootstrap"]["unit"] == "store"
    with pytest.raises(ConfigError, match="the resample unit must be one of query, store, got 'episode'"):
        ScoringConfig(resample_unit="episode")


@pytest.mark.parametrize(
    "unit, words",
    [
        ("store", "whole stores (each store's queries drawn together; the paired test flips stores)"),
        ("query", "queries"),
    ],
)
def test_cards_say_what_one_draw_took(unit, words):
    from memrecall.reports.cards.card import _resampled

    assert _resampled(unit) == words
    assert _resampled("a|b") == r"a\|b-level values"  # an unknown recorded unit is escaped, never trusted


def test_the_smallest_reachable_p_is_what_flipping_few_stores_gives():
    from memrecall.scoring.paired import smallest_holm_p

    ten = np.repeat(np.arange(1.0, 11.0), 3)  # ten stores, every difference positive: the most extreme pattern
    clusters = tuple(np.repeat(np.arange(10), 3).tolist())
    mean_p = np.mean([randomisation_p(ten, group_rng(s, "floor"), 2000, clusters) for s in range(300)])
    assert mean_p == pytest.approx(smallest_holm_p(10, 1), rel=0.05)
    assert smallest_holm_p(10, 40) == pytest.approx(40 * (1 + 2000 / 512) / 2001)
    assert smallest_holm_p(12, 44) < 0.05 <= smallest_holm_p(10, 40)  # EpiRec's 12 personas; LoCoMo's 10 talks
    assert smallest_holm_p(3, 40) == 1.0
