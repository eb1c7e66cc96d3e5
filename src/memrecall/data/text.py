"""The one decoding rule of every reader: UTF-8, a UTF-16 or UTF-32 file named, a BOM only where a format allows."""

from __future__ import annotations

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
