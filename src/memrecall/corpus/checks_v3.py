"""EpiRec v3 rules for the 36 new personas (docs/epirec_v3_plan.md sections 3-5), checked on top of v2's."""

from __future__ import annotations

import json
import re
from collections import Counter
from datetime import datetime
from itertools import combinations
from pathlib import Path
from typing import Any

from memrecall.corpus import rules
from memrecall.corpus.audit import jaccard
from memrecall.corpus.checks import Violation
from memrecall.corpus.checks_v2 import check_persona_v2

# The per-persona targets of docs/epirec_v3_rules.json ("per_persona", "episode_near_neighbour_audit");
# a test holds the two together.
FIRST_NEW_PERSONA = 13
AGES = (16, 70)
EPISODES = 14
SESSIONS = (12, 14)
SESSION_SPAN_DAYS = (120, 145)
EPISODE_AGE_DAYS = (0.5, 150)
THREADS = 3
EPISODES_PER_THREAD = (4, 5)
SIBLINGS_PER_EPISODE = (1, 3)
LABELS = {"low/neutral": 6, "high/positive": 3, "high/negative": 3, "mild/positive": 1, "mild/negative": 1}
AGE_BUCKETS = {"short": (2, 3), "medium": (1, 1), "long": (10, 11)}
PAIR_JACCARD = 0.10
MIN_PAIRS = 3
MAX_PAIR_JACCARD_BELOW = 0.35
WORD = re.compile(r"[^\W_]+")  # Unicode letters and digits: 'Inés' whole, where rules.tokens gives 'in', 's'


ROSTER_FILE = "personas_v3_roster.json"  # in data/, beside the releases


def roster_lines(path: Path) -> dict[str, dict]:
    """The v3 roster's lines by persona id; empty when the file is absent (then every new persona is flagged)."""
    if not path.is_file():
        return {}
    return {line["id"]: line for line in json.loads(path.read_text(encoding="utf-8"))["personas"]}


def check_persona_in_v3(
    persona: dict[str, Any], file_stem: str, reference: datetime, roster: dict[str, dict]
) -> list[Violation]:
    """A v3 source: v2's rules for p01..p12 (carried over from v2), v3's for the new part."""
    if is_new_persona(persona["persona_id"]):
        return check_persona_v3(persona, file_stem, reference, roster)
    return check_persona_v2(persona, file_stem, reference)


def is_new_persona(persona_id: str) -> bool:
    """Whether a persona id is one of v3's new part (p13 and on), which these rules cover."""
    return int(persona_id[1:]) >= FIRST_NEW_PERSONA


def check_persona_v3(
    persona: dict[str, Any], file_stem: str, reference: datetime, roster: dict[str, dict] | None = None
) -> list[Violation]:
    """v2's rules, then v3's exact shape, label mix, timeline, routes, look-alikes, accented words, roster line."""
    pid, episodes = persona["persona_id"], persona["episodes"]
    out = check_persona_v2(persona, file_stem, reference, ages=AGES)
    out.extend(_check_ranges(persona))
    out.extend(_check_timeline(pid, episodes, reference))
    labels = Counter(f"{e['intensity_band']}/{e['valence']}" for e in episodes)
    if labels != Counter(LABELS):
        out.append(Violation(pid, f"label mix is {_counts(labels)}, expected {_counts(LABELS)}"))
    routes = {q.get("route") for e in episodes for q in e["probes"] if q["type"] == "reflective_implicit"}
    missing = [r for r in rules.ROUTES if r not in routes]
    if missing:
        out.append(Violation(pid, f"no implicit probe takes the route(s) {', '.join(missing)}; each is used"))
    out.extend(_check_look_alikes(persona))
    out.extend(_check_accented(episodes))
    if roster is not None:
        out.extend(_check_roster(persona, roster.get(pid)))
    return out


def _counts(counter: Counter | dict) -> str:
    """`high/negative 3, low/neutral 6, ...` in key order."""
    return ", ".join(f"{k} {v}" for k, v in sorted(counter.items()))


def _check_ranges(persona: dict[str, Any]) -> list[Violation]:
    """Episode, thread and sibling counts within v3's bounds."""
    pid, episodes = persona["persona_id"], persona["episodes"]
    out: list[Violation] = []
    if len(episodes) != EPISODES:
        out.append(Violation(pid, f"has {len(episodes)} episodes, expected exactly {EPISODES}"))
    if len(persona["threads"]) != THREADS:
        out.append(Violation(pid, f"has {len(persona['threads'])} threads, expected {THREADS}"))
    per_thread = Counter(e.get("thread") for e in episodes)
    lo, hi = EPISODES_PER_THREAD
    for number in range(1, len(persona["threads"]) + 1):
        if not lo <= per_thread[number] <= hi:
            out.append(Violation(pid, f"thread {number} holds {per_thread[number]} episodes, expected {lo} to {hi}"))
    lo, hi = SIBLINGS_PER_EPISODE
    for episode in episodes:
        count = len(episode.get("siblings") or [])
        if not lo <= count <= hi:
            out.append(Violation(episode["id"], f"declares {count} siblings, expected {lo} to {hi}"))
    return out


