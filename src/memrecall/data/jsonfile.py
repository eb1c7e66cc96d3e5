"""Shared helpers for loaders: only regular files, strict JSON (no duplicate keys), located errors."""

from __future__ import annotations

import hashlib
import json
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from memrecall.data import limits
from memrecall.data.compressed import inflated
from memrecall.data.limits import MAX_JSON_DEPTH
from memrecall.data.nesting import check_depth, depth_limited, position, too_deep_offset, too_deep_problem
from memrecall.data.text import decode_utf8, lone_surrogate_escape, lone_surrogate_problem
from memrecall.errors import DatasetError, short

_ID_KEYS = ("question_id", "sample_id", "query_id", "probe_id", "persona_id", "id", "dia_id", "corpus_id")


class DuplicateKey(ValueError):
    """A JSON object names the same key twice; carries the key and the object's id when it has one."""

    def __init__(self, key: str, owner: str) -> None:
        self.key, self.owner = key, owner
        super().__init__(f"duplicate key {short(repr(key))}{owner}: JSON objects must not repeat a key")


def key_owner(pairs: list[tuple[str, Any]]) -> str:
    """` in the object with question_id 'q1'`, or `` when the object has no id-like string field."""
    for key, value in pairs:
        if key in _ID_KEYS and isinstance(value, str):
            return f" in the object with {key} {short(repr(value))}"
    return ""


def unique_pairs(pairs: list[tuple[str, Any]]) -> dict:
    """json object_pairs_hook: a dict, or DuplicateKey when a key repeats (never last-wins)."""
    out: dict = {}
    for key, value in pairs:
        if key in out:
            raise DuplicateKey(key, key_owner(pairs))
        out[key] = value
    return out


class TooDeep(json.JSONDecodeError):
    """JSON nested deeper than MAX_JSON_DEPTH, refused before it was parsed (at the bracket one level too deep)."""


def loads_strict(text: str) -> Any:
    """json.loads that refuses duplicate keys (DuplicateKey), nesting past MAX_JSON_DEPTH (TooDeep) and otherwise
    raises json.JSONDecodeError."""
    if text.count("[") + text.count("{") > MAX_JSON_DEPTH:
        data = text.encode("utf-8", "surrogatepass")
        offset = too_deep_offset(data)
        if offset is not None:
            raise TooDeep(too_deep_problem(), text, len(data[:offset].decode("utf-8", "surrogatepass")))
    return json.loads(text, object_pairs_hook=unique_pairs)


TRUNCATED = "the text ends inside a value; it looks truncated"


def syntax_problem(exc: json.JSONDecodeError, start: int = 0) -> tuple[str, str]:
    """Where a JSON text fails to parse (column and byte offset) and what is wrong, saying when it looks cut off.

    `start` is the byte offset the text starts at in its file (a JSON line's).
    """
    doc, pos = exc.doc, exc.pos
    where = f"column {exc.colno} (byte {start + len(doc[:pos].encode('utf-8', 'surrogatepass'))})"
    if isinstance(exc, TooDeep):
        return where, exc.msg
    message = exc.msg.removesuffix(" starting at")  # Python's json puts the position after these words
    if doc[pos : pos + 1] in ("]", "}") and doc[:pos].rstrip().endswith(","):
        message += f"; a comma before '{doc[pos]}' leaves a value missing (a trailing comma)"
    if not doc[pos:].strip() or message == "Unterminated string":  # the string runs to the end
        message += f"; {TRUNCATED}"
    return where, f"invalid JSON: {message}"


def line_problem(number: int, exc: json.JSONDecodeError) -> str:
    """`line N column C: invalid JSON: ...`, one JSON line's entry among a rankings file's problems."""
    where, problem = syntax_problem(exc)
    return f"line {number} {where.split(' (')[0]}: {problem}"


def syntax_error(source: str, exc: json.JSONDecodeError, line: int | None = None, start: int = 0) -> DatasetError:
    """The one-line DatasetError of a JSON text (or of JSON line `line` starting at byte `start`) that does not
    parse."""
    where, problem = syntax_problem(exc, start)
    return DatasetError(source, f"line {line if line is not None else exc.lineno} {where}", problem)


def describe_file_type(mode: int) -> str | None:
    """What a non-regular file is ('a FIFO (named pipe)', 'a folder', ...); None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    for test, name in (
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISFIFO, "a FIFO (named pipe)"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return name
    return "not a regular file"


def open_regular(path: str | Path) -> IO[bytes]:
    """Open a regular file for reading in binary; a FIFO, device, socket or folder is refused at once.

    The file is opened with O_NONBLOCK and checked with fstat, so a FIFO with no writer never blocks.
    """
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except IsADirectoryError:
        raise DatasetError(str(path), "", "is a folder, not a regular file; give the file itself") from None
    except OSError as exc:
        raise DatasetError(str(path), "", f"cannot read file ({exc.strerror or exc})") from None
    kind = describe_file_type(os.fstat(fd).st_mode)
    if kind is not None:
        os.close(fd)
        raise DatasetError(str(path), "", f"is {kind}, not a regular file; memrecall reads only regular files")
    if hasattr(os, "set_blocking"):
        os.set_blocking(fd, True)
    return os.fdopen(fd, "rb")


def too_big(size: int) -> str:
    """The refusal of a file larger than MAX_INPUT_BYTES."""
    return (
        f"is {size:,} bytes; memrecall reads input files of at most {limits.MAX_INPUT_BYTES:,} bytes "
        "(MAX_INPUT_BYTES) and read none of it"
    )


def read_regular_bytes(path: str | Path) -> bytes:
    """The bytes of a regular file of at most MAX_INPUT_BYTES (DatasetError for anything else, for a larger
    file before any of it is read, or when it cannot be read)."""
    cap = limits.MAX_INPUT_BYTES
    with open_regular(path) as handle:
        size = os.fstat(handle.fileno()).st_size
        if size > cap:
            raise DatasetError(str(path), "", too_big(size))
        try:
            data = handle.read(cap + 1)  # a file that grows while it is read is still cut at the cap
        except OSError as exc:
            raise DatasetError(str(path), "", f"cannot read file ({exc.strerror or exc})") from None
    if len(data) > cap:
        raise DatasetError(str(path), "", too_big(len(data)))
    return data


def file_sha256(path: Path) -> str:
    """Hex sha256 of a regular file's bytes, read in chunks."""
    digest = hashlib.sha256()
    with open_regular(path) as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def read_regular_text(path: str | Path, bom_ok: bool = False) -> str:
    """The UTF-8 text of a regular file; DatasetError for a FIFO, device, folder, unreadable or non-UTF-8 file."""
    return decode_utf8(path, read_regular_bytes(path), bom_ok)


