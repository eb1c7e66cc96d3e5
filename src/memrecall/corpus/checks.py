"""Spec rules checked on persona sources, each violation named by its id."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from memrecall.corpus import rules


@dataclass(frozen=True, order=True)
class Violation:
    """One broken rule: where (file, persona, episode or probe id) and what."""

    where: str
    message: str

    def __str__(self) -> str:
        return f"{self.where}: {self.message}"


def check_persona(
    persona: dict[str, Any],
    file_stem: str,
    reference: datetime,
    text_words: tuple[int, int] = rules.TEXT_WORDS,
    ages: tuple[int, int] = rules.AGES,
) -> list[Violation]:
    """Every per-persona rule of the v1 spec (later versions pass their own lengths and ages); schema-valid."""
    pid = persona["persona_id"]
    out: list[Violation] = []
    if pid != file_stem:
        out.append(Violation(pid, f"persona_id does not match its file name {file_stem}.json"))
    if not ages[0] <= persona["age"] <= ages[1]:
        out.append(Violation(pid, f"age {persona['age']} is outside {ages[0]} to {ages[1]}"))
    episodes = persona["episodes"]
    lo, hi = rules.EPISODES_PER_PERSONA
    if not lo <= len(episodes) <= hi:
        out.append(Violation(pid, f"has {len(episodes)} episodes, expected {lo} to {hi}"))
    out.extend(_check_sessions(pid, episodes, reference))
    for index, episode in enumerate(episodes, start=1):
        out.extend(_check_episode(pid, index, episode, reference, text_words))
    return out


def _check_sessions(pid: str, episodes: list[dict], reference: datetime) -> list[Violation]:
    """Session count, numbering, day grouping and span."""
    out: list[Violation] = []
    first_moment: dict[int, datetime] = {}
    days: dict[int, set] = {}
    for episode in episodes:
        moment = rules.parse_timestamp(episode["date_time"])
        if moment is None:
            continue
        session = episode["session"]
        first_moment[session] = min(first_moment.get(session, moment), moment)
        days.setdefault(session, set()).add(moment.date())
    sessions = sorted(first_moment)
    lo, hi = rules.SESSIONS_PER_PERSONA
    if not lo <= len(sessions) <= hi:
        out.append(Violation(pid, f"has {len(sessions)} sessions, expected {lo} to {hi}"))
    if sessions and sessions != list(range(1, len(sessions) + 1)):
        out.append(Violation(pid, f"sessions are not numbered 1..{len(sessions)}: {sessions}"))
    for session in sessions:
        if len(days[session]) > 1:
            out.append(Violation(pid, f"session {session} spans more than one calendar day"))
    ordered = [first_moment[s] for s in sessions]
    if ordered != sorted(ordered):
        out.append(Violation(pid, "session numbers are not in chronological order"))
    if len(sessions) >= 2:
        span = (first_moment[sessions[-1]] - first_moment[sessions[0]]).total_seconds() / 86400
        lo, hi = rules.SESSION_SPAN_DAYS
        if not lo <= span <= hi:
            out.append(Violation(pid, f"session span is {span:.1f} days, expected {lo} to {hi}"))
    moments = [rules.parse_timestamp(e["date_time"]) for e in episodes]
    if None not in moments and moments != sorted(moments):
        out.append(Violation(pid, "episodes are not in chronological order"))
    return out


def _check_episode(
    pid: str, index: int, episode: dict, reference: datetime, text_words: tuple[int, int]
) -> list[Violation]:
    """Id, timestamp, text length and the three probes of one episode."""
    eid = episode["id"]
    out: list[Violation] = []
    expected_id = f"{pid}e{index:02d}"
    if eid != expected_id:
        out.append(Violation(eid, f"episode id should be {expected_id} (position {index})"))
    moment = rules.parse_timestamp(episode["date_time"])
    if moment is None:
        out.append(Violation(eid, f"date_time {episode['date_time']!r} is not ISO-8601 with a UTC offset"))
    elif moment >= reference:
        out.append(Violation(eid, f"date_time {episode['date_time']} is not before reference_now"))
    text = episode["text"]
    words, sentences = rules.word_count(text), rules.sentence_count(text)
    if not text_words[0] <= words <= text_words[1]:
        out.append(Violation(eid, f"text has {words} words, expected {text_words[0]} to {text_words[1]}"))
    if not rules.TEXT_SENTENCES[0] <= sentences <= rules.TEXT_SENTENCES[1]:
        out.append(Violation(eid, f"text has {sentences} sentences, expected 1 to 3"))
    if episode["intensity_band"] == "high" and episode["valence"] == "neutral":
        out.append(Violation(eid, "a high-intensity episode cannot have neutral valence"))
    types = Counter(p["type"] for p in episode["probes"])
    for probe_type in rules.PROBE_TYPES:
        if types[probe_type] != 1:
            out.append(Violation(eid, f"has {types[probe_type]} {probe_type} probes, expected exactly 1"))
    for probe in episode["probes"]:
        out.extend(_check_probe(eid, probe, text))
    return out


def _check_probe(eid: str, probe: dict, episode_text: str) -> list[Violation]:
    """Probe id suffix and, for implicit probes, the two lexical rules."""
    out: list[Violation] = []
    expected = f"{eid}-{rules.PROBE_SUFFIX.get(probe['type'], '?')}"
    if probe["id"] != expected:
        out.append(Violation(probe["id"], f"probe id should be {expected} for type {probe['type']}"))
    return out + _implicit_probe_rules(probe, episode_text)


def check_dataset_card_episode(episode: dict) -> list[Violation]:
    """The EpiRec dataset card's own rules for one episode, on a v1.0-format checkout: one probe of each type, and
    implicit probes clean under the format's own vocabularies (rules.format_*), not memrecall's stricter lists."""
    out: list[Violation] = []
    types = Counter(p["type"] for p in episode["probes"])
    for probe_type in rules.PROBE_TYPES:
        if types[probe_type] != 1:
            out.append(Violation(episode["id"], f"has {types[probe_type]} {probe_type} probes, expected exactly 1"))
    for probe in episode["probes"]:
        out.extend(_implicit_probe_rules(probe, episode["text"], FORMAT_VOCABULARIES))
    return out


# The two rule sets for implicit probes: (shared stems, emotion words). memrecall's releases use its own
# stricter lists; a checkout in the v1.0 format is held to that format's own (upstream's validator).
MEMRECALL_VOCABULARIES = (rules.shared_stems, rules.emotion_words)
FORMAT_VOCABULARIES = (rules.format_shared_stems, rules.format_emotion_words)


def _implicit_probe_rules(probe: dict, episode_text: str, vocabularies=MEMRECALL_VOCABULARIES) -> list[Violation]:
    """An implicit probe shares no content-word stem with its episode and uses no emotion-vocabulary word."""
    out: list[Violation] = []
    shared_stems, emotion_words = vocabularies
    if probe["type"] == "reflective_implicit":
        shared = shared_stems(probe["query"], episode_text)
        if shared:
            out.append(
                Violation(
                    probe["id"], f"implicit probe shares content-word stems with its episode: {', '.join(shared)}"
                )
            )
        emotional = emotion_words(probe["query"])
        if emotional:
            out.append(Violation(probe["id"], f"implicit probe uses emotion-vocabulary words: {', '.join(emotional)}"))
    return out


def check_corpus(personas: list[dict[str, Any]], reference: datetime) -> list[Violation]:
    """Cross-persona rules: uniqueness, band mix, valence balance, age coverage."""
    out: list[Violation] = []
    episodes = [e for p in personas for e in p["episodes"]]
    probes = [q for e in episodes for q in e["probes"]]
    for label, values in (
        ("episode id", [e["id"] for e in episodes]),
        ("probe id", [q["id"] for q in probes]),
        ("episode text", [e["text"] for e in episodes]),
        ("probe query", [q["query"] for q in probes]),
    ):
        for value, count in sorted(Counter(values).items()):
            if count > 1:
                out.append(Violation("corpus", f"duplicate {label} ({count}x): {value[:60]!r}"))
    if not episodes:
        return out + [Violation("corpus", "no episodes")]
    bands = Counter(e["intensity_band"] for e in episodes)
    for band, (lo, hi) in rules.BAND_SHARE.items():
        share = bands[band] / len(episodes)
        if not lo <= share <= hi:
            out.append(Violation("corpus", f"{band} share is {share:.1%}, expected {lo:.0%} to {hi:.0%}"))
    high = Counter(e["valence"] for e in episodes if e["intensity_band"] == "high")
    total_high = sum(high.values())
    if total_high and abs(high["positive"] - high["negative"]) > rules.HIGH_VALENCE_MAX_GAP * total_high:
        out.append(
            Violation("corpus", f"high episodes unbalanced: {high['positive']} positive vs {high['negative']} negative")
        )
    for bucket in ("short", "long"):
        in_bucket = [
            e
            for e in episodes
            if (m := rules.parse_timestamp(e["date_time"])) and rules.age_bucket(rules.age_days(m, reference)) == bucket
        ]
        if not any(e["intensity_band"] == "high" for e in in_bucket):
            out.append(Violation("corpus", f"the {bucket}-term range holds no high-intensity episode"))
        if not any(e["intensity_band"] != "high" for e in in_bucket):
            out.append(Violation("corpus", f"the {bucket}-term range holds no episode that is not high"))
    return out
