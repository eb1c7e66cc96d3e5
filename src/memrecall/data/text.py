"""The one decoding rule of every reader: UTF-8, a UTF-16 or UTF-32 file named, a BOM only where a format allows."""

from __future__ import annotations

import re
from pathlib import Path

from memrecall.errors import DatasetError

# Byte-order marks of the encodings spreadsheet programs and editors save instead of UTF-8 (UTF-32 first: its
# little-endian mark begins with UTF-16's).
_WIDE_BOMS = (
    (b"\xff\xfe\x00\x00", "UTF-32"),
    (b"\x00\x00\xfe\xff", "UTF-32"),
    (b"\xff\xfe", "UTF-16"),
    (b"\xfe\xff", "UTF-16"),
)
UTF8_BOM = b"\xef\xbb\xbf"


def decode_utf8(path: str | Path, data: bytes, bom_ok: bool = False) -> str:
    """UTF-8 text of a file's bytes: the one decoding rule of every reader.

    A UTF-16 or UTF-32 file (told by its byte-order mark) is one DatasetError naming the encoding;
    other non-UTF-8 bytes are named by position. With `bom_ok` (CSV, as spreadsheets save it) a UTF-8
    byte-order mark is dropped; otherwise it stays in the text for the format's own reader to refuse.
    """
    for mark, encoding in _WIDE_BOMS:
        if data.startswith(mark):
            raise DatasetError(str(path), "", f"is {encoding}; save it as UTF-8")
    if bom_ok and data.startswith(UTF8_BOM):
        data = data[len(UTF8_BOM) :]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DatasetError(str(path), "", f"not UTF-8 text ({exc.reason} at byte {exc.start})") from None


# JSON text, left to right: an escaped backslash, a surrogate pair, or a lone surrogate escape (the one to find).
_ESCAPES = re.compile(
    rb"\\\\|\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}|(\\u[dD][89a-fA-F][0-9a-fA-F]{2})"
)
ESCAPE_SPAN = 12  # bytes of the longest escape the pattern matches (a surrogate pair)


def lone_surrogate_escape(data: bytes) -> int | None:
    """The byte offset of the first \\uD800-\\uDFFF escape in JSON text that is not half of a pair, or None.

    Python's json keeps such a character (later refused by memrecall.data.task_rules), but ijson's fast
    backend silently turns it into '?', so streamed files are searched for it before they are parsed.
    """
    if b"\\ud" not in data and b"\\uD" not in data:
        return None
    for match in _ESCAPES.finditer(data):
        if match.group(1):
            return match.start()
    return None


def lone_surrogate_problem(data: bytes, offset: int) -> str:
    """The words of the refusal of the lone surrogate escape at `offset`, the same for every reader."""
    escape = data[offset : offset + 6].decode("ascii", errors="replace")
    return f"{escape} is half of a surrogate pair with no partner; a lone surrogate is not encodable as UTF-8"


def safe_cut(data: bytes) -> int:
    """Where a chunk of JSON text can end without splitting a run of backslashes or an escape sequence."""
    tail = data.find(b"\\", max(0, len(data) - ESCAPE_SPAN))
    if tail < 0:
        return len(data)
    while tail > 0 and data[tail - 1] == ord("\\"):
        tail -= 1
    return tail
