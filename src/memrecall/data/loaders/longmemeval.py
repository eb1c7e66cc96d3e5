"""Load LongMemEval (xiaowu0162/LongMemEval) into a Task: one store per question, one document per session.

Two document protocols, because published numbers use both:

- `official` follows LongMemEval's own retrieval code: a session document is its user turns
  only, joined by a space; abstention questions and questions whose gold sessions hold no user
  turn marked has_answer stay out of the headline (counted, and scored apart).
- `perseus` follows the session-level harness write-up: user and assistant turns as
  `role: content` lines; every question, abstention included, is in the headline.

Two granularities, as in LongMemEval's own retrieval code:

- `session`: one document per haystack session; gold is `answer_session_ids`.
- `turn`: one document per user turn, id `<session_id>_<turn index + 1>` (the index counts every
  turn of the session); gold is the user turns marked has_answer, and the other user turns of
  answer sessions are renamed `noans` (see `noans_id`). Each turn's session is in its labels.

Dates such as "2023/05/25 (Thu) 20:21" carry no zone and are read as UTC.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from memrecall.data.json_stream import iter_json_array
from memrecall.data.jsonfile import describe, file_sha256
from memrecall.data.model import JudgedQuery, LabelledDocument, Task
from memrecall.errors import DatasetError, near_miss

PROTOCOLS = ("perseus", "official")
GRANULARITIES = ("session", "turn")
DEFAULT_PROTOCOL = "perseus"
QUESTION_TYPES = (
    "single-session-user",
    "single-session-assistant",
    "single-session-preference",
    "multi-session",
    "knowledge-update",
    "temporal-reasoning",
)
_DATE = re.compile(r"^\s*(\d{4})/(\d{1,2})/(\d{1,2})(?:\s*\([A-Za-z]+\))?\s+(\d{1,2}):(\d{2})\s*$")


def parse_lme_date(value: Any) -> datetime | None:
    """`2023/05/25 (Thu) 20:21` as a UTC datetime; None when it does not parse."""
    match = _DATE.match(value) if isinstance(value, str) else None
    if not match:
        return None
    year, month, day, hour, minute = map(int, match.groups())
    try:
        return datetime(year, month, day, hour, minute, tzinfo=UTC)
    except ValueError:
        return None


def iter_records(path: Path) -> Iterator[Any]:
    """Stream the top-level array one record at a time (ijson), duplicate keys refused, never all parsed at once."""
    return iter_json_array(path)


def noans_id(turn_id: str) -> str:
    """The official rename of an answer-session turn without has_answer: `answer...` -> `noans...`."""
    return "noans" + turn_id[len("answer") :] if turn_id.startswith("answer") else "noans_" + turn_id


def restore_id(corpus_id: str, known: set[str]) -> str | None:
    """A corpus id from an official log as a document id of the store: as is, or with its noans rename undone."""
    if corpus_id in known:
        return corpus_id
    if corpus_id.startswith("noans"):
        for candidate in ("answer" + corpus_id[len("noans") :], corpus_id[len("noans_") :]):
            if candidate in known:
                return candidate
    return None


def load_longmemeval(
    path: str | Path, protocol: str = DEFAULT_PROTOCOL, max_instances: int | None = None, granularity: str = "session"
) -> Task:
    """Read a LongMemEval file; DatasetError names the question id and field of any problem."""
    if protocol not in PROTOCOLS:
        raise DatasetError(str(path), "", f"unknown protocol {protocol!r}; choose {' or '.join(PROTOCOLS)}")
    if granularity not in GRANULARITIES:
        raise DatasetError(str(path), "", f"unknown granularity {granularity!r}; choose session or turn")
    path = Path(path)
    stores: dict[str, tuple[LabelledDocument, ...]] = {}
    queries: list[JudgedQuery] = []
    shared_texts: dict[str, str] = {}
    for index, record in enumerate(iter_records(path)):
        if max_instances is not None and index >= max_instances:
            break
        query, documents = _record(str(path), index, record, protocol, shared_texts)
        if granularity == "turn":
            query, documents = _turns(str(path), record, query)
        if query.store_id in stores:
            raise DatasetError(str(path), f"question {query.id}", "question_id appears twice")
        stores[query.store_id] = documents
        queries.append(query)
    if not queries:
        raise DatasetError(str(path), "", "holds no questions")
    version = protocol if granularity == "session" else f"{protocol}/turn"
    return Task("longmemeval", version, file_sha256(path), stores, tuple(queries))


def _turns(source: str, record: dict, query: JudgedQuery) -> tuple[JudgedQuery, tuple]:
    """The question over user turns: targets are the has_answer turns of its answer sessions."""
    gold = set(query.targets)
    documents, targets = [], set()
    for session_id, date, turns in zip(
        record["haystack_session_ids"], record["haystack_dates"], record["haystack_sessions"], strict=True
    ):
        moment = parse_lme_date(date)
        for index, turn in enumerate(turns):
            if turn["role"] != "user":
                continue
            turn_id = f"{session_id}_{index + 1}"
            if session_id in gold:
                if turn.get("has_answer") is True:
                    targets.add(turn_id)
                else:
                    turn_id = noans_id(turn_id)
            documents.append(LabelledDocument(turn_id, turn["content"], moment, {"session": session_id}))
    if len({d.id for d in documents}) != len(documents):
        raise DatasetError(source, f"question {query.id}", "two user turns map to the same turn id")
    judged = JudgedQuery(query.id, query.store_id, query.text, query.time, frozenset(targets), query.strata)
    return judged, tuple(documents)


def _record(source: str, index: int, record: Any, protocol: str, shared: dict[str, str]) -> tuple[JudgedQuery, tuple]:
    """One question: its Query and its haystack as Documents."""
    if not isinstance(record, dict):
        raise DatasetError(source, f"record {index}", "expected an object")
    qid = record.get("question_id")
    if not isinstance(qid, str) or not qid:
        raise DatasetError(source, f"record {index}", f"question_id must be a non-empty string, got {describe(qid)}")
    where = f"question {qid}"

    def need(key: str, kind: type, what: str) -> Any:
        value = record.get(key)
        if not isinstance(value, kind):
            raise DatasetError(source, f"{where}: {key}", f"expected {what}, got {describe(value)}")
        return value

    question = need("question", str, "a string")
    question_type = need("question_type", str, "a string")
    asked_at = parse_lme_date(record.get("question_date"))
    if asked_at is None:
        raise DatasetError(source, f"{where}: question_date", f"cannot parse {record.get('question_date')!r}")
    ids = need("haystack_session_ids", list, "an array of session ids")
    dates = need("haystack_dates", list, "an array of dates")
    sessions = need("haystack_sessions", list, "an array of sessions")
    gold = need("answer_session_ids", list, "an array of session ids")
    if not len(ids) == len(dates) == len(sessions):
        raise DatasetError(
            source,
            f"{where}: haystack_sessions",
            f"{len(ids)} ids, {len(dates)} dates and {len(sessions)} sessions do not line up",
        )
    if not all(isinstance(i, str) for i in ids) or len(set(ids)) != len(ids):
        raise DatasetError(source, f"{where}: haystack_session_ids", "ids must be distinct strings")
    if not ids:
        raise DatasetError(source, f"{where}: haystack_sessions", "the haystack is empty")
    if not all(isinstance(g, str) for g in gold):
        raise DatasetError(source, f"{where}: answer_session_ids", "expected an array of session id strings")
    unknown = [g for g in gold if g not in set(ids)]
    if unknown:
        raise DatasetError(
            source, f"{where}: answer_session_ids", f"{unknown[0]!r} is not in the haystack{near_miss(unknown[0], ids)}"
        )
    documents = []
    user_evidence = False
    for position, (session_id, date, turns) in enumerate(zip(ids, dates, sessions, strict=True)):
        moment = parse_lme_date(date)
        if moment is None:
            raise DatasetError(source, f"{where}: haystack_dates[{position}]", f"cannot parse {date!r}")
        text, has_user_answer = _session_text(source, where, position, turns, protocol)
        user_evidence |= has_user_answer and session_id in gold
        documents.append(LabelledDocument(session_id, shared.setdefault(text, text), moment))
    abstention = qid.endswith("_abs")
    strata = {"question_type": question_type, "abstention": "yes" if abstention else "no"}
    if protocol == "official" and (abstention or not user_evidence):
        strata.update(in_headline="no", left_out_because="abstention" if abstention else "no_user_evidence_turn")
    return JudgedQuery(qid, qid, question, asked_at, frozenset(gold), strata), tuple(documents)


def _session_text(source: str, where: str, position: int, turns: Any, protocol: str) -> tuple[str, bool]:
    """A session's document text under the protocol, and whether a user turn has has_answer."""
    if not isinstance(turns, list):
        raise DatasetError(source, f"{where}: haystack_sessions[{position}]", "expected an array of turns")
    lines, user_texts, has_user_answer = [], [], False
    for number, turn in enumerate(turns):
        if (
            not isinstance(turn, dict)
            or not isinstance(turn.get("role"), str)
            or not isinstance(turn.get("content"), str)
        ):
            raise DatasetError(
                source, f"{where}: haystack_sessions[{position}][{number}]", "a turn needs string 'role' and 'content'"
            )
        if "has_answer" in turn and not isinstance(turn["has_answer"], bool):
            raise DatasetError(
                source,
                f"{where}: haystack_sessions[{position}][{number}].has_answer",
                f"expected true or false, got {describe(turn['has_answer'])}",
            )
        lines.append(f"{turn['role']}: {turn['content']}")
        if turn["role"] == "user":
            user_texts.append(turn["content"])
            has_user_answer |= turn.get("has_answer") is True
    return ("\n".join(lines) if protocol == "perseus" else " ".join(user_texts)), has_user_answer


def every_session_is_gold(task: Task) -> bool:
    """True when each question with gold has only gold sessions in its haystack (LongMemEval's oracle split)."""
    scored = [q for q in task.queries if q.targets]
    return bool(scored) and all({d.id for d in task.stores[q.store_id]} <= q.targets for q in scored)
