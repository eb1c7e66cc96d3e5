"""gzip-compressed rankings, read transparently (memrecall.io.deflated writes them deterministically)."""

from __future__ import annotations

import gzip
import io
import zlib
from pathlib import Path

from memrecall.errors import DatasetError

GZIP_MAGIC = b"\x1f\x8b"
MAX_BYTES = 4 << 30  # a rankings file that inflates past 4 GiB is refused, never held in memory


def is_gzip(data: bytes) -> bool:
    """True when the bytes start with gzip's magic number."""
    return data[:2] == GZIP_MAGIC


def inflated(path: str | Path, data: bytes) -> bytes:
    """The bytes themselves, or their gzip content when they are gzip; a broken gzip file names the file."""
    if not is_gzip(data):
        return data
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(data)) as stream:
            out = stream.read(MAX_BYTES + 1)
    except (OSError, EOFError, zlib.error) as exc:
        raise DatasetError(str(path), "", f"is not a readable gzip file ({exc})") from None
    if len(out) > MAX_BYTES:
        raise DatasetError(str(path), "", "inflates to more than 4 GiB; memrecall reads rankings files up to that")
    return out
