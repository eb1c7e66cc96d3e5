"""Power of paired comparisons: Connor's formula, its inverse, the resampled sd, a simulated known effect."""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np
import pytest

from memrecall.errors import ConfigError
from memrecall.reports.power import (
    MCNEMAR,
    MCNEMAR_ASSUMED,
    RESAMPLED,
    mcnemar_detectable,
    mcnemar_queries,
    normal_detectable,
    normal_queries,
    paired_power,
    resampled_sd,
)


@pytest.mark.parametrize(
    ("discordance", "queries"),
    [(0.095, 296), (0.256, 802), (0.250, 783), (0.274, 858)],  # issue #34's table: about 300, 800, 780, 860
)
def test_connor_reproduces_the_issue_table_at_a_difference_of_05(discordance, queries):
    assert math.ceil(mcnemar_queries(discordance, 0.05)) == queries


def test_connor_by_hand_at_psi_25_and_delta_05():
    za, zb = NormalDist().inv_cdf(0.975), NormalDist().inv_cdf(0.8)
    expected = (za * 0.5 + zb * math.sqrt(0.25 - 0.0025)) ** 2 / 0.0025
    assert mcnemar_queries(0.25, 0.05) == pytest.approx(expected, rel=1e-12)
    assert mcnemar_queries(0.25, -0.05) == mcnemar_queries(0.25, 0.05)


@pytest.mark.parametrize("n", [30, 168, 504, 5000])
@pytest.mark.parametrize("discordance", [0.1, 0.25, 0.6])
def test_the_detectable_difference_round_trips_through_the_queries_needed(n, discordance):
    delta = mcnemar_detectable(discordance, n)
    if delta is None:
        assert mcnemar_queries(discordance, discordance) > n
        return
    assert mcnemar_queries(discordance, delta) == pytest.approx(n, rel=1e-9)


def test_a_difference_above_the_discordance_is_unreachable():
    assert mcnemar_queries(0.04, 0.05) == math.inf
    assert mcnemar_detectable(0.006, 168) is None  # one discordant query in 168 can show at most 0.006
    assert mcnemar_detectable(0.0, 168) is None


def test_the_normal_formulas_invert_each_other():
    delta = normal_detectable(0.3, 400)
    assert delta == pytest.approx((1.959963984540054 + 0.8416212335729143) * 0.3 / 20, rel=1e-12)
    assert normal_queries(0.3, delta) == pytest.approx(400, rel=1e-12)
    assert normal_detectable(0.0, 400) is None


def test_the_resampled_sd_is_close_to_the_sample_sd_and_seeded():
    differences = np.random.default_rng(7).normal(0.0, 0.4, size=500)
    sd = resampled_sd(differences, 0, "x", 4000)
    assert sd == pytest.approx(float(np.std(differences)), rel=0.05)
    assert resampled_sd(differences, 0, "x", 4000) == sd
    assert resampled_sd(differences, 1, "x", 4000) != sd


def test_paired_power_picks_the_method_by_metric():
    a = np.array([1.0, 1.0, 0.0, 0.0, 1.0, 0.0, 1.0, 1.0])
    b = np.array([1.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0])
    hit = paired_power("recall@3", a, b, target=0.1)
    assert (hit.method, hit.spread, hit.difference) == (MCNEMAR, 3 / 8, 1 / 8)
    assert hit.detectable is None  # eight queries cannot detect anything at psi 3/8
    assert hit.queries_needed == math.ceil(mcnemar_queries(3 / 8, 0.1))
    alone = paired_power("recall_all@5", a, None)
    assert (alone.method, alone.spread, alone.difference) == (MCNEMAR_ASSUMED, 0.25, None)
    graded = paired_power("mrr", a / 2, b / 3)
    assert graded.method == RESAMPLED and graded.detectable == pytest.approx(
        normal_detectable(graded.spread, 8), rel=1e-12
    )
    with pytest.raises(ConfigError, match="mrr is a graded metric"):
        paired_power("mrr", a, None)
    with pytest.raises(ConfigError, match="--power must be"):
        paired_power("recall@3", a, b, power=0.3)


def _mcnemar_rejections(rng, n: int, discordance: float, difference: float, trials: int, alpha: float) -> float:
    """Share of trials in which the (uncorrected) McNemar test rejects, two-sided, on paired binary outcomes."""
    a_only = (discordance + difference) / 2.0
    b_only = (discordance - difference) / 2.0
    counts = rng.multinomial(n, [a_only, b_only, 1.0 - discordance], size=trials)
    b, c = counts[:, 0].astype(float), counts[:, 1].astype(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(b + c > 0, np.abs(b - c) / np.sqrt(b + c), 0.0)
    return float(np.mean(z > NormalDist().inv_cdf(1.0 - alpha / 2.0)))


@pytest.mark.parametrize(("discordance", "difference"), [(0.25, 0.05), (0.1, 0.04), (0.3, 0.1)])
def test_a_simulated_known_effect_is_detected_at_the_stated_power(discordance, difference):
    n = math.ceil(mcnemar_queries(discordance, difference))
    rate = _mcnemar_rejections(np.random.default_rng(34), n, discordance, difference, 2000, 0.05)
    assert rate == pytest.approx(0.8, abs=0.03)
    delta = mcnemar_detectable(discordance, n)
    assert difference - 1e-3 < delta <= difference  # n was rounded up to whole queries
    null = _mcnemar_rejections(np.random.default_rng(35), n, discordance, 0.0, 2000, 0.05)
    assert null == pytest.approx(0.05, abs=0.015)


def test_a_simulated_graded_effect_is_detected_at_the_stated_power():
    rng = np.random.default_rng(36)
    sd, difference = 0.3, 0.05
    base = rng.normal(difference, sd, size=2000)
    n = math.ceil(normal_queries(resampled_sd(base, 0, "g", 2000), difference))
    draws = rng.normal(difference, sd, size=(2000, n))
    t = draws.mean(axis=1) / (draws.std(axis=1, ddof=1) / math.sqrt(n))
    assert float(np.mean(np.abs(t) > 1.959963984540054)) == pytest.approx(0.8, abs=0.03)
