"""REALTALK's evidence strings, read in the written forms the release uses, and resolved against a chat.

The release writes a question's evidence as single dia_ids (`D12:3`), ranges (`D12:3-D12:5`), lists
(`D5:12;D5:16`, `D11:17; D16:1`, `D13:4. D14:4`), ids with a trailing period (`D5:3.`), two ids joined by a
colon (`D13:45:D20:19`), and strings that name no id (``, `D58`, `D:56`, `D 2:18`, `23:29`). Each raw string
is classified by its written form, and each id read from it is resolved:

- `turn`: the turn is in the chat;
- `session_only`: no such turn, but its session is: dia_ids within a session are not contiguous, and the
  session of `D<s>:<t>` is the one whose turns with prefix `D<s>` start at or before `t`;
- `unresolved`: not even the session is in the chat.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

_ID = r"D(\d+):(\d+)"
_SINGLE = re.compile(rf"^{_ID}$")
_RANGE = re.compile(rf"^{_ID}-{_ID}$")
_JOINED = re.compile(rf"^{_ID}:{_ID}$")
FORMS = ("single", "trailing_period", "range", "list", "joined", "empty", "malformed")
RESOLUTIONS = ("turn", "session_only", "unresolved")


def written_form(raw: str) -> str:
    """The written form of one raw evidence string (one of FORMS)."""
    text = raw.strip()
    if not text:
        return "empty"
    if _SINGLE.match(text):
        return "single"
    if _SINGLE.match(text.removesuffix(".")):
        return "trailing_period"
    if _RANGE.match(text):
        return "range" if _read_part(text) else "malformed"
    if _JOINED.match(text):
        return "joined"
    parts = _parts(text)
    if len(parts) > 1 and any(_read_part(p) for p in parts):
        return "list"
    return "malformed"


def _parts(text: str) -> list[str]:
    """The pieces of a raw string split at `;` and white space, each without a trailing period."""
    return [p.removesuffix(".") for p in re.split(r"[;\s]+", text.strip()) if p.removesuffix(".")]


def _read_part(part: str) -> list[tuple[int, int]] | None:
    """The (session prefix, turn) numbers one piece names, or None when it names none."""
    if match := _SINGLE.match(part):
        return [(int(match[1]), int(match[2]))]
    if (match := _RANGE.match(part)) and match[1] == match[3] and int(match[2]) <= int(match[4]):
        return [(int(match[1]), t) for t in range(int(match[2]), int(match[4]) + 1)]
    if match := _JOINED.match(part):
        return [(int(match[1]), int(match[2])), (int(match[3]), int(match[4]))]
    return None


def read_ids(raw: str) -> tuple[list[tuple[int, int]], list[str]]:
    """The (prefix, turn) numbers a raw evidence string names, and its pieces that name nothing."""
    named: list[tuple[int, int]] = []
    unread: list[str] = []
    for part in _parts(raw) or [raw]:
        numbers = _read_part(part)
        if numbers is None:
            unread.append(part)
        else:
            named.extend(numbers)
    return named, unread


class ChatIndex:
    """Where each dia_id of one chat is: its turn, and the session a missing turn would have been in."""

    def __init__(self, turn_session: Mapping[tuple[int, int], tuple[str, str]]) -> None:
        self.turns = dict(turn_session)  # (prefix, turn) -> (dia_id, session key)
        starts: dict[int, dict[str, int]] = {}
        for (prefix, turn), (_, session) in self.turns.items():
            first = starts.setdefault(prefix, {})
            first[session] = min(turn, first.get(session, turn))
        self.starts = {p: sorted((t, s) for s, t in first.items()) for p, first in starts.items()}

    def resolve(self, numbers: tuple[int, int]) -> tuple[str, str | None, str | None]:
        """(resolution, dia_id or None, session key or None) of one id."""
        if numbers in self.turns:
            dia_id, session = self.turns[numbers]
            return "turn", dia_id, session
        earlier = [s for t, s in self.starts.get(numbers[0], []) if t <= numbers[1]]
        if earlier:
            return "session_only", None, earlier[-1]
        return "unresolved", None, None
