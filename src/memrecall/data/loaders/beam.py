"""Load BEAM (mohammadtavakoli78/BEAM) into a Task: one store per conversation, messages or turn pairs.

A tier is a folder of conversation folders `<n>/` each with `chat.json` (batches of `turns`, each a list of
messages with integer `id`, `role`, `content`, and `time_anchor` such as `March-15-2024` on a batch's first
message) and `probing_questions.json` or, as in BEAM's repository, `probing_questions/probing_questions.json`
(ten abilities, each a list of questions). Gold is `source_chat_ids`:
a list of message ids (nested lists are flattened), or `{first_statement, second_statement}` and
`{first_event, second_event}` (both parts are gold), or `{original_info, updated_info}` (knowledge update:
the updated message is the gold; the original is kept apart as the stale message, see stale_above_updated).
Abstention questions have none: they are counted apart, never scored. A question whose gold names no message
of its conversation is not measurable and is named under `questions_without_gold`.

Documents are messages (`<role>: <content>`, id the message id) or, at `pair` granularity, each user message
with the assistant reply that follows it (id `<user id>-<assistant id>`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from memrecall.data.jsonfile import describe, read_json
from memrecall.data.model import JudgedQuery, LabelledDocument, Ranking, Task
from memrecall.data.official import manifest_sha256
from memrecall.errors import DatasetError

GRANULARITIES = ("message", "pair")
ABILITIES = (
    "abstention",
    "contradiction_resolution",
    "event_ordering",
    "information_extraction",
    "instruction_following",
    "knowledge_update",
    "multi_session_reasoning",
    "preference_following",
    "summarization",
    "temporal_reasoning",
)
GOLD_PARTS = {
    "contradiction_resolution": ("first_statement", "second_statement"),
    "temporal_reasoning": ("first_event", "second_event"),
    "knowledge_update": ("updated_info",),
}
STALE_PART = "original_info"
_FOLDER = re.compile(r"^\d+$")


def parse_anchor(value: Any) -> datetime | None:
    """`March-15-2024` as UTC midnight; None when it does not parse."""
    try:
        return datetime.strptime(value, "%B-%d-%Y").replace(tzinfo=UTC) if isinstance(value, str) else None
    except ValueError:
        return None


def conversation_folders(tier: Path) -> list[Path]:
    """The tier's numbered conversation folders, in number order; DatasetError when there are none."""
    if not tier.is_dir():
        raise DatasetError(str(tier), "", "expected a BEAM tier folder of numbered conversation folders")
    found = sorted((p for p in tier.iterdir() if p.is_dir() and _FOLDER.match(p.name)), key=lambda p: int(p.name))
    if not found:
        raise DatasetError(str(tier), "", "holds no numbered conversation folder (1/, 2/, ...)")
    return found


def questions_file(folder: Path) -> Path:
    """A conversation's probing questions: `probing_questions.json`, or the repository's `probing_questions/` copy."""
    flat = folder / "probing_questions.json"
    nested = folder / "probing_questions" / "probing_questions.json"
    return nested if not flat.exists() and nested.exists() else flat


