"""TREC run lines read as trec_eval reads them: fields split on C whitespace, scores by strtod's syntax."""

from __future__ import annotations

import math
import re
from collections.abc import Callable

SPACE = re.compile(r"[ \t\v\f\r]+")  # C isspace() in the C locale, as trec_eval splits fields
_STRTOD = re.compile(
    r"[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?"
    r"|0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)(?:[pP][+-]?\d+)?"
    r"|[iI][nN][fF](?:[iI][nN][iI][tT][yY])?|[nN][aA][nN](?:\([0-9A-Za-z_]*\))?)",
    re.ASCII,  # \d is 0-9 only, as in C: never another script's digits
)
_RANK = re.compile(r"[+-]?[0-9]+")


def fields(line: str) -> list[str]:
    """The whitespace-separated fields of a run line (ASCII whitespace only, never U+00A0 or U+2028)."""
    return [part for part in SPACE.split(line) if part]


def parse_trec_score(text: str) -> float | None:
    """A TREC run score as trec_eval reads it (C strtod/atof), or None when it is not one whole number.

    strtod reads the longest prefix that is a number and trec_eval ignores the rest, so `1_0` is 1
    there while Python's float() reads 10. memrecall accepts exactly strtod's syntax (decimal,
    exponent, hexadecimal such as 0x1p3, inf, nan) and refuses a field of which strtod would read
    only a prefix, rather than guess; the message says what trec_eval would have read.
    """
    if _STRTOD.fullmatch(text) is None:
        return None
    return float.fromhex(text) if "x" in text.lower() else float(text.split("(")[0])


def strtod_prefix(text: str) -> str:
    """The prefix of `text` that C strtod would read as a number ('' when none)."""
    match = _STRTOD.match(text)
    return match.group(0) if match else ""


def group_run_lines(
    lines: list[str], too_long: Callable[[str, int], str | None]
) -> tuple[dict[str, list[tuple[float, str, int]]], list[str]]:
    """(score, docid, line) entries by qid, and the problems of the lines that are not run lines.

    `too_long(qid, count)` names a qid with more lines than its store has documents; it is refused
    at the first line too many and its lines are no longer kept.
    """
    grouped: dict[str, list[tuple[float, str, int]]] = {}
    over: set[str] = set()
    problems = []
    for number, raw in enumerate(lines, start=1):
        parts = fields(raw)
        if not parts:
            continue
        if len(parts) != 6:
            problems.append(f"line {number}: expected 6 fields 'qid Q0 docid rank score tag', got {len(parts)}")
            continue
        qid, _, docid, rank, score, _ = parts
        if qid in over:
            continue
        problem = _number_problem(rank, score)
        if problem:
            problems.append(f"line {number}: {problem}")
            continue
        entries = grouped.setdefault(qid, [])
        entries.append((float(parse_trec_score(score)), docid, number))  # type: ignore[arg-type]
        problem = too_long(qid, len(entries))
        if problem:
            problems.append(f"line {number}: {problem}")
            over.add(qid)
            del grouped[qid]
    return grouped, problems


def _number_problem(rank: str, score: str) -> str | None:
    """What is wrong with a line's rank and score fields, or None."""
    if not _RANK.fullmatch(rank):
        return f"rank must be an integer, got {_cut(repr(rank))}"
    value = parse_trec_score(score)
    if value is None:
        prefix = strtod_prefix(score)
        read = f"trec_eval would read only {prefix!r}" if prefix else "trec_eval would read it as 0"
        return f"score {_cut(repr(score))} is not a number ({read}); write the number in full"
    if not math.isfinite(value):
        return f"score must be a finite number, got {_cut(score)}"
    return None


def _cut(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else f"{text[: limit - 3]}... ({len(text)} characters)"
