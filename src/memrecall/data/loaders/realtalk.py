"""Load REALTALK (danny911kr/REALTALK) into a Task: one store per chat, at session or turn granularity.

The release is a folder of `Chat_<n>_<name>_<name>.json` files in LoCoMo's layout: `session_<n>` lists of
turns (`dia_id`, `speaker`, `clean_text`, a per-turn `date_time` such as `29.12.2023, 22:42:04`, optional
`blip_caption`), `session_<n>_date_time`, and `qa[]` with `evidence` and `category` (1 fact, 2 date,
3 inference). Evidence is read as realtalk_evidence describes. At session level an id whose turn is missing
still names its session; at turn level only turns in the file count. A question whose evidence resolves to
nothing is not measurable: it has no targets (out of the denominator) and is named, with its evidence, under
`questions_without_gold` in the report's dataset facts.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from memrecall.data.jsonfile import describe, read_json
from memrecall.data.loaders.locomo import turn_numbers
from memrecall.data.loaders.realtalk_evidence import RESOLUTIONS, ChatIndex, read_ids, written_form
from memrecall.data.model import JudgedQuery, LabelledDocument, Task
from memrecall.data.official import manifest_sha256
from memrecall.errors import DatasetError

GRANULARITIES = ("session", "turn")
CATEGORIES = {1: "fact", 2: "date", 3: "inference"}
FILE_PATTERN = re.compile(r"^Chat_(\d+)_.+\.json$")
_SESSION_KEY = re.compile(r"^session_(\d+)$")
SHOWN = 200  # the most issues or questions listed by id in a report; all are counted


@dataclass
class RealtalkLoad:
    """The task and the facts about its evidence that the report records."""

    task: Task
    forms: Counter = field(default_factory=Counter)
    resolutions: Counter = field(default_factory=Counter)
    unresolved: list[dict] = field(default_factory=list)
    without_gold: dict[str, str] = field(default_factory=dict)

    def facts(self) -> dict:
        """The dataset facts: evidence forms, id resolutions, what names nothing, the questions left out."""
        return {
            "evidence_forms": dict(sorted(self.forms.items())),
            "evidence_ids": {r: self.resolutions[r] for r in RESOLUTIONS},
            "unresolved_evidence": self.unresolved[:SHOWN],
            "questions_without_gold": {
                "count": len(self.without_gold),
                "of": len(self.task.queries),
                "queries": dict(list(self.without_gold.items())[:SHOWN]),
            },
        }


def parse_realtalk_time(value: Any) -> datetime | None:
    """`29.12.2023, 22:42:04` as UTC (the release gives no zone); None when it does not parse."""
    if not isinstance(value, str):
        return None
    try:
        return datetime.strptime(value.strip(), "%d.%m.%Y, %H:%M:%S").replace(tzinfo=UTC)
    except ValueError:
        return None


def category_label(category: Any) -> str:
    """`1-fact`, `2-date`, `3-inference`; unknown codes as `<n>-unknown`."""
    return f"{category}-{CATEGORIES.get(category, 'unknown')}"


def chat_files(folder: Path) -> list[Path]:
    """The release's Chat_<n>_*.json files in chat-number order; DatasetError when there are none."""
    if not folder.is_dir():
        raise DatasetError(str(folder), "", "expected the REALTALK folder of Chat_<n>_*.json files")
    found = [(int(m.group(1)), p) for p in folder.iterdir() if (m := FILE_PATTERN.match(p.name)) and p.is_file()]
    if not found:
        raise DatasetError(str(folder), "", "holds no Chat_<n>_*.json file")
    return [p for _, p in sorted(found, key=lambda item: (item[0], item[1].name))]


def load_realtalk(folder: str | Path, granularity: str = "session") -> RealtalkLoad:
    """Read the REALTALK folder; DatasetError names the file and record of any structural problem."""
    if granularity not in GRANULARITIES:
        raise DatasetError(str(folder), "", f"unknown granularity {granularity!r}; choose session or turn")
    folder = Path(folder)
    files = chat_files(folder)
    loaded = RealtalkLoad(Task("realtalk", granularity, "", {}, ()))
    stores: dict[str, tuple[LabelledDocument, ...]] = {}
    queries: list[JudgedQuery] = []
    for path in files:
        chat = read_json(path)
        if not isinstance(chat, dict):
            raise DatasetError(str(path), "$", f"expected a chat object, got {describe(chat)}")
        documents, index = _chat(str(path), chat, granularity)
        stores[path.stem] = documents
        qa = chat.get("qa")
        if not isinstance(qa, list):
            raise DatasetError(str(path), "qa", f"expected an array of questions, got {describe(qa)}")
        for number, item in enumerate(qa):
            queries.append(_question(str(path), path.stem, number, item, index, granularity, loaded))
    digest = manifest_sha256(folder, files)
    loaded.task = Task("realtalk", granularity, digest, stores, tuple(queries))
    return loaded


