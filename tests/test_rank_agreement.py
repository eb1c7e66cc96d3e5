"""scoring/rank_agreement.py: Kendall's tau-b and its store bootstrap, checked against scipy.stats.kendalltau."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import kendalltau

from memrecall.scoring.metrics import cluster_numbers, resample_counts
from memrecall.scoring.rank_agreement import SystemScores, kendall_tau_b, rank_agreement

RESAMPLES = 300


def generated(name: str, systems: list[str], stores: int, seed: int) -> SystemScores:
    """Hit/miss values of systems of different strengths on stores of 1 to 6 queries; two systems are identical."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 7, size=stores)
    labels = tuple(f"s{i}" for i, size in enumerate(sizes) for _ in range(size))
    strength = np.linspace(0.2, 0.8, len(systems))
    values = (rng.random((len(systems), len(labels))) < strength[:, None]).astype(np.float64)
    values[1] = values[0]  # a tie on every resample
    return SystemScores(name, tuple(systems), values, labels)


def by_hand(scores: SystemScores, counts: np.ndarray) -> np.ndarray:
    """resamples x systems means, from each store's multiplicity in the draw (read off its first query)."""
    clusters = np.array(cluster_numbers(scores.stores))
    means = []
    for row in counts:
        weight = np.zeros(clusters.max() + 1)
        for query, cluster in enumerate(clusters):
            if weight[cluster] == 0:
                weight[cluster] = row[query]
            assert row[query] == weight[cluster]  # a store is drawn whole: its queries count alike
        per_query = weight[clusters]
        means.append(scores.values @ per_query / per_query.sum())
    return np.array(means)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_tau_and_interval_match_scipy_on_generated_scores(seed: int) -> None:
    systems = [f"sys{i}" for i in range(9)]
    first = generated("bench-a", systems, stores=12, seed=seed)
    second = generated("bench-b", systems[::-1], stores=30, seed=seed + 100)  # other order, other stores
    found = rank_agreement(first, second, seed=seed, resamples=RESAMPLES)

    assert found.systems == tuple(sorted(systems))
    a, b = first.only(found.systems), second.only(found.systems)
    assert found.tau == pytest.approx(kendalltau(a.values.mean(axis=1), b.values.mean(axis=1)).statistic, abs=1e-12)

    draws = []
    for scores in (a, b):
        n = len(scores.stores)
        counts = resample_counts(
            seed, f"rank-agreement:{scores.benchmark}", n, RESAMPLES, cluster_numbers(scores.stores)
        )
        draws.append(by_hand(scores, counts))
    taus = np.array([kendalltau(x, y).statistic for x, y in zip(*draws, strict=True)])
    defined = taus[~np.isnan(taus)]
    assert found.undefined == int(np.isnan(taus).sum())
    assert (found.ci_low, found.ci_high) == pytest.approx(tuple(np.percentile(defined, [2.5, 97.5])), abs=1e-12)
    assert found.ci_low < found.ci_high


def test_tau_b_matches_scipy_with_ties_and_is_nan_when_one_side_is_constant() -> None:
    rng = np.random.default_rng(7)
    x = rng.integers(0, 4, size=(50, 8)).astype(float)  # many ties
    y = rng.integers(0, 4, size=(50, 8)).astype(float)
    x[3] = 2.0  # constant: tau-b undefined
    expected = np.array([kendalltau(a, b).statistic for a, b in zip(x, y, strict=True)])
    got = kendall_tau_b(x, y)
    assert np.isnan(got[3]) and np.isnan(expected[3])
    np.testing.assert_allclose(np.delete(got, 3), np.delete(expected, 3), atol=1e-12)
    assert kendall_tau_b(np.array([1.0, 2, 3]), np.array([3.0, 2, 1])) == -1.0


def test_the_interval_is_deterministic_and_moves_with_the_seed() -> None:
    systems = [f"sys{i}" for i in range(12)]
    first = generated("bench-a", systems, stores=10, seed=11)
    second = generated("bench-b", systems, stores=10, seed=12)
    once = rank_agreement(first, second, seed=0, resamples=RESAMPLES)
    again = rank_agreement(first, second, seed=0, resamples=RESAMPLES)
    other = rank_agreement(first, second, seed=5, resamples=RESAMPLES)
    assert once == again
    assert (other.tau, other.systems) == (once.tau, once.systems)
    assert (other.ci_low, other.ci_high) != (once.ci_low, once.ci_high)
    assert not np.array_equal(first.resampled_sums(seed=0, resamples=50), first.resampled_sums(seed=5, resamples=50))


def test_only_shared_systems_count_and_too_few_is_refused() -> None:
    first = generated("bench-a", ["a", "b", "c", "d"], stores=5, seed=1)
    second = generated("bench-b", ["c", "d", "e", "f"], stores=5, seed=2)
    with pytest.raises(ValueError, match="share 2 systems; tau needs 3"):
        rank_agreement(first, second, resamples=RESAMPLES)
    third = generated("bench-c", ["b", "c", "d", "x"], stores=5, seed=3)
    assert rank_agreement(first, third, resamples=RESAMPLES).systems == ("b", "c", "d")


def test_a_matrix_that_does_not_match_its_names_is_refused() -> None:
    with pytest.raises(ValueError, match="values are \\(2, 3\\), not 2 systems x 4 queries"):
        SystemScores("bench", ("a", "b"), np.zeros((2, 3)), ("s0", "s0", "s1", "s1"))
    with pytest.raises(ValueError, match="a system is named twice"):
        SystemScores("bench", ("a", "a"), np.zeros((2, 1)), ("s0",))
