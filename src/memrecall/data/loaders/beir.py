"""Load a folder in BEIR's layout (corpus.jsonl, queries.jsonl, qrels/test.tsv) into a Task.

Without `store_id` the corpus is one store that every query is asked of (BEIR's own setting). With a
`store_id` on every corpus and query line there is one store per user (the agent-memory protocol),
and every document a query's judgements name must be in the query's own store.

A corpus line is `{"_id", "text", "title"?, "store_id"?, "timestamp"?, "metadata"?}`; a document's text
is its title and text on two lines (the text alone when the title is empty or missing). A query line is
`{"_id", "text", "store_id"?, "time"?, "metadata"?}`. Times are ISO 8601; one without a zone is read as UTC.
Grades above 0 make a document a target; the grades themselves stay on the scorer's side.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from types import MappingProxyType
from typing import Any

from memrecall.data.jsonfile import (
    DuplicateKey,
    describe,
    describe_file_type,
    file_sha256,
    line_start,
    loads_strict,
    split_lines,
    syntax_error,
)
from memrecall.data.loaders.beir_qrels import read_qrels, read_utf8_text
from memrecall.data.model import JudgedQuery, LabelledDocument, Task
from memrecall.errors import DatasetError, near_miss, short

FILES = ("corpus.jsonl", "queries.jsonl", "qrels/test.tsv")
SINGLE_STORE = "corpus"
_CORPUS_KEYS = ("_id", "text", "title", "store_id", "timestamp", "metadata")
_QUERY_KEYS = ("_id", "text", "store_id", "time", "metadata")


def beir_files(folder: Path) -> tuple[Path, Path, Path]:
    """The three files of a BEIR folder; DatasetError names the folder or the first file it lacks."""
    if not folder.exists():
        raise DatasetError(str(folder), "", "does not exist")
    if not folder.is_dir():
        raise DatasetError(str(folder), "", "is a file; give the folder holding " + ", ".join(FILES))
    paths = tuple(folder / name for name in FILES)
    for path in paths:
        if not path.exists():
            raise DatasetError(str(path), "", f"is missing; a BEIR folder holds {', '.join(FILES)}")
        kind = describe_file_type(path.stat().st_mode)
        if kind is not None:
            raise DatasetError(str(path), "", f"is {kind}, not a regular file; memrecall reads only regular files")
    return paths  # type: ignore[return-value]


def load_beir(folder: Path) -> tuple[Task, dict[str, Any]]:
    """The Task of a BEIR folder and the facts reports record under `dataset`."""
    corpus_path, queries_path, qrels_path = beir_files(folder)
    corpus = list(_records(corpus_path, _CORPUS_KEYS, "timestamp"))
    queries = list(_records(queries_path, _QUERY_KEYS, "time"))
    per_user = _per_user(corpus_path, corpus, queries_path, queries)
    stores: dict[str, list[LabelledDocument]] = {}
    store_of_doc: dict[str, str] = {}
    for _, record in corpus:
        store = record.get("store_id", SINGLE_STORE)
        stores.setdefault(store, []).append(LabelledDocument(record["_id"], _text(record), record.get("timestamp")))
        store_of_doc[record["_id"]] = store
    query_store = {}
    for number, record in queries:
        store = record.get("store_id", SINGLE_STORE)
        if store not in stores:
            raise DatasetError(
                str(queries_path),
                f"line {number}",
                f"query {short(repr(record['_id']))} asks store_id {short(repr(store))}, which has no documents in "
                f"corpus.jsonl{near_miss(store, stores)}",
            )
        query_store[record["_id"]] = store
    grades: dict[str, dict[str, int]] = {qid: {} for qid in query_store}
    judgements = read_qrels(qrels_path, set(query_store), set(store_of_doc))
    for judgement in judgements:
        asked, held = query_store[judgement.query_id], store_of_doc[judgement.doc_id]
        if asked != held:
            raise DatasetError(
                str(qrels_path),
                f"line {judgement.line}",
                f"corpus-id {short(repr(judgement.doc_id))} is in store {short(repr(held))} but query "
                f"{short(repr(judgement.query_id))} asks store {short(repr(asked))}; a query's judged documents "
                "must be in its own store",
            )
        grades[judgement.query_id][judgement.doc_id] = judgement.grade
    judged = [
        JudgedQuery(
            record["_id"],
            query_store[record["_id"]],
            record["text"],
            record.get("time"),
            frozenset(d for d, g in grades[record["_id"]].items() if g > 0),
            grades=MappingProxyType({d: g for d, g in sorted(grades[record["_id"]].items()) if g > 0}),
        )
        for _, record in queries
    ]
    task = Task(
        "beir",
        folder.resolve().name,
        _folder_sha256(corpus_path, queries_path, qrels_path),
        MappingProxyType({sid: tuple(docs) for sid, docs in stores.items()}),
        tuple(judged),
    )
    dataset = {
        "family": "beir",
        "folder": folder.resolve().name,
        "stores": "one per store_id" if per_user else "one",
        "judgements": len(judgements),
        "judged_not_relevant": sum(1 for j in judgements if j.grade == 0),
        "graded": any(j.grade > 1 for j in judgements),
    }
    return task, dataset


def _records(path: Path, allowed: tuple[str, ...], time_key: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, checked record) of each non-blank line; ids unique, times parsed."""
    source = str(path)
    seen: dict[str, int] = {}
    found = False
    text = read_utf8_text(path)
    for number, line in enumerate(split_lines(text), start=1):
        if not line.strip():
            continue
        where = f"line {number}"
        try:
            record = loads_strict(line)
        except json.JSONDecodeError as exc:
            raise syntax_error(source, exc, number, line_start(text, number)) from None
        except DuplicateKey as exc:
            raise DatasetError(source, where, str(exc)) from None
        if not isinstance(record, dict):
            raise DatasetError(source, where, f"expected a JSON object, got {describe(record)}")
        unknown = [key for key in record if key not in allowed]
        if unknown:
            raise DatasetError(
                source, where, f"unexpected field {short(repr(unknown[0]))}; a line holds {', '.join(allowed)}"
            )
        for key in ("_id", "text"):
            if key not in record:
                raise DatasetError(source, where, f"missing field {key!r}")
        for key in ("_id", "text", "title", "store_id"):
            if key in record and not isinstance(record[key], str):
                raise DatasetError(source, where, f"{key} must be a string, got {describe(record[key])}")
        for key in ("_id", "store_id"):
            if key in record and (not record[key] or record[key] != record[key].strip()):
                raise DatasetError(source, where, f"{key} {short(repr(record[key]))} is empty or has spaces around it")
        if record["_id"] in seen:
            raise DatasetError(
                source, where, f"duplicate _id {short(repr(record['_id']))} (first on line {seen[record['_id']]})"
            )
        seen[record["_id"]] = number
        if time_key in record:
            record[time_key] = _time(source, where, time_key, record[time_key])
        found = True
        yield number, record
    if not found:
        raise DatasetError(source, "", "holds no lines; expected one JSON object per line")