def _chat(source: str, chat: dict, granularity: str) -> tuple[tuple[LabelledDocument, ...], ChatIndex]:
    """One chat's documents, and where each of its dia_ids is."""
    numbers = sorted(int(m.group(1)) for key in chat if (m := _SESSION_KEY.match(key)))
    if not numbers:
        raise DatasetError(source, "$", "holds no session_<n> key")
    documents: list[LabelledDocument] = []
    where: dict[tuple[int, int], tuple[str, str]] = {}
    for number in numbers:
        key = f"session_{number}"
        moment = parse_realtalk_time(chat.get(f"{key}_date_time"))
        if moment is None:
            raise DatasetError(source, f"{key}_date_time", f"cannot parse {describe(chat.get(f'{key}_date_time'))}")
        turns = chat[key]
        if not isinstance(turns, list) or not turns:
            raise DatasetError(source, key, f"expected a non-empty array of turns, got {describe(turns)}")
        lines = []
        for position, turn in enumerate(turns):
            line, dia_id, numbers_of = _turn(source, f"{key}[{position}]", turn)
            if numbers_of in where:
                raise DatasetError(source, f"{key}[{position}].dia_id", f"{dia_id!r} repeats in the chat")
            where[numbers_of] = (dia_id, key)
            lines.append(line)
            if granularity == "turn":
                documents.append(
                    LabelledDocument(dia_id, line, parse_realtalk_time(turn["date_time"]), {"session": key})
                )
        if granularity == "session":
            documents.append(LabelledDocument(key, "\n".join(lines), moment))
    return tuple(documents), ChatIndex(where)


def _turn(source: str, where: str, turn: Any) -> tuple[str, str, tuple[int, int]]:
    """A turn's text line, dia_id and its (prefix, turn) numbers."""
    if not isinstance(turn, dict) or not all(isinstance(turn.get(k), str) for k in ("speaker", "dia_id", "clean_text")):
        raise DatasetError(source, where, "a turn needs string speaker, dia_id and clean_text")
    numbers = turn_numbers(turn["dia_id"])
    if numbers is None or not turn["dia_id"].startswith("D") or turn["dia_id"].startswith("D:"):
        raise DatasetError(source, f"{where}.dia_id", f"{turn['dia_id']!r} is not a D<session>:<turn> id")
    if parse_realtalk_time(turn.get("date_time")) is None:
        raise DatasetError(source, f"{where}.date_time", f"cannot parse {describe(turn.get('date_time'))}")
    line = f"{turn['speaker']}: {turn['clean_text']}"
    if isinstance(turn.get("blip_caption"), str) and turn["blip_caption"]:
        line += f" [shared an image: {turn['blip_caption']}]"
    return line, turn["dia_id"], numbers


def _question(
    source: str, store: str, number: int, qa: Any, index: ChatIndex, granularity: str, loaded: RealtalkLoad
) -> JudgedQuery:
    """One QA item as a judged query; its evidence forms and resolutions are added to `loaded`."""
    where = f"qa[{number}]"
    if not isinstance(qa, dict):
        raise DatasetError(source, where, f"expected a question object, got {describe(qa)}")
    if not isinstance(qa.get("question"), str) or not qa["question"].strip():
        raise DatasetError(
            source, f"{where}.question", f"expected a non-empty string, got {describe(qa.get('question'))}"
        )
    evidence = qa.get("evidence")
    if not isinstance(evidence, list) or not all(isinstance(e, str) for e in evidence):
        raise DatasetError(source, f"{where}.evidence", f"expected an array of strings, got {describe(evidence)}")
    category = qa.get("category")
    if not isinstance(category, int) or isinstance(category, bool) or category not in CATEGORIES:
        raise DatasetError(source, f"{where}.category", f"expected 1, 2 or 3, got {describe(category)}")
    query_id = f"{store}:qa{number}"
    sessions, turns = set(), set()
    for raw in evidence:
        loaded.forms[written_form(raw)] += 1
        named, unread = read_ids(raw)
        for part in unread:
            loaded.unresolved.append({"query_id": query_id, "raw": raw, "id": part, "why": "names no id"})
        for numbers in named:
            resolution, dia_id, session = index.resolve(numbers)
            loaded.resolutions[resolution] += 1
            if resolution == "unresolved" or (resolution == "session_only" and granularity == "turn"):
                why = "no such session" if resolution == "unresolved" else "no such turn (its session is there)"
                what = f"D{numbers[0]}:{numbers[1]}"
                loaded.unresolved.append({"query_id": query_id, "raw": raw, "id": what, "why": why})
            if session is not None:
                sessions.add(session)
            if dia_id is not None:
                turns.add(dia_id)
    targets = frozenset(turns if granularity == "turn" else sessions)
    if not targets:
        shown = ", ".join(repr(e) for e in evidence) or "none"
        loaded.without_gold[query_id] = f"evidence {shown} names no {granularity} of the chat"
    strata = {"category": category_label(category)}
    return JudgedQuery(query_id, store, qa["question"], None, targets, strata)
