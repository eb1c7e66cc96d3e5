"""Tell which of memrecall's file formats a file holds, from its first bytes, to say what to run on it."""

from __future__ import annotations

import gzip
import re
import zlib
from pathlib import Path

from memrecall.data.compressed import GZIP_MAGIC

HEAD_BYTES = 65536
NAMES = {
    "epirec": "an EpiRec release",
    "longmemeval": "a LongMemEval file",
    "locomo": "a LoCoMo file",
    "rankings": "a rankings file",
    "report": "a memrecall report",
}
COMMANDS = {
    "epirec": "memrecall baseline --data {path}",
    "longmemeval": "memrecall longmemeval --data {path}",
    "locomo": "memrecall locomo --data {path}",
    "rankings": "memrecall evaluate {path} --benchmark NAME --data DATASET",
    "report": "memrecall report {path}",
}
_KEY = re.compile(r'"([A-Za-z_]+)"\s*:')
_REPORT_START = re.compile(r'\{\s*"content"\s*:\s*\{')  # reports are written with sorted keys: content first
_TREC_LINE = re.compile(r"^\S+\s+\S+\s+\S+\s+-?\d+\s+\S+\s+\S+$")


# What an input file holds, as the commands that read reports or rankings name it.
KINDS = {
    "report": "a memrecall report (JSON)",
    "rankings": "memrecall rankings (JSONL)",
    "trec": "a TREC run",
    "official-log": "an official LongMemEval retrieval log",
    "per-query": "per-query results (JSONL)",
    "epirec": "an EpiRec release",
    "longmemeval": "a LongMemEval file",
    "locomo": "a LoCoMo file",
    "other": "neither a report nor rankings",
}
RANKINGS_KINDS = ("rankings", "trec", "official-log")
_RANKED = {"ranked_episode_ids", "ranked_ids"}
_LME_RECORD = {"haystack_sessions", "haystack_session_ids", "answer_session_ids", "retrieval_results"}


def input_kind(path: Path) -> str:
    """What the file's start holds: one of KINDS; a path that is not a regular file is a DatasetError."""
    from memrecall.data.jsonfile import open_regular

    try:
        with open_regular(path) as handle:
            raw = handle.read(HEAD_BYTES)
            if raw[:2] == GZIP_MAGIC:  # gzip rankings: the kind is in what they inflate to
                handle.seek(0)
                with gzip.GzipFile(fileobj=handle) as stream:
                    raw = stream.read(HEAD_BYTES)
    except (OSError, EOFError, zlib.error):
        return "other"
    head = raw.decode("utf-8", errors="replace").lstrip("\ufeff \t\r\n")
    first_line = head.split("\n", 1)[0].strip()
    if _TREC_LINE.match(first_line):
        return "trec"
    if head.startswith("{") and _is_json_line(first_line):
        return line_kind(_json_line(first_line))
    keys = set(_KEY.findall(head))
    if head.startswith("{"):
        if _REPORT_START.match(head) or ("content" in keys and keys & {"content_sha256", "signatures"}):
            return "report"
        return "epirec" if "personas" in keys else "other"
    if head.startswith("["):
        if {"question_id", "haystack_sessions"} & keys and "question_id" in keys:
            return "longmemeval"
        if {"sample_id", "conversation"} & keys or {"qa", "evidence"} <= keys:
            return "locomo"
    return "other"


def line_kind(obj: object) -> str:
    """The kind of a file whose first line is this JSON value."""
    keys = set(obj) if isinstance(obj, dict) else set()
    if "content" in keys and keys & {"content_sha256", "signatures"}:
        return "report"
    if "question_id" in keys and keys & _LME_RECORD:
        return "official-log"
    if "target_ranks" in keys or "first_target_rank" in keys:
        return "per-query"
    if keys & _RANKED or {"query_id", "store_id"} & keys or {"probe_id", "persona_id"} & keys:
        return "rankings"
    return "other"


def sniff_format(path: Path) -> str | None:
    """epirec, longmemeval, locomo, rankings or report when the file's start looks like one; None otherwise."""
    from memrecall.errors import DatasetError

    try:
        kind = input_kind(path)
    except DatasetError:
        return None
    kind = "rankings" if kind in ("rankings", "trec") else kind
    return kind if kind in NAMES else None


def refuse_kinds(inputs: list[tuple[str, Path]], kinds: list[str], expected: tuple[str, ...], wanted: str) -> None:
    """A UsageError naming every input's kind when one of `kinds` (one per input) is another known kind.

    A file of no known kind passes: the strict reader of the expected kind names its first bad line.
    """
    from memrecall.errors import UsageError, short

    if all(kind in expected or kind == "other" for kind in kinds):
        return
    said = "; ".join(
        f"{label}{short(str(path))} is {KINDS[kind]}" for (label, path), kind in zip(inputs, kinds, strict=True)
    )
    raise UsageError(f"{said}: expected {wanted}")


def check_inputs(label: str, paths, expected: tuple[str, ...], wanted: str) -> None:
    """Refuse, naming each file's kind, files given as `label` that are not all of an `expected` kind."""
    inputs = [(f"{label} ", Path(path)) for path in paths]
    refuse_kinds(inputs, [input_kind(path) for _, path in inputs], expected, wanted)


REPORTS = "memrecall reports (JSON)"


def rankings_kinds(benchmark: str) -> tuple[tuple[str, ...], str]:
    """The input kinds a benchmark's rankings may come in, and how to say so."""
    if benchmark.startswith("longmemeval"):
        return RANKINGS_KINDS, "rankings (memrecall JSONL, a TREC run or an official LongMemEval retrieval log)"
    return RANKINGS_KINDS[:2], "rankings (memrecall JSONL or a TREC run)"


def _json_line(line: str) -> object:
    """`line` parsed as JSON (nesting bounded, duplicate keys refused), or None when it does not parse."""
    from memrecall.data.jsonfile import loads_strict

    try:
        return loads_strict(line)
    except ValueError:
        return None


def _is_json_line(line: str) -> bool:
    """True when `line` alone is a complete JSON object."""
    return isinstance(_json_line(line), dict)


def wrong_format_hint(path: Path, expected: str) -> str | None:
    """'this looks like a LoCoMo file; use `memrecall locomo --data FILE`' when the file is another format."""
    found = sniff_format(path)
    if found is None or found == expected:
        return None
    return f"this looks like {NAMES[found]}, not {NAMES[expected]}; use `{COMMANDS[found].format(path=path)}`"
