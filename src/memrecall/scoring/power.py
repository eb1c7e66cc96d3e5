"""Power of a paired comparison: the smallest difference n queries can detect, and the queries a difference needs.

Binary hit metrics (recall@k: any target in the top k; recall_all@k) use the paired-proportions (McNemar)
sample size of Connor (1987, Biometrics 43:207-211), with psi the share of discordant queries (one system
hits, the other misses) and delta the difference in hit rates, at two-sided level alpha and power 1 - beta:

    n = (z_{1-alpha/2} sqrt(psi) + z_{1-beta} sqrt(psi - delta^2))^2 / delta^2

Solved for delta at a given n (a quadratic in delta, positive root):

    delta = sqrt(psi) (sqrt(n) z_a + z_b sqrt(n - z_a^2 + z_b^2)) / (n + z_b^2)

Graded metrics (mrr, ndcg, map, ...) use the normal approximation for a paired mean: n = ((z_a + z_b) sd / delta)^2,
where sd is the standard deviation of per-query differences, taken from a seeded paired bootstrap of the mean
difference (sd = its standard error times sqrt(n)), so the same inputs give the same numbers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from memrecall.errors import ConfigError, UsageError
from memrecall.scoring.metrics import DEFAULT_RESAMPLES, GRID, exact_mean, on_grid, parse_metric, resample_counts

BINARY_KINDS = frozenset({"recall", "recall_all"})
ASSUMED_DISCORDANCE = 0.25
MCNEMAR = "mcnemar"
MCNEMAR_ASSUMED = "mcnemar, assumed discordance"
RESAMPLED = "paired bootstrap sd, normal approximation"


def check_levels(alpha: float, power: float) -> None:
    """alpha in (0, 0.5] and power in [0.5, 1): the ranges the formulas hold in; ConfigError naming the value."""
    if not 0.0 < alpha <= 0.5:
        raise ConfigError(f"--alpha must be above 0 and at most 0.5, got {alpha}")
    if not 0.5 <= power < 1.0:
        raise UsageError(f"--power must be from 0.5 to below 1, got {power}")


def quantiles(alpha: float, power: float) -> tuple[float, float]:
    """(z_{1-alpha/2}, z_{power}) of the standard normal."""
    check_levels(alpha, power)
    normal = NormalDist()
    return normal.inv_cdf(1.0 - alpha / 2.0), normal.inv_cdf(power)


def is_binary(metric: str) -> bool:
    """True for hit metrics whose per-query value is 0 or 1 (recall@k, recall_all@k)."""
    return parse_metric(metric).kind in BINARY_KINDS


def mcnemar_queries(discordance: float, difference: float, alpha: float = 0.05, power: float = 0.8) -> float:
    """Connor's paired-proportions n (unrounded) to detect `difference` at this discordance; inf when impossible."""
    za, zb = quantiles(alpha, power)
    delta = abs(difference)
    if delta == 0.0 or delta > discordance:
        return math.inf
    return (za * math.sqrt(discordance) + zb * math.sqrt(discordance - delta * delta)) ** 2 / (delta * delta)


def mcnemar_detectable(discordance: float, n: int, alpha: float = 0.05, power: float = 0.8) -> float | None:
    """The difference Connor's formula detects with n queries at this discordance; None when above it (unreachable)."""
    za, zb = quantiles(alpha, power)
    if n < 1 or discordance <= 0.0 or n - za * za + zb * zb < 0.0:
        return None
    delta = math.sqrt(discordance) * (math.sqrt(n) * za + zb * math.sqrt(n - za * za + zb * zb)) / (n + zb * zb)
    return delta if delta <= discordance else None


def normal_queries(sd: float, difference: float, alpha: float = 0.05, power: float = 0.8) -> float:
    """Queries (unrounded) a paired mean difference needs: ((z_a + z_b) sd / difference)^2; inf for 0."""
    za, zb = quantiles(alpha, power)
    return math.inf if difference == 0.0 else ((za + zb) * sd / abs(difference)) ** 2


def normal_detectable(sd: float, n: int, alpha: float = 0.05, power: float = 0.8) -> float | None:
    """The paired mean difference n queries detect: (z_a + z_b) sd / sqrt(n); None for no queries or sd 0."""
    za, zb = quantiles(alpha, power)
    return (za + zb) * sd / math.sqrt(n) if n > 0 and sd > 0.0 else None


def resampled_sd(differences: np.ndarray, seed: int, label: str, resamples: int) -> float:
    """The sd of per-query differences as sqrt(n) times the seeded paired bootstrap standard error of their mean."""
    n = differences.shape[0]
    if n < 2:
        return 0.0
    counts = resample_counts(seed, label, n, resamples).astype(np.int64)
    means = (counts @ on_grid(differences)) / (n * GRID)
    return float(np.std(means, ddof=1) * math.sqrt(n))


@dataclass(frozen=True)
class Power:
    """One metric in one group: how it was measured, the spread, and what is detectable (None: nothing reachable)."""

    method: str
    n: int
    difference: float | None
    spread: float
    detectable: float | None
    target: float | None = None
    queries_needed: int | None = None

    def as_dict(self) -> dict:
        """JSON form: discordance for McNemar, sd for the resampling method; queries_needed when a target was given."""
        key = "sd_of_differences" if self.method == RESAMPLED else "discordance"
        out = {"method": self.method, key: self.spread, "detectable_difference": self.detectable}
        if self.difference is not None:
            out["difference"] = self.difference
        if self.target is not None:
            out["queries_needed"] = self.queries_needed
        return out


def needed(value: float) -> int | None:
    """An unrounded sample size rounded up to whole queries; None when no n reaches it."""
    return None if math.isinf(value) else math.ceil(value - 1e-9)


def paired_power(
    metric: str,
    a: np.ndarray,
    b: np.ndarray | None,
    alpha: float = 0.05,
    power: float = 0.8,
    target: float | None = None,
    discordance: float | None = None,
    seed: int = 0,
    label: str = "power",
    resamples: int = DEFAULT_RESAMPLES,
) -> Power:
    """Power of `a` against `b` (per-query values, paired) on one metric; `b` None means one system alone.

    A binary metric uses McNemar at the observed discordance (or `discordance`, assumed; ASSUMED_DISCORDANCE for
    one system alone); a graded one needs `b` and uses the resampled sd. `target` asks for the queries it needs.
    """
    n = int(a.shape[0])
    observed = None if b is None else float(exact_mean(a - b)) if n else 0.0
    if is_binary(metric):
        if discordance is None and b is None:
            discordance = ASSUMED_DISCORDANCE
        method = MCNEMAR if discordance is None else MCNEMAR_ASSUMED
        psi = float(np.count_nonzero(a != b)) / n if discordance is None and n else float(discordance or 0.0)
        detectable = mcnemar_detectable(psi, n, alpha, power)
        queries = needed(mcnemar_queries(psi, target, alpha, power)) if target is not None else None
        return Power(method, n, observed, psi, detectable, target, queries)
    if b is None:
        raise UsageError(f"{metric} is a graded metric: its power needs a second system to pair with")
    sd = resampled_sd(a - b, seed, label, resamples)
    detectable = normal_detectable(sd, n, alpha, power)
    queries = needed(normal_queries(sd, target, alpha, power)) if target is not None and sd > 0 else None
    return Power(RESAMPLED, n, observed, sd, detectable, target, queries)
