"""What every loaded Task must be before any work starts: something to score, and text every writer can write."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping

from memrecall.data.model import Task
from memrecall.errors import DatasetError, short

_SURROGATE = re.compile("[\ud800-\udfff]")


def check_task(task: Task, source: str) -> Task:
    """The task itself, or a DatasetError naming the record: no query, an empty store or query text, or a text
    that is not encodable as UTF-8 (a lone surrogate such as \\ud800, which JSON's \\u escapes can spell)."""
    if not task.queries:
        raise DatasetError(source, "", "holds no queries; there is nothing to score")
    for store_id, documents in task.stores.items():
        if not documents:
            raise DatasetError(source, f"store {short(repr(store_id))}", "holds no documents")
    for query in task.queries:
        if not query.text.strip():
            raise DatasetError(source, f"query {short(repr(query.id))}", "the query text is empty")
    for where, text in _texts(task):
        found = _SURROGATE.search(text) if not text.isascii() else None
        if found is not None:
            raise DatasetError(
                source,
                where,
                f"holds the lone surrogate {found.group()!r} at character {found.start()}, which is not encodable "
                "as UTF-8; a character outside the BMP is written as a surrogate pair",
            )
    return task


def _texts(task: Task) -> Iterator[tuple[str, str]]:
    """Every string of a task with where it is: ids, texts, labels and strata."""
    for store_id, documents in task.stores.items():
        yield f"store {short(repr(store_id))}", store_id
        for document in documents:
            where = f"store {short(repr(store_id))}: document {short(repr(document.id))}"
            yield where, document.id
            yield f"{where}: text", document.text
            yield from _pairs(f"{where}: labels", document.labels)
    for query in task.queries:
        where = f"query {short(repr(query.id))}"
        yield where, query.id
        yield f"{where}: text", query.text
        yield from ((f"{where}: targets", target) for target in query.targets)
        yield from _pairs(f"{where}: strata", query.strata)


def _pairs(where: str, mapping: Mapping[str, object]) -> Iterator[tuple[str, str]]:
    """The keys and string values of a labels or strata mapping."""
    for key, value in mapping.items():
        yield where, key
        if isinstance(value, str):
            yield f"{where}.{short(key)}", value
