"""Load LoCoMo (snap-research/LoCoMo) into a Task: one store per conversation, at turn or session granularity.

Evidence ids in the release are not all clean. Each raw id is handled explicitly and reported:
`ok` (exactly a dia_id of the conversation); `split` (several ids in one string, e.g.
"D8:6; D9:17"); `repaired` (a well-meant id written oddly that names exactly one turn by its
session and turn numbers: "D:11:26" -> D11:26, "D30:05" -> D30:5); `malformed` (no id can be
read, e.g. "D"); `missing` (well formed but no such turn in the conversation). Questions left
with no resolvable evidence keep no targets: they are counted, never scored as 0.

A dia_id `D<session>:<turn>` names a turn by two numbers, so `D1:03` and `D1:3` are the same turn:
an evidence id that is exactly a dia_id is `ok` as given, and two dia_ids of one conversation
with the same numbers are an error.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from memrecall.data.jsonfile import describe, file_sha256, read_json
from memrecall.data.model import JudgedQuery, LabelledDocument, Task
from memrecall.errors import ConfigError, DatasetError

GRANULARITIES = ("session", "turn")
CATEGORY5 = ("apart", "headline")  # adversarial questions: reported apart (the default), or scored with the rest
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
_SESSION_KEY = re.compile(r"^session_(\d+)$")
_EVIDENCE = re.compile(r"^D:?(\d+):(\d+)$")


@dataclass
class LocomoLoad:
    """The task plus every evidence id that needed handling."""

    task: Task
    evidence_issues: list[dict] = field(default_factory=list)

    def issue_counts(self) -> dict[str, int]:
        """How many raw evidence ids ended in each outcome, and questions left without evidence."""
        counts = Counter(issue["outcome"] for issue in self.evidence_issues)
        counts["questions_without_evidence"] = sum(1 for q in self.task.queries if not q.targets)
        return dict(sorted(counts.items()))


def parse_locomo_date(value: Any) -> datetime | None:
    """`1:56 pm on 8 May, 2023` as UTC (the release gives no zone); None when it does not parse."""
    if not isinstance(value, str):
        return None
    try:
        return datetime.strptime(value.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)
    except ValueError:
        return None


def category_label(category: Any) -> str:
    """`1-multi-hop` ... `5-adversarial`; unknown codes as `<n>-unknown`."""
    return f"{category}-{CATEGORIES.get(category, 'unknown')}"


def turn_numbers(dia_id: str) -> tuple[int, int] | None:
    """(session, turn) of a dia_id or evidence id such as `D1:3`, `D1:03` or `D:1:3`; None when unreadable."""
    match = _EVIDENCE.match(dia_id)
    return (int(match.group(1)), int(match.group(2))) if match else None


def resolve_evidence(raw: str, known: set[str]) -> list[tuple[str | None, str]]:
    """Each id read from one raw evidence string, with its outcome (ok, split, repaired, malformed, missing).

    A part that is exactly one of the conversation's dia_ids (`known`) is taken as given; any other
    is matched by its (session, turn) numbers.
    """
    by_number: dict[tuple[int, int], str] | None = None
    parts = [p for p in re.split(r"[;,\s]+", raw.strip()) if p]
    out: list[tuple[str | None, str]] = []
    for part in parts or [raw]:
        numbers = turn_numbers(part)
        if part in known:
            resolved: str | None = part
        elif numbers is None:
            out.append((None, "malformed"))
            continue
        else:
            by_number = by_number or {n: d for d in known if (n := turn_numbers(d))}
            resolved = by_number.get(numbers)
        if resolved is None:
            out.append((f"D{numbers[0]}:{numbers[1]}" if numbers else part, "missing"))
        elif len(parts) > 1:
            out.append((resolved, "split"))
        else:
            out.append((resolved, "ok" if resolved == part else "repaired"))
    return out


def load_locomo(path: str | Path, granularity: str = "session", category5: str = "apart") -> LocomoLoad:
    """Read the LoCoMo release; DatasetError names the sample id and field of any structural problem.

    `category5="headline"` scores the adversarial questions with the rest (several published LoCoMo
    figures count them); the task's version then says so, so no report mixes the two populations.
    """
    if granularity not in GRANULARITIES:
        raise DatasetError(str(path), "", f"unknown granularity {granularity!r}; choose session or turn")
    if category5 not in CATEGORY5:
        raise ConfigError(f"unknown category-5 population {category5!r}; choose {' or '.join(CATEGORY5)}")
    path = Path(path)
    data = read_json(path)
    if not isinstance(data, list):
        raise DatasetError(str(path), "$", "expected an array of conversations")
    stores: dict[str, tuple[LabelledDocument, ...]] = {}
    queries: list[JudgedQuery] = []
    issues: list[dict] = []
    for index, sample in enumerate(data):
        sample_id, documents, turn_session = _conversation(str(path), index, sample, granularity)
        if sample_id in stores:
            raise DatasetError(str(path), f"[{index}].sample_id", f"{sample_id!r} appears twice")
        stores[sample_id] = documents
        questions = sample.get("qa", [])
        if not isinstance(questions, list):
            raise DatasetError(
                str(path), f"{sample_id}: qa", f"expected an array of questions, got {type(questions).__name__}"
            )
        for number, qa in enumerate(questions):
            query, found = _question(str(path), sample_id, number, qa, turn_session, granularity, category5)
            queries.append(query)
            issues.extend(found)
    version = granularity if category5 == "apart" else f"{granularity}+category5"
    return LocomoLoad(Task("locomo", version, file_sha256(path), stores, tuple(queries)), issues)


def _conversation(source: str, index: int, sample: Any, granularity: str) -> tuple[str, tuple, dict[str, str]]:
    """A conversation's documents and a map from each dia_id to its session key."""
    if not isinstance(sample, dict) or not isinstance(sample.get("sample_id"), str):
        raise DatasetError(source, f"[{index}]", "expected an object with a string sample_id")
    sample_id = sample["sample_id"]
    conversation = sample.get("conversation")
    if not isinstance(conversation, dict):
        raise DatasetError(source, f"{sample_id}: conversation", "expected an object")
    numbers = sorted(int(m.group(1)) for key in conversation if (m := _SESSION_KEY.match(key)))
    documents, turn_session = [], {}
    by_number: dict[tuple[int, int], str] = {}
    for number in numbers:
        key = f"session_{number}"
        moment = parse_locomo_date(conversation.get(f"{key}_date_time"))
        if moment is None:
            raise DatasetError(
                source, f"{sample_id}: {key}_date_time", f"cannot parse {conversation.get(f'{key}_date_time')!r}"
            )
        lines = []
        if not isinstance(conversation[key], list):
            raise DatasetError(
                source, f"{sample_id}: {key}", f"expected an array of turns, got {type(conversation[key]).__name__}"
            )
        for position, turn in enumerate(conversation[key]):
            if not isinstance(turn, dict) or not all(
                isinstance(turn.get(k), str) for k in ("speaker", "dia_id", "text")
            ):
                raise DatasetError(source, f"{sample_id}: {key}[{position}]", "a turn needs speaker, dia_id and text")
            line = f"{turn['speaker']}: {turn['text']}"
            if isinstance(turn.get("blip_caption"), str) and turn["blip_caption"]:
                line += f" [shared an image: {turn['blip_caption']}]"
            if turn["dia_id"] in turn_session:
                raise DatasetError(source, f"{sample_id}: {key}[{position}].dia_id", f"{turn['dia_id']!r} repeats")
            numbers = turn_numbers(turn["dia_id"])
            if numbers is not None and numbers in by_number:
                raise DatasetError(
                    source,
                    f"{sample_id}: {key}[{position}].dia_id",
                    f"{turn['dia_id']!r} and {by_number[numbers]!r} name the same turn "
                    f"(session {numbers[0]}, turn {numbers[1]})",
                )
            if numbers is not None:
                by_number[numbers] = turn["dia_id"]
            turn_session[turn["dia_id"]] = key
            lines.append(line)
            if granularity == "turn":
                documents.append(LabelledDocument(turn["dia_id"], line, moment, {"session": key}))
        if granularity == "session":
            documents.append(LabelledDocument(key, "\n".join(lines), moment))
    if not documents:
        raise DatasetError(source, f"{sample_id}: conversation", "holds no sessions")
    return sample_id, tuple(documents), turn_session


