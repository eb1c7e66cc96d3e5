"""The GENERATION_SPEC.md rules as data and small pure functions."""

from __future__ import annotations

import re
from functools import lru_cache
from importlib import resources

from memrecall.data.loaders.epirec_fields import (  # noqa: F401 - the spec's vocabulary, defined where the loader reads it
    INTENSITY_BANDS,
    LONG_MIN_DAYS,
    PROBE_TYPES,
    SHORT_MAX_DAYS,
    VALENCES,
    age_bucket,
    age_days,
    parse_timestamp,
)

REFERENCE_NOW = "2025-06-30T12:00:00+00:00"
PROBE_SUFFIX = {"factual": "f", "reflective_explicit": "x", "reflective_implicit": "i"}

EPISODES_PER_PERSONA = (14, 18)
SESSIONS_PER_PERSONA = (10, 14)
SESSION_SPAN_DAYS = (90, 150)
AGES = (16, 35)
TEXT_WORDS = (15, 60)
TEXT_SENTENCES = (1, 3)
BAND_SHARE = {"low": (0.35, 0.55), "high": (0.30, 0.50), "mild": (0.05, 0.25)}
HIGH_VALENCE_MAX_GAP = 0.10

_TOKEN = re.compile(r"[a-z0-9']+")
_SENTENCE_END = re.compile(r"[.!?]+(?=\s|$)")


@lru_cache(maxsize=8)
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


# ---- the v1.0 format's own implicit-probe rule (upstream scripts/validate.py), for checkouts in that format ----

FORMAT_STEM_LETTERS, FORMAT_MIN_LETTERS = 6, 4
_FORMAT_WORD = re.compile(r"[a-z']+")


def format_stems(text: str) -> set[str]:
    """The format's stems: the first 6 letters of each word of 4 letters or more, the format's stop list left out."""
    stop = _word_list("format_v1_stopwords.txt")
    words = _FORMAT_WORD.findall(text.lower())
    return {w[:FORMAT_STEM_LETTERS] for w in words if w not in stop and len(w) >= FORMAT_MIN_LETTERS}


def format_shared_stems(probe: str, episode_text: str) -> list[str]:
    """Format stems the probe shares with the episode text, sorted."""
    return sorted(format_stems(probe) & format_stems(episode_text))


def format_emotion_words(text: str) -> list[str]:
    """Words of `text` in the format's emotion vocabulary (exact match), in order."""
    vocab = _word_list("format_v1_emotion_vocabulary.txt")
    return [w for w in _FORMAT_WORD.findall(text.lower()) if w in vocab]


# ---- version 2 (GENERATION_SPEC.md sections 10-14) ----

V2_TEXT_WORDS = (20, 40)
V2_PROBE_MAX_WORDS = 16
V2_THREAD_MIN_EPISODES = 4
V2_FEELING_WORD_MAX_EXPLICIT = 2
V2_NGRAM = 3
V2_NGRAM_MAX_PROBES = 3
GENERIC_FEELING_STEMS = frozenset({"feel", "emot"})
ROUTES = ("aftermath", "body", "relation", "self", "time")
_CAPITALISED = re.compile(r"[A-Z][A-Za-z'’-]*")
_DIGIT_WORD = re.compile(r"\S*\d\S*")


@lru_cache(maxsize=1)
def mood_phrases() -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The generic mood phrases in file order, each with its tuple of stems."""
    text = resources.files("memrecall.corpus").joinpath("mood_phrases.txt").read_text(encoding="utf-8")
    lines = [line.strip().lower() for line in text.splitlines() if line.strip() and not line.startswith("#")]
    return tuple((line, tuple(stem(t) for t in tokens(line))) for line in lines)


def mood_phrases_in(text: str) -> list[str]:
    """Generic mood phrases found in `text` (stem match over consecutive tokens), as written in the list."""
    stems = [stem(t) for t in tokens(text)]
    found = []
    for written, phrase in mood_phrases():
        width = len(phrase)
        if any(tuple(stems[i : i + width]) == phrase for i in range(len(stems) - width + 1)):
            found.append(written)
    return found


def anchors_used(probe: str, anchors: list[str]) -> list[str]:
    """Anchors with a content-word stem that is also a content-word stem of the probe, in list order."""
    probe_stems = content_stems(probe)
    return [anchor for anchor in anchors if content_stems(anchor) & probe_stems]


def feeling_stems(text: str) -> set[str]:
    """Emotion-vocabulary stems that name a feeling in `text` (not "feeling"/"emotion" themselves)."""
    vocab = emotion_stems() - GENERIC_FEELING_STEMS
    return {s for t in tokens(text) for s in _adverb_base_stems(t) if s in vocab}


def content_ngrams(text: str, width: int = V2_NGRAM) -> set[tuple[str, ...]]:
    """Distinct runs of `width` tokens that are not made of stop words only."""
    toks = tokens(text)
    stop = stopwords()
    grams = {tuple(toks[i : i + width]) for i in range(len(toks) - width + 1)}
    return {g for g in grams if not all(t in stop for t in g)}


def uncovered_details(text: str, anchors: list[str]) -> list[str]:
    """Numbers and mid-sentence capitalised words of `text` that no anchor contains."""
    covered = " ".join(anchors).lower()
    out = []
    for match in _DIGIT_WORD.finditer(text):
        word = match.group().strip(".,;:!?()\"'")
        if word and word.lower() not in covered:
            out.append(word)
    for match in _CAPITALISED.finditer(text):
        before = text[: match.start()].rstrip()
        if not before or before[-1] in '.!?"“' or match.start() > 0 and text[match.start() - 1].isalnum():
            continue
        word = match.group().rstrip("'’-")
        base = word.split("'")[0].split("’")[0]
        if base == "I" or word.lower() in covered:
            continue
        out.append(word)
    return out
