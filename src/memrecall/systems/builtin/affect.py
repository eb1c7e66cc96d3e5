"""A frozen, offline affect scorer: VADER's shipped lexicon, never a word list written for EpiRec."""

from __future__ import annotations

from functools import lru_cache


@lru_cache(maxsize=1)
def _analyzer():
    from vaderSentiment.vaderSentiment import SentimentIntensityAnalyzer

    return SentimentIntensityAnalyzer()


def vader_compound(text: str) -> float:
    """VADER's compound polarity of a text, in [-1, 1]."""
    return float(_analyzer().polarity_scores(text)["compound"])


def vader_intensity(text: str) -> float:
    """Affective intensity estimated from text alone: |compound|, in [0, 1]."""
    return abs(vader_compound(text))


def vader_version() -> str:
    """The installed vaderSentiment version, recorded in reports."""
    from importlib.metadata import version

    return version("vaderSentiment")