def _check_timeline(pid: str, episodes: list[dict], reference: datetime) -> list[Violation]:
    """Sessions and their span, every episode's age, and the short/medium/long mix."""
    moments = [rules.parse_timestamp(e["date_time"]) for e in episodes]
    if None in moments:
        return []  # v1's checks already name the unreadable date_time
    out: list[Violation] = []
    sessions = sorted({e["session"] for e in episodes})
    if not SESSIONS[0] <= len(sessions) <= SESSIONS[1]:
        out.append(Violation(pid, f"has {len(sessions)} sessions, expected {SESSIONS[0]} to {SESSIONS[1]}"))
    firsts = {s: min(m for e, m in zip(episodes, moments, strict=True) if e["session"] == s) for s in sessions}
    span = (firsts[sessions[-1]] - firsts[sessions[0]]).total_seconds() / 86400
    if not SESSION_SPAN_DAYS[0] <= span <= SESSION_SPAN_DAYS[1]:
        out.append(Violation(pid, f"session span is {span:.1f} days, expected {SESSION_SPAN_DAYS[0]} to 145"))
    buckets: dict[str, list[dict]] = {name: [] for name in AGE_BUCKETS}
    for episode, moment in zip(episodes, moments, strict=True):
        days = rules.age_days(moment, reference)
        if not EPISODE_AGE_DAYS[0] <= days <= EPISODE_AGE_DAYS[1]:
            out.append(Violation(episode["id"], f"is {days:.1f} days before reference_now, expected 0.5 to 150"))
        buckets[rules.age_bucket(days)].append(episode)
    for name, (lo, hi) in AGE_BUCKETS.items():
        if not lo <= len(buckets[name]) <= hi:
            out.append(Violation(pid, f"{len(buckets[name])} {name} episodes, expected {lo} to {hi}"))
    short_bands = {e["intensity_band"] == "high" for e in buckets["short"]}
    if short_bands != {True, False}:
        out.append(Violation(pid, "the short range needs at least one high episode and one that is not high"))
    return out


def _check_look_alikes(persona: dict[str, Any]) -> list[Violation]:
    """Episodes only: enough pairs sharing content stems (Jaccard >= .10), and no pair near-identical (>= .35)."""
    stems = {e["id"]: rules.content_stems(e["text"]) for e in persona["episodes"]}
    scores = {(a, b): jaccard(stems[a], stems[b]) for a, b in combinations(sorted(stems), 2)}
    out = [
        Violation(f"{a}, {b}", f"episode texts are too alike: content-stem Jaccard {s:.3f} >= {MAX_PAIR_JACCARD_BELOW}")
        for (a, b), s in sorted(scores.items())
        if s >= MAX_PAIR_JACCARD_BELOW
    ]
    alike = sum(s >= PAIR_JACCARD for s in scores.values())
    if alike < MIN_PAIRS:
        out.append(
            Violation(
                persona["persona_id"],
                f"{alike} episode pairs share content stems at Jaccard >= {PAIR_JACCARD}, "
                f"expected at least {MIN_PAIRS}",
            )
        )
    return out


def _check_roster(persona: dict[str, Any], line: dict | None) -> list[Violation]:
    """The persona's name, age, context and threads are its roster line's (data/personas_v3_roster.json)."""
    pid = persona["persona_id"]
    if line is None:
        return [Violation(pid, "has no line in the v3 roster")]
    return [
        Violation(pid, f"{key} differs from the roster line: {persona[key]!r} vs {line[key]!r}")
        for key in ("name", "age", "context", "threads")
        if persona[key] != line[key]
    ]


def _accented(text: str) -> set[str]:
    """The words of `text` with a letter outside ASCII, whole and casefolded."""
    return {w.casefold() for w in WORD.findall(text) if not w.isascii()}


def _check_accented(episodes: list[dict]) -> list[Violation]:
    """Implicit probes that repeat an accented word of their episode (the stem rule can miss it: its
    ASCII tokens split 'Inés' into the stop words 'in' and 's'; plan section 8, 2026-12-03)."""
    out = []
    for episode in episodes:
        words = _accented(episode["text"])
        for probe in episode["probes"]:
            shared = sorted(words & _accented(probe["query"])) if probe["type"] == "reflective_implicit" else []
            if shared:
                out.append(Violation(probe["id"], f"implicit probe repeats {', '.join(shared)} from its episode text"))
    return out
