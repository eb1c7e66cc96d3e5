"""Progress on stderr, when asked for: a bar on a terminal, plain lines with counts and rate anywhere else.

Outside a terminal (a CI log, a pipe) each phase prints a line when it starts, a line with its count and rate
at least every `MEMRECALL_PROGRESS` seconds (default 30) while it runs, and a line when it ends.
`MEMRECALL_PROGRESS=none` turns both forms off, as `--quiet` does.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable
from typing import TextIO

from tqdm import tqdm

EVERY_SECONDS = 30.0
SETTING = "MEMRECALL_PROGRESS"
IRREGULAR_PLURALS = {"query": "queries"}


def shows_progress(enabled: bool) -> bool:
    """True when progress is asked for (`enabled`, not --quiet) and MEMRECALL_PROGRESS does not turn it off."""
    return enabled and os.environ.get(SETTING, "").strip() != "none"


def progress_bar(total: int, description: str, enabled: bool, unit: str = "it") -> tqdm | PlainProgress:
    """A tqdm bar on a terminal, plain progress lines elsewhere; silent when `enabled` is false."""
    setting = os.environ.get(SETTING, "").strip()
    if not shows_progress(enabled):
        return tqdm(total=total, disable=True)
    if sys.stderr.isatty() and not setting:
        return tqdm(total=total, desc=description, unit=unit, file=sys.stderr, leave=False)
    return PlainProgress(total, description, unit, seconds_between(setting))


def seconds_between(setting: str) -> float:
    """The interval MEMRECALL_PROGRESS gives (seconds >= 0); the default when unset or not a number."""
    try:
        seconds = float(setting)
    except ValueError:
        return EVERY_SECONDS
    return seconds if seconds >= 0 else EVERY_SECONDS


def plural(count: int, unit: str) -> str:
    """'1 query', '2,688 texts'."""
    return f"{count:,} {unit if count == 1 else IRREGULAR_PLURALS.get(unit, unit + 's')}"


def rate(done: int, seconds: float) -> str:
    """'45/s' at one or more a second, '40 s each' below that, '30 s so far' before the first."""
    if done == 0 or seconds <= 0:
        return f"{seconds:.0f} s so far"
    per_second = done / seconds
    return f"{per_second:,.0f}/s" if per_second >= 1 else f"{seconds / done:,.0f} s each"


class PlainProgress:
    """One phase's progress as plain lines: its start, its count and rate every `every` seconds, its end.

    A line is written on an update once `every` seconds have passed since the last one, and by a timer thread when
    no update comes for that long, so a phase is never silent for longer than `every`.
    """

    def __init__(
        self,
        total: int,
        description: str,
        unit: str = "it",
        every: float = EVERY_SECONDS,
        stream: TextIO | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.total, self.description, self.unit, self.every = total, description, unit, every
        self.stream, self.clock = stream if stream is not None else sys.stderr, clock
        self.heading = f"{description} {plural(total, unit)}"
        self.done = 0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._timer: threading.Thread | None = None
        self.started = self.last_line = clock()

    def __enter__(self) -> PlainProgress:
        self._write(self.heading)
        if self.every > 0:
            self._timer = threading.Thread(target=self._heartbeat, daemon=True)
            self._timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._timer is not None:
            self._timer.join()
        seconds = self.clock() - self.started
        ended = "done" if exc[0] is None else f"stopped after {self.done:,}"
        self._write(f"{self.heading}: {ended} in {seconds:.1f} s")

    def update(self, count: int = 1) -> None:
        """Count `count` more items done; write a line when `every` seconds have passed since the last."""
        with self._lock:
            self.done += count
            if self.clock() - self.last_line >= self.every:
                self._count_line()

    def _heartbeat(self) -> None:
        """Write a count line whenever `every` seconds pass with none (updates may be far apart)."""
        while not self._stop.wait(self.every):
            with self._lock:
                if self.clock() - self.last_line >= self.every:
                    self._count_line()

    def _count_line(self) -> None:
        """'encoding 2,688 texts: 1,200 done, 45/s' (the caller holds the lock)."""
        self._write(f"{self.heading}: {self.done:,} done, {rate(self.done, self.clock() - self.started)}")

    def _write(self, line: str) -> None:
        self.last_line = self.clock()
        print(line, file=self.stream, flush=True)
