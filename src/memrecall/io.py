"""Atomic, deterministic file writes: all of a command's outputs land, or none, and a failed write leaves nothing."""

from __future__ import annotations

import errno
import json
import os
import re
import sys
import tempfile
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any

STALE_TEMP_SECONDS = 60.0
_staged: ContextVar[list[tuple[str, Path]] | None] = ContextVar("staged_writes", default=None)
_created: ContextVar[list[Path] | None] = ContextVar("created_folders", default=None)
_announced: ContextVar[list[str] | None] = ContextVar("announced_lines", default=None)
# Code points str.splitlines() ends a line at that json.dumps(ensure_ascii=False) leaves raw.
_LINE_BREAKS = {"\x85": "\\u0085", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def write_failure(path: str | Path, exc: OSError) -> OSError:
    """The OSError of a failed write, re-raised naming the output `path` (the CLI makes it one line)."""
    return type(exc)(exc.errno or errno.EIO, exc.strerror or str(exc), str(path))


class Batch:
    """One command's outputs: `complete` turns true once every staged file is in place."""

    def __init__(self) -> None:
        self.complete = False
        self.written: list[Path] = []


@contextmanager
def output_batch() -> Iterator[Batch]:
    """Stage every atomic write inside as a temp file; rename them all into place at the end, or none on error.

    A deliberate exit (SystemExit, e.g. a coverage verdict after the report is complete) still lands
    the outputs; any other exception, Ctrl-C included, removes the staged files. Lines given to
    `announce` are printed (and flushed) only once every file is written and staged, just before the
    renames: a failed write never had its file announced, and a failed stdout still lands nothing.
    """
    batch = Batch()
    if _staged.get() is not None:
        yield batch
        return
    staged: list[tuple[str, Path]] = []
    created: list[Path] = []
    announced: list[str] = []
    token, folders, lines = _staged.set(staged), _created.set(created), _announced.set(announced)
    deliberate: SystemExit | None = None
    try:
        try:
            try:
                yield batch
            except SystemExit as exc:
                deliberate = exc
            for line in announced:
                sys.stdout.write(line + "\n")
            sys.stdout.flush()
        except BaseException:
            _discard(staged, created)
            raise
        batch.written = [path for _, path in staged]
        _commit(staged, created)
        batch.complete = True
        if deliberate is not None:
            raise deliberate
    finally:
        _staged.reset(token)
        _created.reset(folders)
        _announced.reset(lines)


def announce(line: str) -> None:
    """Print a line that says a file was written: at once outside a batch, else once every file of it is written."""
    pending = _announced.get()
    if pending is None:
        sys.stdout.write(line + "\n")
    else:
        pending.append(line)


def _discard(staged: list[tuple[str, Path]], created: list[Path]) -> None:
    """Remove staged temp files, then the folders this batch created that are now empty (deepest first)."""
    for temp, _ in staged:
        Path(temp).unlink(missing_ok=True)
    staged.clear()
    for folder in sorted(created, key=lambda p: len(p.parts), reverse=True):
        try:
            folder.rmdir()
        except OSError:
            continue
    created.clear()


def _commit(staged: list[tuple[str, Path]], created: list[Path]) -> None:
    """Rename staged temp files into place, in the order they were written; on a failure remove the rest."""
    for index, (temp, path) in enumerate(staged):
        try:
            os.replace(temp, path)
        except OSError as exc:
            _discard(staged[index:], created)
            raise write_failure(path, exc) from None
    staged.clear()


def _make_parents(folder: Path) -> list[Path]:
    """Create `folder` and its missing ancestors; the ones created, top first (to remove on failure)."""
    missing = [p for p in [folder, *folder.parents] if not p.exists()][::-1]
    for path in missing:
        try:
            path.mkdir()
        except FileExistsError:
            continue
    return missing


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
    batch = _created.get()
    try:
        made = _make_parents(path.parent)
    except OSError as exc:
        raise write_failure(path, exc) from None
    created = batch if batch is not None else []
    created.extend(made)
    remove_stale_temps(path)
    try:
        handle, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as exc:
        _discard([], created if batch is None else [])
        raise write_failure(path, exc) from None
    try:
        with os.fdopen(handle, mode, **options) as out:
            yield out
        os.chmod(temp, 0o666 & ~_umask())
        staged = _staged.get()
        if staged is None:
            os.replace(temp, path)
        else:
            staged.append((temp, path))
    except OSError as exc:
        _discard([(temp, path)], created if batch is None else [])
        raise write_failure(path, exc) from None
    except BaseException:
        _discard([(temp, path)], created if batch is None else [])
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
    """Atomically write `obj` as pretty, sorted JSON; gzip-compressed (deflated) for a .gz path."""
    _write_maybe_deflated(path, pretty_json(obj))


def write_json_line(path: str | Path, obj: Any) -> None:
    """Atomically write `obj` as one canonical JSON line (jsonl_line), gzip-compressed (deflated) for a .gz path:
    the leaderboard's stored reports."""
    _write_maybe_deflated(path, jsonl_line(obj) + "\n")


def _write_maybe_deflated(path: str | Path, text: str) -> None:
    """Atomically write UTF-8 text, as deflated gzip bytes when the path ends in .gz."""
    data = text.encode("utf-8")
    atomic_write_bytes(path, deflated(data) if str(path).endswith(".gz") else data)


def jsonl_line(obj: Any, compact: bool = True) -> str:
    """One JSON-lines line (no newline): canonical JSON with U+0085, U+2028 and U+2029 escaped.

    json.dumps already escapes every control character (\\n, \\r, \\f, ...); these three it leaves
    raw, and a reader that splits with str.splitlines() would end the line there. Escaping them
    changes no value, so text without them gives exactly canonical_json's bytes (`compact=False`:
    json.dumps's default separators, as LongMemEval's own logs have them).
    """
    separators = (",", ":") if compact else (", ", ": ")
    text = json.dumps(obj, sort_keys=True, separators=separators, ensure_ascii=False)
    for raw, escaped in _LINE_BREAKS.items():
        if raw in text:
            text = text.replace(raw, escaped)
    return text


def write_jsonl(path: str | Path, rows: list[dict]) -> None:
    """Atomically write one canonical JSON object per line (line-break code points escaped); gzip for a .gz path."""
    _write_maybe_deflated(path, "".join(jsonl_line(r) + "\n" for r in rows))


GZIP_LEVEL = 9


def deflated(data: bytes) -> bytes:
    """gzip bytes of `data` that depend on nothing but `data`: mtime 0, level 9, no file name."""
    import gzip

    return gzip.compress(data, compresslevel=GZIP_LEVEL, mtime=0)


# A spreadsheet reads a cell that begins with one of these as a formula (CSV injection, OWASP).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
_NUMERAL = re.compile(r"[-+]?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?")


def csv_cell(value: Any) -> Any:
    """A CSV cell that no spreadsheet runs: text beginning with = + - @ tab or CR gets a leading apostrophe.

    Only text cells: numbers (and text that is a plain numeral, such as '-0.0123') are left as they are.
    """
    if isinstance(value, str) and value.startswith(FORMULA_STARTS) and not _NUMERAL.fullmatch(value):
        return "'" + value
    return value


def csv_text(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    """A CSV table: RFC 4180 quoting by the csv module, LF line ends, every cell through csv_cell.

    Rows are written with CRLF so that the csv module quotes a cell holding a bare CR (with LF it leaves
    it raw and the row breaks), then each row's own CRLF becomes LF.
    """
    import csv
    import io

    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    lines = []
    for row in [header, *rows]:
        buffer.seek(0)
        buffer.truncate()
        writer.writerow([csv_cell(c) for c in row])
        lines.append(buffer.getvalue()[:-2] + "\n")
    return "".join(lines)
