"""BEIR's qrels/test.tsv read strictly: a `query-id corpus-id score` header, tab-separated integer grades."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from memrecall.data.jsonfile import read_regular_bytes, split_lines
from memrecall.data.text import decode_utf8
from memrecall.errors import DatasetError, near_miss, short

HEADER = ("query-id", "corpus-id", "score")
_GRADE = re.compile(r"[0-9]+")


@dataclass(frozen=True)
class Judgement:
    """One qrels line: a query, a document, an integer grade (0 = judged not relevant), and its line number."""

    query_id: str
    doc_id: str
    grade: int
    line: int


def read_utf8_text(path: Path) -> str:
    """The UTF-8 text of a regular file; a byte order mark is refused (BEIR files carry none)."""
    text = decode_utf8(path, read_regular_bytes(path))
    if text.startswith("\ufeff"):
        raise DatasetError(str(path), "line 1", "starts with a byte order mark (BOM); save it as UTF-8 without one")
    return text


def read_qrels(path: Path, query_ids: set[str], doc_ids: set[str]) -> list[Judgement]:
    """Every judgement of a qrels file, in file order; DatasetError names the line and what is wrong.

    The first line must be BEIR's header. Each line after it is `query-id<TAB>corpus-id<TAB>score`,
    the score a whole number >= 0; ids must be in queries.jsonl and corpus.jsonl; a pair is judged once.
    Blank lines are skipped.
    """
    lines = split_lines(read_utf8_text(path))
    source = str(path)
    if not lines:
        raise DatasetError(source, "", "is empty; expected the header 'query-id<TAB>corpus-id<TAB>score'")
    if tuple(lines[0].split("\t")) != HEADER:
        raise DatasetError(
            source, "line 1", f"expected the header 'query-id<TAB>corpus-id<TAB>score', got {short(repr(lines[0]))}"
        )
    seen: dict[tuple[str, str], int] = {}
    out = []
    for number, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        judgement = _judgement(source, number, line, query_ids, doc_ids)
        pair = (judgement.query_id, judgement.doc_id)
        if pair in seen:
            raise DatasetError(
                source,
                f"line {number}",
                f"query-id {short(repr(pair[0]))} and corpus-id {short(repr(pair[1]))} are judged twice "
                f"(first on line {seen[pair]})",
            )
        seen[pair] = number
        out.append(judgement)
    if not out:
        raise DatasetError(source, "", "holds no judgements after its header")
    return out


def _judgement(source: str, number: int, line: str, query_ids: set[str], doc_ids: set[str]) -> Judgement:
    """One line as a Judgement, checked against the known ids."""
    where = f"line {number}"
    parts = line.split("\t")
    if len(parts) != 3:
        raise DatasetError(
            source, where, f"expected 3 tab-separated columns (query-id, corpus-id, score), got {len(parts)}"
        )
    query_id, doc_id, score = parts
    for name, value in (("query-id", query_id), ("corpus-id", doc_id)):
        if not value or value != value.strip():
            raise DatasetError(source, where, f"{name} {short(repr(value))} is empty or has spaces around it")
    if not _GRADE.fullmatch(score):
        raise DatasetError(source, where, f"score must be a whole number >= 0, got {short(repr(score))}")
    if query_id not in query_ids:
        raise DatasetError(
            source, where, f"query-id {short(repr(query_id))} is not in queries.jsonl{near_miss(query_id, query_ids)}"
        )
    if doc_id not in doc_ids:
        raise DatasetError(
            source, where, f"corpus-id {short(repr(doc_id))} is not in corpus.jsonl{near_miss(doc_id, doc_ids)}"
        )
    return Judgement(query_id, doc_id, int(score), number)
