"""EpiRec's field vocabulary and age arithmetic, shared by the loader and the corpus rules."""

from __future__ import annotations

from datetime import datetime

PROBE_TYPES = ("factual", "reflective_explicit", "reflective_implicit")
INTENSITY_BANDS = ("high", "mild", "low")
VALENCES = ("positive", "negative", "neutral")

SHORT_MAX_DAYS = 6.0
LONG_MIN_DAYS = 30.0


def parse_timestamp(value: str) -> datetime | None:
    """Parse an ISO-8601 timestamp that carries an explicit offset; None otherwise."""
    try:
        parsed = datetime.fromisoformat(value)
    except (TypeError, ValueError):
        return None
    return parsed if parsed.tzinfo is not None else None


def age_days(moment: datetime, reference: datetime) -> float:
    """Days from `moment` to `reference`."""
    return (reference - moment).total_seconds() / 86400.0


def age_bucket(days: float) -> str:
    """short (at most 6 days), long (over 30 days) or medium."""
    if days <= SHORT_MAX_DAYS:
        return "short"
    if days > LONG_MIN_DAYS:
        return "long"
    return "medium"
