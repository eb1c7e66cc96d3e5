"""Atomic, deterministic file writes."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any


def atomic_write_bytes(path: str | Path, data: bytes) -> None:
    """Write bytes to a temp file beside `path`, then rename it into place."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.chmod(temp, 0o666 & ~_umask())
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def _umask() -> int:
    """The process umask (mkstemp creates files 0600; outputs should get the usual mode)."""
    current = os.umask(0)
    os.umask(current)
    return current


def atomic_write_text(path: str | Path, text: str) -> None:
    """Write UTF-8 text with LF line ends atomically (temp file beside `path`, then rename)."""
    atomic_write_bytes(path, text.encode("utf-8"))


def pretty_json(obj: Any) -> str:
    """JSON with sorted keys, 2-space indent, non-ASCII kept, and a trailing newline."""
    return json.dumps(obj, sort_keys=True, indent=2, ensure_ascii=False) + "\n"


def canonical_json(obj: Any) -> str:
    """JSON with sorted keys and no spaces: the form that gets hashed."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def write_json(path: str | Path, obj: Any) -> None:
    """Atomically write `obj` as pretty, sorted JSON."""
    atomic_write_text(path, pretty_json(obj))


def write_jsonl(path: str | Path, rows: list[dict]) -> None:
    """Atomically write one canonical JSON object per line."""
    atomic_write_text(path, "".join(canonical_json(r) + "\n" for r in rows))