def load_beam(tier: str | Path, granularity: str = "message") -> tuple[Task, dict]:
    """The task and its dataset facts (stale messages of knowledge updates, questions without gold)."""
    if granularity not in GRANULARITIES:
        raise DatasetError(str(tier), "", f"unknown granularity {granularity!r}; choose message or pair")
    tier = Path(tier)
    folders = conversation_folders(tier)
    stores: dict[str, tuple[LabelledDocument, ...]] = {}
    queries: list[JudgedQuery] = []
    stale: dict[str, list[str]] = {}
    without: dict[str, str] = {}
    files = []
    message_count = 0
    for folder in folders:
        chat_path, questions_path = folder / "chat.json", questions_file(folder)
        files += [chat_path, questions_path]
        messages = _messages(chat_path, read_json(chat_path))
        message_count += len(messages)
        documents, unit_of = _documents(messages, granularity)
        stores[folder.name] = documents
        abilities = read_json(questions_path)
        if not isinstance(abilities, dict):
            raise DatasetError(str(questions_path), "$", f"expected an object of abilities, got {describe(abilities)}")
        unknown = sorted(set(abilities) - set(ABILITIES))
        if unknown:
            raise DatasetError(str(questions_path), unknown[0], f"unknown ability; expected {', '.join(ABILITIES)}")
        for ability in ABILITIES:
            listed = abilities.get(ability, [])
            if not isinstance(listed, list):
                raise DatasetError(
                    str(questions_path), ability, f"expected an array of questions, got {describe(listed)}"
                )
            for number, item in enumerate(listed):
                where = f"{ability}[{number}]"
                query_id = f"{folder.name}:{ability}:{number}"
                gold, old, named = _gold(str(questions_path), where, ability, item, unit_of)
                if old:
                    stale[query_id] = sorted(old, key=_id_order)
                if ability != "abstention" and not gold:
                    shown = ", ".join(str(n) for n in named[:10]) or "no id"
                    without[query_id] = f"{where}.source_chat_ids names {shown}: no message of the conversation"
                strata = {"ability": ability}
                if ability == "abstention":
                    strata["abstention"] = "yes"
                queries.append(JudgedQuery(query_id, folder.name, item["question"], None, frozenset(gold), strata))
    facts = {
        "family": "beam",
        "granularity": granularity,
        "conversations": len(folders),
        "messages": message_count,
        "knowledge_update_stale": stale,
        "questions_without_gold": {"count": len(without), "of": len(queries), "queries": without},
    }
    return Task("beam", granularity, manifest_sha256(tier, files), stores, tuple(queries)), facts


def _id_order(doc_id: str) -> tuple[int, ...]:
    """Document ids in message order."""
    return tuple(int(part) for part in doc_id.split("-"))


def _messages(source: Path, chat: Any) -> list[dict]:
    """Every message of a chat in order, each with the time anchor of its batch; DatasetError on bad structure."""
    if not isinstance(chat, list) or not chat:
        raise DatasetError(str(source), "$", f"expected a non-empty array of batches, got {describe(chat)}")
    out: list[dict] = []
    seen: set[int] = set()
    anchor: datetime | None = None
    for b, batch in enumerate(chat):
        turns = batch.get("turns") if isinstance(batch, dict) else None
        if not isinstance(turns, list):
            raise DatasetError(str(source), f"[{b}].turns", f"expected an array of turns, got {describe(turns)}")
        for t, turn in enumerate(turns):
            if not isinstance(turn, list):
                raise DatasetError(
                    str(source), f"[{b}].turns[{t}]", f"expected an array of messages, got {describe(turn)}"
                )
            for m, message in enumerate(turn):
                where = f"[{b}].turns[{t}][{m}]"
                if not isinstance(message, dict):
                    raise DatasetError(str(source), where, f"expected a message object, got {describe(message)}")
                number, role, content = message.get("id"), message.get("role"), message.get("content")
                if not isinstance(number, int) or isinstance(number, bool) or number < 0:
                    raise DatasetError(
                        str(source), f"{where}.id", f"expected a non-negative integer, got {describe(number)}"
                    )
                if number in seen:
                    raise DatasetError(str(source), f"{where}.id", f"message id {number} repeats")
                if role not in ("user", "assistant") or not isinstance(content, str):
                    raise DatasetError(str(source), where, "a message needs role user or assistant and string content")
                if "time_anchor" in message:
                    anchor = parse_anchor(message["time_anchor"])
                    if anchor is None:
                        raise DatasetError(
                            str(source), f"{where}.time_anchor", f"cannot parse {describe(message['time_anchor'])}"
                        )
                seen.add(number)
                out.append({"id": number, "role": role, "content": content, "time": anchor})
    return out


