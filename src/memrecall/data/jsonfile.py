"""Shared helpers for loaders: hashing a file, reading JSON with located errors."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from memrecall.errors import DatasetError


def file_sha256(path: Path) -> str:
    """Hex sha256 of a file's bytes, read in chunks."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def read_json(path: Path) -> Any:
    """Parse a JSON file, turning I/O and syntax errors into a DatasetError with line and column."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise DatasetError(str(path), "", f"cannot read file ({exc.strerror or exc})") from None
    except UnicodeDecodeError as exc:
        raise DatasetError(str(path), "", f"not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise DatasetError(str(path), f"line {exc.lineno} column {exc.colno}", f"invalid JSON: {exc.msg}") from None


def read_jsonl(path: Path) -> list[Any]:
    """Parse a JSON-lines file, one value per non-blank line; DatasetError names the bad line."""
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise DatasetError(str(path), "", f"cannot read file ({exc})") from None
    out = []
    for number, line in enumerate(lines, start=1):
        if line.strip():
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise DatasetError(str(path), f"line {number}", f"invalid JSON: {exc.msg}") from None
    return out


def require(source: str, value: Any, path: str, kind: type | tuple[type, ...], what: str) -> Any:
    """Return `value` when it is of `kind` (bools are not ints), else raise a DatasetError at `path`."""
    ok = isinstance(value, kind) and not (isinstance(value, bool) and bool not in _as_tuple(kind))
    if not ok:
        raise DatasetError(source, path, f"expected {what}, got {_describe(value)}")
    return value


def field(source: str, obj: dict, key: str, path: str, kind: type | tuple[type, ...], what: str) -> Any:
    """Return obj[key] checked against `kind`; a missing key is a DatasetError at path.key."""
    if key not in obj:
        raise DatasetError(source, path, f"missing field {key!r}")
    return require(source, obj[key], f"{path}.{key}" if path else key, kind, what)


def _as_tuple(kind: type | tuple[type, ...]) -> tuple[type, ...]:
    return kind if isinstance(kind, tuple) else (kind,)


def _describe(value: Any) -> str:
    if value is None:
        return "null"
    return {dict: "an object", list: "an array", str: "a string", bool: "a boolean"}.get(
        type(value), type(value).__name__
    )
