"""EpiRec v2 rules (GENERATION_SPEC.md sections 11-13), checked on top of the shared v1 rules."""

from __future__ import annotations

from collections import Counter, defaultdict
from datetime import datetime
from typing import Any

from memrecall.corpus import rules
from memrecall.corpus.checks import Violation, check_persona


def check_persona_v2(
    persona: dict[str, Any], file_stem: str, reference: datetime, ages: tuple[int, int] = rules.AGES
) -> list[Violation]:
    """Shared shape rules with v2 text lengths, then threads, anchors, siblings and the v2 probe rules."""
    out = check_persona(persona, file_stem, reference, text_words=rules.V2_TEXT_WORDS, ages=ages)
    episodes = persona["episodes"]
    by_id = {e["id"]: e for e in episodes}
    out.extend(_check_threads(persona))
    for episode in episodes:
        out.extend(_check_anchors(episode))
        out.extend(_check_siblings(episode, by_id))
        for probe in episode["probes"]:
            out.extend(_check_probe_v2(probe, episode))
    out.extend(_check_feeling_words(persona))
    return out


def _check_threads(persona: dict[str, Any]) -> list[Violation]:
    """Every episode names a thread of the persona, and every thread holds enough episodes."""
    pid, threads = persona["persona_id"], persona["threads"]
    out: list[Violation] = []
    counts: Counter[int] = Counter()
    for episode in persona["episodes"]:
        thread = episode.get("thread")
        if not isinstance(thread, int) or not 1 <= thread <= len(threads):
            out.append(Violation(episode["id"], f"thread must be 1..{len(threads)}, got {thread!r}"))
        else:
            counts[thread] += 1
    for number in range(1, len(threads) + 1):
        if counts[number] < rules.V2_THREAD_MIN_EPISODES:
            out.append(
                Violation(
                    pid,
                    f"thread {number} holds {counts[number]} episodes, expected at least "
                    f"{rules.V2_THREAD_MIN_EPISODES}",
                )
            )
    return out


def _check_anchors(episode: dict[str, Any]) -> list[Violation]:
    """Anchors are present, copied from the text, and cover its numbers and names."""
    eid, text, anchors = episode["id"], episode["text"], episode.get("anchors") or []
    if not anchors:
        return [Violation(eid, "lists no anchors")]
    out = [Violation(eid, f"anchor {a!r} is not in the episode text") for a in anchors if a.lower() not in text.lower()]
    out.extend(
        Violation(eid, f"anchor list does not cover {word!r}") for word in rules.uncovered_details(text, anchors)
    )
    return out


def _check_siblings(episode: dict[str, Any], by_id: dict[str, dict[str, Any]]) -> list[Violation]:
    """At least one sibling; each is another episode of the thread sharing an anchor stem, unlike in feeling."""
    eid, siblings = episode["id"], episode.get("siblings") or []
    if not siblings:
        return [Violation(eid, "declares no siblings")]
    out: list[Violation] = []
    own_stems = set().union(*(rules.content_stems(a) for a in episode.get("anchors") or [""]))
    for sid in siblings:
        other = by_id.get(sid)
        if other is None or sid == eid:
            out.append(Violation(eid, f"sibling {sid!r} is not another episode of this persona"))
            continue
        if other.get("thread") != episode.get("thread"):
            out.append(Violation(eid, f"sibling {sid} is in thread {other.get('thread')}, not {episode.get('thread')}"))
        if other["emotion"] == episode["emotion"] and other["valence"] == episode["valence"]:
            out.append(Violation(eid, f"sibling {sid} has the same emotion and valence"))
        other_stems = set().union(*(rules.content_stems(a) for a in other.get("anchors") or [""]))
        if not own_stems & other_stems:
            out.append(Violation(eid, f"sibling {sid} shares no anchor (setting or people)"))
    return out


def _check_probe_v2(probe: dict[str, Any], episode: dict[str, Any]) -> list[Violation]:
    """Length for every probe; feeling and anchor rules for explicit; route and anchors for implicit."""
    pid, query, kind = probe["id"], probe["query"], probe["type"]
    anchors = episode.get("anchors") or []
    out: list[Violation] = []
    words = rules.word_count(query)
    if words > rules.V2_PROBE_MAX_WORDS:
        out.append(Violation(pid, f"probe has {words} words, at most {rules.V2_PROBE_MAX_WORDS} allowed"))
    used = rules.anchors_used(query, anchors)
    if kind == "reflective_explicit":
        if not rules.feeling_stems(query):
            out.append(Violation(pid, "explicit probe names no feeling from the emotion vocabulary"))
        if len(used) > 1:
            out.append(Violation(pid, f"explicit probe uses {len(used)} anchors, at most 1: {', '.join(used)}"))
    if kind == "reflective_implicit":
        if probe.get("route") not in rules.ROUTES:
            out.append(Violation(pid, f"implicit probe route must be one of {', '.join(rules.ROUTES)}"))
        if used:
            out.append(Violation(pid, f"implicit probe uses anchors: {', '.join(used)}"))
    if kind != "factual" and episode["intensity_band"] == "low":
        moods = rules.mood_phrases_in(query)
        if moods:
            out.append(
                Violation(pid, f"reflective probe of a low-band episode leans on mood phrases: {', '.join(moods)}")
            )
    return out


def _check_feeling_words(persona: dict[str, Any]) -> list[Violation]:
    """No feeling word in more than the allowed number of one persona's explicit probes."""
    users: dict[str, list[str]] = defaultdict(list)
    for episode in persona["episodes"]:
        for probe in episode["probes"]:
            if probe["type"] == "reflective_explicit":
                for stem in sorted(rules.feeling_stems(probe["query"])):
                    users[stem].append(probe["id"])
    cap = rules.V2_FEELING_WORD_MAX_EXPLICIT
    return [
        Violation(
            persona["persona_id"],
            f"feeling word {stem!r} is in {len(ids)} explicit probes, at most {cap}: " + ", ".join(ids),
        )
        for stem, ids in sorted(users.items())
        if len(ids) > cap
    ]


def check_corpus_v2(personas: list[dict[str, Any]]) -> list[Violation]:
    """No 3-token phrase (not stop words only) in more than the allowed number of reflective probes."""
    users: dict[tuple[str, ...], list[str]] = defaultdict(list)
    for persona in personas:
        for episode in persona["episodes"]:
            for probe in episode["probes"]:
                if probe["type"] != "factual":
                    for gram in rules.content_ngrams(probe["query"]):
                        users[gram].append(probe["id"])
    cap = rules.V2_NGRAM_MAX_PROBES
    return [
        Violation(
            "corpus", f"phrase {' '.join(gram)!r} is in {len(ids)} reflective probes, at most {cap}: " + ", ".join(ids)
        )
        for gram, ids in sorted(users.items())
        if len(ids) > cap
    ]


def reused_texts(personas: list[dict[str, Any]], older: list[dict[str, Any]], name: str = "v1.0") -> list[Violation]:
    """Episode texts or probe queries copied verbatim from an older release (`name`)."""
    seen = {e["text"] for p in older for e in p["episodes"]}
    seen |= {q["query"] for p in older for e in p["episodes"] for q in e["probes"]}
    out = []
    for persona in personas:
        for episode in persona["episodes"]:
            if episode["text"] in seen:
                out.append(Violation(episode["id"], f"episode text is reused from {name}"))
            reused = [q["id"] for q in episode["probes"] if q["query"] in seen]
            out.extend(Violation(probe_id, f"probe query is reused from {name}") for probe_id in reused)
    return out
