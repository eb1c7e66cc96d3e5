"""A top-level JSON array streamed one item at a time (ijson): depth bounded, lone surrogates refused, errors placed.

Used for LongMemEval, whose files reach gigabytes and are never parsed whole.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from memrecall.data.jsonfile import TRUNCATED, DuplicateKey, key_owner, open_regular
from memrecall.data.nesting import depth_limited, refuse_stream_depth
from memrecall.data.text import lone_surrogate_escape, lone_surrogate_problem, safe_cut
from memrecall.errors import DatasetError, short


def iter_json_array(path: Path) -> Iterator[Any]:
    """Stream a top-level JSON array one item at a time (ijson), duplicate keys refused in every object.

    ijson builds objects into a mapping that notes a repeated key (raising inside ijson's C backend
    is not safe); the item that holds one is refused as soon as it is complete. Its events pass a depth
    count first, so nothing deeper than MAX_JSON_DEPTH is ever built.
    """
    import ijson

    repeated: list[DuplicateKey] = []

    class Noting(dict):
        def __setitem__(self, key: str, value: Any) -> None:
            if key in self and not repeated:
                repeated.append(DuplicateKey(key, key_owner(list(self.items()))))
            super().__setitem__(key, value)

    with open_regular(path) as handle:
        guarded = SurrogateGuard(handle, path)
        events = depth_limited(ijson.basic_parse(guarded, use_float=True), lambda: refuse_stream_depth(path, handle))
        try:
            for index, item in enumerate(ijson.items(ijson.parse(events), "item", map_type=Noting)):
                if repeated:
                    raise DatasetError(str(path), f"item {index}", str(repeated[0]))
                yield item
        except DatasetError:
            raise
        except OSError as exc:
            raise DatasetError(str(path), "", f"cannot read file ({exc.strerror or exc})") from None
        except (ijson.common.JSONError, UnicodeDecodeError, ValueError) as exc:
            raise stream_syntax_error(path, handle, exc) from None


class SurrogateGuard:
    """A binary reader that hands ijson a file piece by piece, each searched for a lone surrogate escape first
    (ijson's fast backend would read one as '?'); pieces never split an escape."""

    def __init__(self, handle: IO[bytes], path: Path) -> None:
        self.handle, self.path, self.pending, self.offset, self.lines = handle, path, b"", 0, 0

    def read(self, size: int = -1) -> bytes:
        """Up to about `size` bytes (b"" at the end), refused in one line at a lone surrogate escape."""
        if size == 0:
            return b""
        while True:
            more = self.handle.read(size if size and size > 0 else 1 << 16)
            data = self.pending + more
            cut = safe_cut(data) if more else len(data)
            if cut or not more:
                break
            self.pending = data
        piece, self.pending = data[:cut], data[cut:]
        found = lone_surrogate_escape(piece)
        if found is not None:
            line = self.lines + piece.count(b"\n", 0, found) + 1
            raise DatasetError(
                str(self.path), f"line {line} (byte {self.offset + found})", lone_surrogate_problem(piece, found)
            )
        self.offset += len(piece)
        self.lines += piece.count(b"\n")
        return piece


def stream_syntax_error(path: Path, handle: IO[bytes], exc: Exception) -> DatasetError:
    """The one-line error of a streamed JSON file that does not parse, located by reading it again.

    ijson's fast backend says neither where nor in one line, so its pure-Python backend reads the file
    again (error path only, in bounded memory) for the character offset, turned here into line and byte.
    """
    import re

    import ijson
    from ijson.backends import python as located

    handle.seek(0)
    try:
        for _ in depth_limited(located.basic_parse(handle), lambda: refuse_stream_depth(path, handle)):
            pass
    except located.UnexpectedSymbol as found:
        match = re.fullmatch(r"Unexpected symbol (.*) at (\d+)", str(found), re.S)
        if match:
            where, byte = char_position(handle, int(match.group(2)))
            symbol = match.group(1).strip("'")
            handle.seek(max(0, byte - 256))
            before = handle.read(min(byte, 256)).rstrip()
            trailing = symbol in ("]", "}") and before.endswith(b",")
            hint = f"; a comma before '{symbol}' leaves a value missing (a trailing comma)" if trailing else ""
            return DatasetError(str(path), where, f"invalid JSON: unexpected {short(match.group(1))}{hint}")
    except (ijson.common.JSONError, ValueError) as found:
        if isinstance(found, ijson.common.IncompleteJSONError) and "Incomplete" in str(found):
            return DatasetError(str(path), char_position(handle, None)[0], f"invalid JSON: {TRUNCATED}")
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return DatasetError(str(path), "", f"invalid JSON: {short(first)}")


def char_position(handle: IO[bytes], offset: int | None) -> tuple[str, int]:
    """`line L column C (byte B)` of character `offset` of a UTF-8 stream (None: its end), read from the start,
    and the byte offset B."""
    import codecs

    handle.seek(0)
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    chars = byte = 0
    line, line_chars = 1, 0
    for chunk in iter(lambda: handle.read(1 << 20), b""):
        text = decoder.decode(chunk)
        if offset is not None and chars + len(text) > offset:
            text = text[: offset - chars]
            byte += len(text.encode("utf-8"))
            chars = offset
        else:
            byte += len(chunk)
            chars += len(text)
        newlines = text.count("\n")
        line, line_chars = line + newlines, (len(text) - text.rfind("\n") - 1) if newlines else line_chars + len(text)
        if chars == offset:
            break
    return f"line {line} column {line_chars + 1} (byte {byte})", byte
