"""Progress bars on stderr: shown only when asked for and stderr is a terminal."""

from __future__ import annotations

import sys

from tqdm import tqdm


def progress_bar(total: int, description: str, enabled: bool, unit: str = "it") -> tqdm:
    """A tqdm bar on stderr, disabled when `enabled` is false or stderr is not a TTY."""
    show = enabled and sys.stderr.isatty()
    return tqdm(total=total, desc=description, unit=unit, disable=not show, file=sys.stderr, leave=False)
