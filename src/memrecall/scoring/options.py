"""What a caller may ask of scoring: bootstrap seed, resamples and unit within bounds, and metric names."""

from __future__ import annotations

from collections.abc import Sequence

from memrecall.errors import ConfigError, UsageError, comma_list
from memrecall.scoring.metrics import KNOWN_METRICS, MAX_K, parse_metric

MAX_SEED = 2**63 - 1
RESAMPLE_UNITS = ("query", "store")
MIN_RESAMPLES, MAX_RESAMPLES = 100, 100_000


def check_bootstrap(seed: object, resamples: object, unit: object = "query") -> None:
    """The same bounds the CLI's --seed and --resamples enforce, for every caller (the Python API too)."""
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        raise ConfigError(f"seed must be an integer from 0 to 2**63-1, got {seed!r}")
    wrong = isinstance(resamples, bool) or not isinstance(resamples, int)
    if wrong or not MIN_RESAMPLES <= resamples <= MAX_RESAMPLES:
        raise ConfigError(f"resamples must be an integer from {MIN_RESAMPLES} to {MAX_RESAMPLES}, got {resamples!r}")
    if unit not in RESAMPLE_UNITS:
        raise ConfigError(f"the resample unit must be one of {', '.join(RESAMPLE_UNITS)}, got {unit!r}")


def parse_metric_list(text: str | Sequence[str] | None) -> tuple[str, ...]:
    """`recall@5,map` (or a list of names) as canonical names; an unknown one is a ConfigError listing the known."""
    if text is None:
        return ()
    names = comma_list(text, "--metrics", unique=False) if isinstance(text, str) else list(text)
    if not names:
        raise ConfigError(f"--metrics is empty; known: {KNOWN_METRICS}")
    out = []
    for name in names:
        try:
            out.append(parse_metric(name.strip()).name)
        except (ValueError, AttributeError):
            raise UsageError(
                f"--metrics: unknown metric {name!r}; known: {KNOWN_METRICS} (k from 1 to {MAX_K})"
            ) from None
    return tuple(dict.fromkeys(out))
