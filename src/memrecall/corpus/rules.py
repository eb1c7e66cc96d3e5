"""The GENERATION_SPEC.md rules as data and small pure functions."""

from __future__ import annotations

import re
from datetime import datetime
from functools import lru_cache
from importlib import resources

REFERENCE_NOW = "2025-06-30T12:00:00+00:00"
PROBE_TYPES = ("factual", "reflective_explicit", "reflective_implicit")
PROBE_SUFFIX = {"factual": "f", "reflective_explicit": "x", "reflective_implicit": "i"}
INTENSITY_BANDS = ("high", "mild", "low")
VALENCES = ("positive", "negative", "neutral")

EPISODES_PER_PERSONA = (14, 18)
SESSIONS_PER_PERSONA = (10, 14)
SESSION_SPAN_DAYS = (90, 150)
TEXT_WORDS = (15, 60)
TEXT_SENTENCES = (1, 3)
BAND_SHARE = {"low": (0.35, 0.55), "high": (0.30, 0.50), "mild": (0.05, 0.25)}
HIGH_VALENCE_MAX_GAP = 0.10
SHORT_MAX_DAYS = 6.0
LONG_MIN_DAYS = 30.0

_TOKEN = re.compile(r"[a-z0-9']+")
_SENTENCE_END = re.compile(r"[.!?]+(?=\s|$)")


def _word_list(name: str) -> frozenset[str]:
    """Read a packaged one-word-per-line list, skipping comments and blanks."""
    text = resources.files("memrecall.corpus").joinpath(name).read_text(encoding="utf-8")
    return frozenset(line.strip().lower() for line in text.splitlines() if line.strip() and not line.startswith("#"))


@lru_cache(maxsize=1)
def stopwords() -> frozenset[str]:
    """The stop-word list: tokens that are not content words."""
    return _word_list("stopwords.txt")


@lru_cache(maxsize=1)
def _stemmer():
    import Stemmer

    return Stemmer.Stemmer("english")


def stem(token: str) -> str:
    """Snowball English stem of one lowercase token."""
    return _stemmer().stemWord(token)


@lru_cache(maxsize=1)
def emotion_stems() -> frozenset[str]:
    """Stems of the packaged emotion vocabulary."""
    return frozenset(stem(word) for word in _word_list("emotion_vocabulary.txt"))


def tokens(text: str) -> list[str]:
    """Lowercase `[a-z0-9']` runs, outer apostrophes stripped, possessive 's dropped."""
    out = []
    for raw in _TOKEN.findall(text.lower()):
        token = raw.strip("'")
        if token.endswith("'s") and token not in stopwords():
            token = token[:-2]
        if token:
            out.append(token)
    return out


def content_tokens(text: str) -> list[str]:
    """Tokens of `text` that are not stop words."""
    stop = stopwords()
    return [t for t in tokens(text) if t not in stop]


def content_stems(text: str) -> set[str]:
    """Distinct stems of the content words of `text`."""
    return {stem(t) for t in content_tokens(text)}


def word_count(text: str) -> int:
    """Number of whitespace-separated words."""
    return len(text.split())


def sentence_count(text: str) -> int:
    """Runs of . ! ? followed by whitespace or the end; at least 1 for non-empty text."""
    stripped = text.strip()
    if not stripped:
        return 0
    count = len(_SENTENCE_END.findall(stripped))
    return count if _SENTENCE_END.search(stripped[-1:] + " ") else count + 1


def shared_stems(probe: str, episode_text: str) -> list[str]:
    """Content-word stems the probe shares with the episode text, sorted."""
    return sorted(content_stems(probe) & content_stems(episode_text))


def emotion_words(text: str) -> list[str]:
    """Tokens of `text` whose stem is in the emotion vocabulary, in order."""
    vocab = emotion_stems()
    return [t for t in tokens(text) if _adverb_base_stems(t) & vocab]


def _adverb_base_stems(token: str) -> set[str]:
    """Stems of a token and, for -ly adverbs, of their adjective (happily -> happy)."""
    out = {token, stem(token)}
    if token.endswith("ily"):
        out.add(stem(token[:-3] + "y"))
    elif token.endswith("ly"):
        out.add(stem(token[:-2]))
    return out


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
