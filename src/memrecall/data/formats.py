"""Tell which of memrecall's file formats a file holds, from its first bytes, to say what to run on it."""

from __future__ import annotations

import json
import re
from pathlib import Path

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
_TREC_LINE = re.compile(r"^\S+\s+\S+\s+\S+\s+-?\d+\s+\S+\s+\S+$")


def sniff_format(path: Path) -> str | None:
    """epirec, longmemeval, locomo, rankings or report when the file's start looks like one; None otherwise."""
    from memrecall.data.jsonfile import open_regular
    from memrecall.errors import DatasetError

    try:
        with open_regular(path) as handle:
            head = handle.read(HEAD_BYTES).decode("utf-8", errors="replace").lstrip("\ufeff \t\r\n")
    except (OSError, DatasetError):
        return None
    first_line = head.split("\n", 1)[0].strip()
    if _TREC_LINE.match(first_line):
        return "rankings"
    keys = set(_KEY.findall(head))
    if head.startswith("{") and _is_json_line(first_line) and len(head.strip().split("\n")) > 1:
        return "rankings" if keys & {"ranked_episode_ids", "ranked_ids"} else None
    if head.startswith("{"):
        if {"content", "signature"} <= keys:
            return "report"
        if "personas" in keys:
            return "epirec"
        return "rankings" if keys & {"ranked_episode_ids", "ranked_ids"} else None
    if head.startswith("["):
        if {"question_id", "haystack_sessions"} & keys and "question_id" in keys:
            return "longmemeval"
        if {"sample_id", "conversation"} & keys or {"qa", "evidence"} <= keys:
            return "locomo"
    return None


def _is_json_line(line: str) -> bool:
    """True when `line` alone is a complete JSON object."""
    try:
        return isinstance(json.loads(line), dict)
    except ValueError:
        return False


def wrong_format_hint(path: Path, expected: str) -> str | None:
    """'this looks like a LoCoMo file; use `memrecall locomo --data FILE`' when the file is another format."""
    found = sniff_format(path)
    if found is None or found == expected:
        return None
    return f"this looks like {NAMES[found]}, not {NAMES[expected]}; use `{COMMANDS[found].format(path=path)}`"