def _documents(messages: list[dict], granularity: str) -> tuple[tuple[LabelledDocument, ...], dict[int, str]]:
    """The store's documents and the document id holding each message id."""
    text = {m["id"]: f"{m['role']}: {m['content']}" for m in messages}
    if granularity == "message":
        docs = tuple(LabelledDocument(str(m["id"]), text[m["id"]], m["time"]) for m in messages)
        return docs, {m["id"]: str(m["id"]) for m in messages}
    docs, unit_of = [], {}
    for i, m in enumerate(messages):
        if m["role"] != "user":
            continue
        reply = messages[i + 1] if i + 1 < len(messages) and messages[i + 1]["role"] == "assistant" else None
        ids = [m["id"]] + ([reply["id"]] if reply else [])
        doc_id = "-".join(str(n) for n in ids)
        docs.append(LabelledDocument(doc_id, "\n".join(text[n] for n in ids), m["time"]))
        unit_of.update({n: doc_id for n in ids})
    return tuple(docs), unit_of


def _flat_ids(source: str, where: str, value: Any) -> list[int]:
    """The message ids in a list that may nest lists; DatasetError for anything else."""
    if isinstance(value, int) and not isinstance(value, bool):
        return [value]
    if isinstance(value, list):
        return [n for v in value for n in _flat_ids(source, where, v)]
    raise DatasetError(source, where, f"expected message ids (integers, or lists of them), got {describe(value)}")


def _gold(
    source: str, where: str, ability: str, item: Any, unit_of: dict[int, str]
) -> tuple[set[str], set[str], list[int]]:
    """The gold documents, (knowledge update) the stale ones, and the gold message ids as written."""
    if not isinstance(item, dict) or not isinstance(item.get("question"), str) or not item["question"].strip():
        raise DatasetError(source, where, "expected a question object with a non-empty string question")
    raw = item.get("source_chat_ids")
    if ability == "abstention":
        return set(), set(), []
    parts = GOLD_PARTS.get(ability)
    if parts is None:
        ids, old = _flat_ids(source, f"{where}.source_chat_ids", raw), []
    else:
        if not isinstance(raw, dict) or not set(parts) <= set(raw):
            raise DatasetError(source, f"{where}.source_chat_ids", f"expected an object with {' and '.join(parts)}")
        ids = [n for p in parts for n in _flat_ids(source, f"{where}.source_chat_ids.{p}", raw[p])]
        old = _flat_ids(source, f"{where}.source_chat_ids.{STALE_PART}", raw.get(STALE_PART, []))
    return {unit_of[n] for n in ids if n in unit_of}, {unit_of[n] for n in old if n in unit_of}, ids


def stale_above_updated(task: Task, rankings: Mapping[str, Ranking], stale: Mapping[str, list[str]]) -> dict:
    """Knowledge updates: how often a stale (original) message ranks above every updated one.

    Per question with gold and a stale message: `stale_first` when the best stale message ranks above the best
    updated one (or the updated one is not ranked at all), `updated_first` otherwise, `neither_ranked` when
    neither appears in the ranking as scored.
    """
    counts = {"questions": 0, "stale_first": 0, "updated_first": 0, "neither_ranked": 0}
    for query in task.queries:
        if query.id not in stale or not query.targets or query.id not in rankings:
            continue
        position = {d: i for i, d in enumerate(rankings[query.id].doc_ids)}
        missing = len(position)
        best_new = min((position.get(d, missing) for d in query.targets), default=missing)
        best_old = min((position.get(d, missing) for d in stale[query.id] if d not in query.targets), default=missing)
        counts["questions"] += 1
        if best_new == missing and best_old == missing:
            counts["neither_ranked"] += 1
        else:
            counts["stale_first" if best_old < best_new else "updated_first"] += 1
    counts["stale_first_share"] = counts["stale_first"] / counts["questions"] if counts["questions"] else None
    return counts
