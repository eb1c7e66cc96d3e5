"""Load Locomo-Plus (xjtuleeyf/Locomo-Plus) into a Task: each cue stitched into a LoCoMo conversation.

The release holds cue/trigger pairs only; its authors stitch each into a LoCoMo conversation chosen with an
unseeded `random.choice`. memrecall makes that choice deterministic: item i (0-based, file order) goes to
conversation i mod 10 of locomo10.json, in file order. Otherwise it follows the authors' build_conv.py: the
query is put 7 days after the conversation's last session, the cue `time_gap` before the query (weeks are 7
days, months 30, years 365; number words one to twelve, `a`/`an` = 1), A/B are the conversation's two
speakers, and sessions and cue are ordered by time (a session before a cue at the same moment). Where the
authors' parser reads 0 days (`several`, `a few`, `a couple of`), memrecall reads several = 3, a few = 3,
a couple = 2, so no cue lands on the query's own moment.

Each store is the conversation plus the cue as one more session; sessions are renumbered in time order
(`session_1`...) and turns named `D<session>:<position>`, so no id tells the cue apart. The query is the
trigger message, its speaker named, at the query's time; the gold is the cue: its session, or its turns.
The `all` layout stitches every cue given to one conversation into it together, one query per cue.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from memrecall.data.jsonfile import describe, file_sha256, read_json
from memrecall.data.loaders.locomo import load_locomo
from memrecall.data.model import JudgedQuery, LabelledDocument, Task
from memrecall.errors import DatasetError

GRANULARITIES = ("session", "turn")
LAYOUTS = ("one", "all")  # one cue per store (the authors'), or every cue of a conversation in its one store
RELATIONS = ("causal", "goal", "state", "value")
LOCOMO_FILE = "locomo10.json"
QUERY_AFTER_LAST = timedelta(days=7)
NUMBER_WORDS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "couple": 2, "few": 3, "several": 3,
}  # fmt: skip
UNIT_DAYS = {"week": 7, "month": 30, "year": 365}
_GAP = re.compile(r"\b(\d+|" + "|".join(NUMBER_WORDS) + r")\b\s*(?:of\s+)?(week|month|year)s?\b")
GAP_BUCKETS = ((30, "00-30 days"), (90, "31-90 days"), (180, "91-180 days"), (None, "181+ days"))


@dataclass(frozen=True)
class Session:
    """One session of a stitched store: its time, its turn lines, and the cue item it holds (None: LoCoMo's)."""

    time: datetime
    lines: tuple[str, ...]
    cue_of: int | None = None


def gap_days(text: str) -> int | None:
    """Days in a `time_gap` such as `about two months later`; None when it names no count and unit."""
    match = _GAP.search(text.lower())
    if not match:
        return None
    count = int(match[1]) if match[1].isdigit() else NUMBER_WORDS[match[1]]
    return count * UNIT_DAYS[match[2]]


def gap_bucket(days: int) -> str:
    """The time-gap stratum of a gap in days."""
    return next(label for limit, label in GAP_BUCKETS if limit is None or days <= limit)


def speaker_lines(source: str, where: str, text: Any, speakers: tuple[str, str]) -> tuple[str, ...]:
    """`A: ...`/`B: ...` lines with A and B replaced by the conversation's speakers."""
    if not isinstance(text, str) or not text.strip():
        raise DatasetError(source, where, f"expected a non-empty string of A:/B: lines, got {describe(text)}")
    out = []
    for line in text.strip().split("\n"):
        line = line.strip()
        if not line.startswith(("A:", "B:")):
            raise DatasetError(source, where, f"line {line[:40]!r} does not start with A: or B:")
        out.append(f"{speakers[line[0] == 'B']}: {line[2:].strip()}")
    return tuple(out)


def default_locomo(path: Path) -> Path:
    """The LoCoMo file a Locomo-Plus file is stitched into by default: locomo10.json beside it, else one folder up."""
    candidates = [Path(path).parent / LOCOMO_FILE, Path(path).parent.parent / LOCOMO_FILE]
    found = next((c for c in candidates if c.is_file()), None)
    if found is None:
        raise DatasetError(str(path), "", f"needs LoCoMo's {LOCOMO_FILE} beside it or one folder up; found neither")
    return found


def load_locomo_plus(
    path: str | Path, locomo: str | Path | None = None, granularity: str = "session", layout: str = "one"
) -> tuple[Task, dict]:
    """The stitched task and its dataset facts; DatasetError names the file and item of any problem."""
    if granularity not in GRANULARITIES:
        raise DatasetError(str(path), "", f"unknown granularity {granularity!r}; choose session or turn")
    if layout not in LAYOUTS:
        raise DatasetError(str(path), "", f"unknown layout {layout!r}; choose one or all")
    path = Path(path)
    locomo = Path(locomo) if locomo is not None else default_locomo(path)
    conversations = _conversations(locomo)
    items = read_json(path)
    if not isinstance(items, list) or not items:
        raise DatasetError(str(path), "$", "expected a non-empty array of cue/trigger items")
    read = [_item(str(path), i, item, conversations[i % len(conversations)]) for i, item in enumerate(items)]
    stores: dict[str, tuple[LabelledDocument, ...]] = {}
    queries: list[JudgedQuery] = []
    groups = (
        {f"plus{i}": [i] for i in range(len(read))}
        if layout == "one"
        else _by_conversation(len(read), len(conversations))
    )
    for store_id, members in groups.items():
        sample_id, sessions, _ = conversations[members[0] % len(conversations)]
        stitched = sorted([*sessions, *(read[i]["cue"] for i in members)], key=_time_order)
        documents, cue_ids = _documents(stitched, granularity)
        for i in members:
            cue_text = read[i]["cue"].lines
            gold = {d for s, ids in cue_ids.items() if stitched[s].lines == cue_text for d in ids}
            item = read[i]
            queries.append(
                JudgedQuery(f"plus{i}", store_id, item["query"], item["time"], frozenset(gold), item["strata"])
            )
        stores[store_id] = documents
    version = granularity if layout == "one" else f"{granularity}+all-cues"
    facts = {
        "family": "locomo-plus",
        "granularity": granularity,
        "layout": layout,
        "file": path.name,
        "locomo_file": locomo.name,
        "locomo_sha256": file_sha256(locomo),
        "conversation_of_item": f"item i -> conversation i mod {len(conversations)} of the LoCoMo file, in file order",
        "gap_days_read": dict(sorted(Counter(str(r["days"]) for r in read).items(), key=lambda kv: int(kv[0]))),
        "shared_cues": _shared_cues(read, groups),
    }
    return Task("locomo-plus", version, file_sha256(path), stores, tuple(queries)), facts


def _conversations(locomo: Path) -> list[tuple[str, list[Session], tuple[str, str]]]:
    """Each LoCoMo conversation (read and checked by the LoCoMo loader): id, sessions, speakers."""
    task = load_locomo(locomo, "turn").task
    raw = read_json(locomo)
    out = []
    for sample in raw:
        conversation = sample["conversation"]
        speakers = (conversation.get("speaker_a"), conversation.get("speaker_b"))
        if not all(isinstance(s, str) and s for s in speakers):
            raise DatasetError(str(locomo), f"{sample['sample_id']}: conversation", "needs speaker_a and speaker_b")
        sessions: dict[str, list] = {}
        for document in task.stores[sample["sample_id"]]:
            sessions.setdefault(document.labels["session"], [document.timestamp]).append(document.text)
        out.append((sample["sample_id"], [Session(v[0], tuple(v[1:])) for v in sessions.values()], speakers))
    return out


def _item(source: str, index: int, item: Any, conversation: tuple) -> dict:
    """One cue/trigger item, read against its conversation: the cue session, query text, time and strata."""
    where = f"[{index}]"
    if not isinstance(item, dict):
        raise DatasetError(source, where, f"expected an item object, got {describe(item)}")
    relation = item.get("relation_type")
    if relation not in RELATIONS:
        raise DatasetError(
            source, f"{where}.relation_type", f"expected one of {', '.join(RELATIONS)}, got {describe(relation)}"
        )
    gap = item.get("time_gap")
    days = gap_days(gap) if isinstance(gap, str) else None
    if days is None:
        raise DatasetError(
            source, f"{where}.time_gap", f"cannot read a count of weeks, months or years in {describe(gap)}"
        )
    _, sessions, speakers = conversation
    query_time = sessions[-1].time + QUERY_AFTER_LAST
    cue = Session(
        query_time - timedelta(days=days),
        speaker_lines(source, f"{where}.cue_dialogue", item.get("cue_dialogue"), speakers),
        index,
    )
    query = "\n".join(speaker_lines(source, f"{where}.trigger_query", item.get("trigger_query"), speakers))
    strata = {"relation_type": relation, "time_gap": gap_bucket(days)}
    return {"cue": cue, "query": query, "time": query_time, "strata": strata, "days": days}


def _time_order(session: Session) -> tuple[datetime, int]:
    """Sessions by time; at one moment LoCoMo's session first, then cues in item order."""
    return session.time, -1 if session.cue_of is None else session.cue_of


def _by_conversation(count: int, conversations: int) -> dict[str, list[int]]:
    """The all-cues layout's stores: the items of each conversation (i mod the conversations) in one store."""
    groups: dict[str, list[int]] = {}
    for i in range(count):
        groups.setdefault(f"conversation{i % conversations}", []).append(i)
    return groups


def _documents(stitched: list[Session], granularity: str) -> tuple[tuple[LabelledDocument, ...], dict[int, list[str]]]:
    """The store's documents, sessions renumbered in time order, and the document ids of each cue session."""
    documents: list[LabelledDocument] = []
    cue_ids: dict[int, list[str]] = {}
    for number, session in enumerate(stitched, start=1):
        key = f"session_{number}"
        if granularity == "session":
            ids = [key]
            documents.append(LabelledDocument(key, "\n".join(session.lines), session.time))
        else:
            ids = [f"D{number}:{position}" for position in range(1, len(session.lines) + 1)]
            documents.extend(
                LabelledDocument(i, line, session.time, {"session": key})
                for i, line in zip(ids, session.lines, strict=True)
            )
        if session.cue_of is not None:
            cue_ids[number - 1] = ids
    return tuple(documents), cue_ids


def _shared_cues(read: list[dict], groups: dict[str, list[int]]) -> list[list[int]]:
    """Items whose cue dialogue is word for word another's in the same store: each is gold for both queries."""
    shared = []
    for members in groups.values():
        by_text: dict[tuple[str, ...], list[int]] = {}
        for i in members:
            by_text.setdefault(read[i]["cue"].lines, []).append(i)
        shared.extend(sorted(v) for v in by_text.values() if len(v) > 1)
    return sorted(shared)
