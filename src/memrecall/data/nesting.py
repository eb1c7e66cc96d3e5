"""JSON nesting depth, checked on the bytes before a parser builds anything deeper than MAX_JSON_DEPTH.

Python's json recurses once per level (a RecursionError past about 1,000) and ijson keeps a prefix string per
level (a 100,000-deep file grew the process to 21.8 GB), so depth is refused first: whole texts and
JSON lines by a byte scan, ijson streams by their events.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import IO, Any

import numpy as np

from memrecall.data.limits import MAX_JSON_DEPTH
from memrecall.errors import DatasetError

CHUNK_BYTES = 1 << 20
NEWLINE = b"\n"
_STEP = np.zeros(256, np.int64)
_STEP[[ord("["), ord("{")]] = 1
_STEP[[ord("]"), ord("}")]] = -1
_OPENS = ("start_map", "start_array")
_CLOSES = ("end_map", "end_array")


class DepthScan:
    """Follows brackets outside strings across the chunks of one JSON text; finds the first one too deep.

    Only the nesting is followed, not the grammar: on text that is not JSON the parser that reads it
    after this scan refuses it where it breaks, before any deeper level.
    """

    def __init__(self, limit: int = MAX_JSON_DEPTH) -> None:
        self.limit, self.depth, self.inside, self.backslashes, self.offset = limit, 0, 0, 0, 0

    def feed(self, chunk: bytes) -> int | None:
        """The offset in the whole text of the first bracket that opens level limit + 1, or None."""
        data = np.frombuffer(chunk, np.uint8)
        size = len(data)
        if not size:
            return None
        quote = data == ord('"')
        if self.backslashes or b"\\" in chunk:  # a quote after an odd run of backslashes is escaped
            backslash = data == ord("\\")
            index = np.arange(size)
            last_other = np.maximum.accumulate(np.where(backslash, -1 - self.backslashes, index))
            run = np.empty(size, np.int64)
            run[0], run[1:] = self.backslashes, index[:-1] - last_other[:-1]
            quote &= (run & 1) == 0
            self.backslashes = int(size - 1 - last_other[-1])
        else:
            self.backslashes = 0
        toggles = np.cumsum(quote)
        outside = ((self.inside + toggles - quote) & 1) == 0
        depth = self.depth + np.cumsum(np.where(outside, _STEP[data], 0))
        over = np.flatnonzero(depth > self.limit)
        if over.size:
            return self.offset + int(over[0])
        self.depth, self.inside = int(depth[-1]), int((self.inside + int(toggles[-1])) & 1)
        self.offset += size
        return None


def too_deep_offset(data: bytes, limit: int = MAX_JSON_DEPTH) -> int | None:
    """The byte offset where `data` first nests deeper than `limit`, or None (few brackets: not scanned)."""
    if data.count(b"[") + data.count(b"{") <= limit:
        return None
    scan = DepthScan(limit)
    for start in range(0, len(data), CHUNK_BYTES):
        found = scan.feed(data[start : start + CHUNK_BYTES])
        if found is not None:
            return found
    return None


def too_deep_problem(limit: int = MAX_JSON_DEPTH) -> str:
    """The words of the refusal, the same for every reader."""
    return f"JSON nested more than {limit} levels deep; memrecall reads JSON nested at most {limit} levels"


def position(data: bytes, offset: int) -> str:
    """`line L column C (byte B)` of a byte offset in `data` (column counted in characters)."""
    line_start = data.rfind(NEWLINE, 0, offset) + 1
    column = len(data[line_start:offset].decode("utf-8", errors="replace")) + 1
    return f"line {data.count(NEWLINE, 0, offset) + 1} column {column} (byte {offset})"


def check_depth(source: str, data: bytes) -> None:
    """DatasetError naming the line and byte where a whole JSON text nests deeper than MAX_JSON_DEPTH."""
    offset = too_deep_offset(data)
    if offset is not None:
        raise DatasetError(source, position(data, offset), too_deep_problem())


def stream_depth_position(handle: IO[bytes]) -> str | None:
    """Where a JSON stream first nests too deep (read again from the start, chunk by chunk), or None."""
    handle.seek(0)
    scan, lines = DepthScan(), 0
    for chunk in iter(lambda: handle.read(CHUNK_BYTES), b""):
        found = scan.feed(chunk)
        if found is not None:
            return f"line {lines + chunk.count(NEWLINE, 0, found - scan.offset) + 1} (byte {found})"
        lines += chunk.count(NEWLINE)
    return None


def depth_limited(events: Iterable[tuple[str, Any]], refuse: Callable[[], None]) -> Iterator[tuple[str, Any]]:
    """ijson basic_parse events passed on as they come; `refuse()` is called (and must raise) one level too deep."""
    depth = 0
    for event, value in events:
        if event in _OPENS:
            depth += 1
            if depth > MAX_JSON_DEPTH:
                refuse()
        elif event in _CLOSES:
            depth -= 1
        yield event, value


def refuse_stream_depth(path: Path, handle: IO[bytes]) -> None:
    """Raise the one-line depth refusal for a streamed file, located by scanning it again."""
    where = stream_depth_position(handle) or "line ?"
    raise DatasetError(str(path), where, too_deep_problem())