def _question(
    source: str,
    sample_id: str,
    number: int,
    qa: Any,
    turn_session: dict[str, str],
    granularity: str,
    category5: str,
) -> tuple[JudgedQuery, list[dict]]:
    """One QA item as a Query, with the evidence ids that needed handling."""
    where = f"{sample_id}: qa[{number}]"
    if not isinstance(qa, dict):
        raise DatasetError(source, where, f"expected a question object, got {describe(qa)}")
    if not isinstance(qa.get("question"), str):
        raise DatasetError(source, f"{where}.question", f"expected a string, got {describe(qa.get('question'))}")
    evidence = qa.get("evidence", [])
    if not isinstance(evidence, list) or not all(isinstance(e, str) for e in evidence):
        bad = evidence if not isinstance(evidence, list) else next(e for e in evidence if not isinstance(e, str))
        raise DatasetError(source, f"{where}.evidence", f"expected an array of strings, got {describe(bad)}")
    query_id = f"{sample_id}:qa{number}"
    known, turns, issues = set(turn_session), set(), []
    for raw in evidence:
        for resolved, outcome in resolve_evidence(raw, known):
            if outcome != "ok":
                issues.append({"query_id": query_id, "raw": raw, "outcome": outcome, "resolved_to": resolved})
            if outcome in ("ok", "split", "repaired"):
                turns.add(resolved)
    targets = turns if granularity == "turn" else {turn_session[t] for t in turns}
    category = qa.get("category")
    if category is not None and (not isinstance(category, int) or isinstance(category, bool)):
        raise DatasetError(source, f"{where}.category", f"expected an integer, got {describe(category)}")
    strata = {"category": category_label(category)}
    if category == 5 and category5 == "apart":
        strata.update(in_headline="no", left_out_because=category_label(category))
    return JudgedQuery(query_id, sample_id, qa["question"], None, frozenset(targets), strata), issues