def read_csv_rows(path: str | Path) -> list[dict[str, str]]:
    """The rows of a CSV file with a header line, as UTF-8 with or without a byte-order mark."""
    import csv
    import io

    return list(csv.DictReader(io.StringIO(read_regular_text(path, bom_ok=True), newline="")))


def read_json(path: Path) -> Any:
    """Parse a JSON file, plain or gzip, strictly (duplicate keys refused, nesting bounded); DatasetError with line
    and byte (of the inflated text for gzip).

    The file's bytes are capped at MAX_INPUT_BYTES before they are read; gzip is inflated by data.compressed.inflated,
    which stops at MAX_INPUT_BYTES and MAX_GZIP_RATIO of output; nesting and lone surrogates are checked on what
    the JSON text is.
    """
    data = inflated(path, read_regular_bytes(path))
    check_depth(str(path), data)
    found = lone_surrogate_escape(data)
    if found is not None:
        raise DatasetError(str(path), position(data, found), lone_surrogate_problem(data, found))
    text = decode_utf8(path, data)
    try:
        return json.loads(text, object_pairs_hook=unique_pairs)  # nesting was bounded on the bytes just now
    except json.JSONDecodeError as exc:
        raise syntax_error(str(path), exc) from None
    except DuplicateKey as exc:
        raise DatasetError(str(path), "", str(exc)) from None


def split_lines(text: str) -> list[str]:
    """JSON-lines text split on '\\n' only (U+2028, U+0085 or a form feed inside a value never end a line)."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def iter_jsonl(path: Path) -> Iterator[tuple[int, Any]]:
    """(line number, value) of each non-blank line of a JSON-lines file; DatasetError names the bad line."""
    text = decode_utf8(path, read_regular_bytes(path))
    for number, line in enumerate(split_lines(text), start=1):
        if line.strip():
            try:
                yield number, loads_strict(line)
            except json.JSONDecodeError as exc:
                raise syntax_error(str(path), exc, number, line_start(text, number)) from None
            except DuplicateKey as exc:
                raise DatasetError(str(path), f"line {number}", str(exc)) from None


def line_start(text: str, number: int) -> int:
    """The byte offset at which line `number` (from 1) of `text` starts (lines end at '\\n')."""
    position = 0
    for _ in range(number - 1):
        position = text.index("\n", position) + 1
    return len(text[:position].encode("utf-8", "surrogatepass"))


def require(source: str, value: Any, path: str, kind: type | tuple[type, ...], what: str) -> Any:
    """Return `value` when it is of `kind` (bools are not ints), else raise a DatasetError at `path`."""
    ok = isinstance(value, kind) and not (isinstance(value, bool) and bool not in _as_tuple(kind))
    if not ok:
        raise DatasetError(source, path, f"expected {what}, got {describe(value)}")
    return value


def field(source: str, obj: dict, key: str, path: str, kind: type | tuple[type, ...], what: str) -> Any:
    """Return obj[key] checked against `kind`; a missing key is a DatasetError at path.key."""
    if key not in obj:
        raise DatasetError(source, path, f"missing field {key!r}")
    return require(source, obj[key], f"{path}.{key}" if path else key, kind, what)


def _as_tuple(kind: type | tuple[type, ...]) -> tuple[type, ...]:
    return kind if isinstance(kind, tuple) else (kind,)


def describe(value: Any) -> str:
    """`null`, `a string '...'`, `a boolean`, `an object`: what a wrong-typed value is, for messages."""
    if value is None:
        return "null"
    if isinstance(value, str):
        return f"a string {short(repr(value), 40)}"
    if isinstance(value, bool):
        return f"a boolean ({str(value).lower()})"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "an array"
    return "a number" if isinstance(value, (int, float)) else type(value).__name__


def count_strings_past(raw: str, prefixes: tuple[str, ...], limit: int) -> int | None:
    """Stream one JSON text's events; the count of strings at `prefixes` once it passes `limit`, else None.

    Counting stops at limit + 1, so an over-long array is refused without building it.
    """
    import io

    import ijson

    def refuse() -> None:
        raise ValueError("nested too deep")

    count = 0
    try:
        for prefix, event, _ in ijson.parse(depth_limited(ijson.basic_parse(io.BytesIO(raw.encode("utf-8"))), refuse)):
            if event == "string" and prefix in prefixes:
                count += 1
                if count > limit:
                    return count
    except Exception:  # noqa: BLE001 - a broken line is reported by the full parse that follows
        return None
    return None