def _per_user(corpus_path: Path, corpus: list, queries_path: Path, queries: list) -> bool:
    """True when every line names its store_id, False when none does; DatasetError for the first line that breaks it."""
    per_user = "store_id" in corpus[0][1]
    first = f"{corpus_path}:{corpus[0][0]}"
    for path, records in ((corpus_path, corpus), (queries_path, queries)):
        for number, record in records:
            if ("store_id" in record) != per_user:
                has = "has no store_id" if per_user else "has a store_id"
                other = "has one" if per_user else "has none"
                raise DatasetError(
                    str(path),
                    f"line {number}",
                    f"{has} but {first} {other}; give every corpus and query line a store_id, or none",
                )
    return per_user


def _time(source: str, where: str, key: str, value: Any) -> datetime:
    """An ISO 8601 string as an aware datetime (UTC when it names no zone)."""
    if not isinstance(value, str):
        raise DatasetError(source, where, f"{key} must be an ISO 8601 string, got {describe(value)}")
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        raise DatasetError(
            source, where, f"{key} {short(repr(value))} is not an ISO 8601 time such as 2024-05-01T09:30:00Z"
        ) from None
    return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)


def _text(record: dict[str, Any]) -> str:
    """Title and text on two lines, or the text alone when there is no title."""
    title = record.get("title") or ""
    return f"{title}\n{record['text']}" if title else record["text"]


def _folder_sha256(*paths: Path) -> str:
    """sha256 over each file's name and the sha256 of its bytes, in BEIR's file order."""
    digest = hashlib.sha256()
    for path, name in zip(paths, FILES, strict=True):
        digest.update(f"{name}\t{file_sha256(path)}\n".encode())
    return digest.hexdigest()
