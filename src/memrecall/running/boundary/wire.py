"""The plug-in worker's wire: length-prefixed JSON frames over a pipe, plain data only (never pickle)."""

from __future__ import annotations

import json
import os
import select
import struct
import time
from datetime import datetime
from typing import Any

from memrecall.data.model import Document, PublicTask, Query

HEADER = struct.Struct(">Q")
MAX_FRAME_BYTES = 256 * 1024 * 1024
"""The largest frame a worker may send the scorer; a larger announced length is refused before any of it is read."""


class FrameTimeout(Exception):
    """The whole frame did not arrive before its deadline (a header or body left half-written counts)."""


def write_frame(fd: int, message: Any) -> None:
    """Send one JSON value as a frame: an 8-byte big-endian length, then UTF-8 JSON."""
    body = json.dumps(message, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode("utf-8")
    data = memoryview(HEADER.pack(len(body)) + body)
    while data:
        written = os.write(fd, data)
        data = data[written:]


def read_exactly(fd: int, count: int, deadline: float | None = None) -> bytes | None:
    """Exactly `count` bytes from fd, or None at end of file (the other side closed or died); FrameTimeout
    when `deadline` (time.monotonic()) passes first."""
    chunks, left = [], count
    while left:
        if deadline is not None:
            wait = deadline - time.monotonic()
            if wait <= 0 or not select.select([fd], [], [], wait)[0]:
                raise FrameTimeout(f"{count - left} of {count} bytes arrived before the deadline")
        chunk = os.read(fd, min(left, 1 << 20))
        if not chunk:
            return None
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def read_frame(fd: int, deadline: float | None = None, max_bytes: int | None = None) -> Any:
    """One frame's JSON value, all of it before `deadline`; EOFError at end of file; FrameTimeout; ValueError
    when the frame announces more than `max_bytes` (refused before reading it), or is not JSON, or nests too
    deep to parse."""
    header = read_exactly(fd, HEADER.size, deadline)
    if header is None:
        raise EOFError("the pipe closed")
    (size,) = HEADER.unpack(header)
    if max_bytes is not None and size > max_bytes:
        raise ValueError(f"a frame of {size} bytes (the limit is {max_bytes})")
    body = read_exactly(fd, size, deadline)
    if body is None:
        raise EOFError("the pipe closed inside a frame")
    try:
        return json.loads(body.decode("utf-8"))
    except RecursionError:
        raise ValueError("a frame nested too deep") from None


def pack_positions(positions: list[int]) -> str:
    """Store positions as base64 of little-endian uint32s: a full ranking crosses the pipe in one string."""
    import base64

    import numpy as np

    return base64.b64encode(np.asarray(positions, dtype="<u4").tobytes()).decode("ascii")


def unpack_positions(text: str) -> list[int]:
    """The positions `pack_positions` wrote; ValueError when the text is not such a string."""
    import base64
    import binascii

    import numpy as np

    try:
        raw = base64.b64decode(text.encode("ascii"), validate=True)
    except (binascii.Error, UnicodeEncodeError) as exc:
        raise ValueError("not packed positions") from exc
    if len(raw) % 4:
        raise ValueError("not packed positions")
    return np.frombuffer(raw, dtype="<u4").tolist()


def _time(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def _parse_time(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value) if value is not None else None


def task_to_plain(task: PublicTask) -> dict:
    """A public task as plain JSON: stores of [id, text, time] and queries of [id, store, text, time]."""
    return {
        "stores": {sid: [[d.id, d.text, _time(d.timestamp)] for d in docs] for sid, docs in task.stores.items()},
        "queries": [[q.id, q.store_id, q.text, _time(q.time)] for q in task.queries],
        "depth": task.depth,
    }


def task_from_plain(plain: dict) -> PublicTask:
    """The public task `task_to_plain` wrote, as the NamedTuples a system is handed."""
    from types import MappingProxyType

    stores = {sid: tuple(Document(i, t, _parse_time(s)) for i, t, s in docs) for sid, docs in plain["stores"].items()}
    queries = tuple(Query(i, s, t, _parse_time(w)) for i, s, t, w in plain["queries"])
    return PublicTask(MappingProxyType(stores), queries, plain["depth"])
