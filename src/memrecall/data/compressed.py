"""gzip-compressed inputs (rankings, scores, reports), read transparently (memrecall.io.deflated writes them
deterministically).

Every member is inflated in a stream, chunk by chunk, and the file is refused as soon as its output passes
MAX_INPUT_BYTES or MAX_GZIP_RATIO times its own size: a gzip bomb is never inflated.
"""

from __future__ import annotations

import zlib
from pathlib import Path

from memrecall.data.limits import GZIP_RATIO_FLOOR, MAX_GZIP_RATIO, MAX_INPUT_BYTES
from memrecall.errors import DatasetError

GZIP_MAGIC = b"\x1f\x8b"
STEP_BYTES = 1 << 20  # output inflated per step


def is_gzip(data: bytes) -> bool:
    """True when the bytes start with gzip's magic number."""
    return data[:2] == GZIP_MAGIC


def inflation_cap(size: int) -> int:
    """The most bytes a gzip file of `size` bytes may inflate to."""
    return min(MAX_INPUT_BYTES, max(GZIP_RATIO_FLOOR, MAX_GZIP_RATIO * size))


def inflated(path: str | Path, data: bytes) -> bytes:
    """The bytes themselves, or their gzip content when they are gzip; a broken or too large gzip file is refused."""
    if not is_gzip(data):
        return data
    cap = inflation_cap(len(data))
    out, rest = bytearray(), data
    try:
        while rest:
            if not is_gzip(rest):
                raise DatasetError(str(path), "", "has bytes after its last gzip member that are not gzip")
            inflater = zlib.decompressobj(wbits=31)
            pending = rest
            while not inflater.eof:
                piece = inflater.decompress(pending, STEP_BYTES)
                pending = inflater.unconsumed_tail
                if len(out) + len(piece) > cap:
                    raise DatasetError(str(path), "", too_large(len(data), cap))
                out += piece
                if not piece and not pending:
                    raise DatasetError(str(path), "", "is not a readable gzip file (it ends inside a member)")
            rest = inflater.unused_data.lstrip(b"\0")  # gzip allows zero padding after a member
    except zlib.error as exc:
        raise DatasetError(str(path), "", f"is not a readable gzip file ({exc})") from None
    return bytes(out)


def too_large(size: int, cap: int) -> str:
    """The refusal of a gzip file whose content passes its cap."""
    return (
        f"inflates to more than {cap:,} bytes from {size:,}; memrecall inflates gzip files to at most "
        f"{MAX_INPUT_BYTES:,} bytes and {MAX_GZIP_RATIO} times their size, and stopped there"
    )
