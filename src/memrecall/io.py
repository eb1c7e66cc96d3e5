"""Atomic, deterministic file writes."""

from __future__ import annotations

import json
import os
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any

STALE_TEMP_SECONDS = 60.0
_staged: ContextVar[list[tuple[str, Path]] | None] = ContextVar("staged_writes", default=None)


@contextmanager
def output_batch() -> Iterator[None]:
    """Stage every atomic write inside as a temp file; rename them all into place at the end, or none on error.

    A deliberate exit (SystemExit, e.g. a coverage verdict after the report is complete) still lands
    the outputs; any other exception, Ctrl-C included, removes the staged files.
    """
    if _staged.get() is not None:
        yield
        return
    staged: list[tuple[str, Path]] = []
    token = _staged.set(staged)
    try:
        yield
    except SystemExit:
        _commit(staged)
        raise
    except BaseException:
        for temp, _ in staged:
            Path(temp).unlink(missing_ok=True)
        raise
    else:
        _commit(staged)
    finally:
        _staged.reset(token)


def _commit(staged: list[tuple[str, Path]]) -> None:
    """Rename staged temp files into place, in the order they were written."""
    for temp, path in staged:
        os.replace(temp, path)
    staged.clear()


def remove_stale_temps(path: Path) -> None:
    """Delete `.<name>.*.tmp` leftovers of earlier interrupted writes of `path` (older than a minute)."""
    cutoff = time.time() - STALE_TEMP_SECONDS
    for temp in path.parent.glob(f".{path.name}.*.tmp"):
        try:
            if temp.stat().st_mtime < cutoff:
                temp.unlink()
        except OSError:
            continue


@contextmanager
def _atomic_file(path: str | Path, mode: str, **options: Any) -> Iterator[Any]:
    """A handle on a temp file beside `path`; on a clean close it is renamed into place (or staged in a batch)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_temps(path)
    handle, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(handle, mode, **options) as out:
            yield out
        os.chmod(temp, 0o666 & ~_umask())
        staged = _staged.get()
        if staged is None:
            os.replace(temp, path)
        else:
            staged.append((temp, path))
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def atomic_write_bytes(path: str | Path, data: bytes) -> None:
    """Write bytes to a temp file beside `path`, then rename it into place (at the end of an output batch)."""
    with _atomic_file(path, "wb") as out:
        out.write(data)


def atomic_text_writer(path: str | Path):
    """A UTF-8 text handle (LF line ends) on a temp file beside `path`, renamed into place when it closes."""
    return _atomic_file(path, "w", encoding="utf-8", newline="\n")


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
