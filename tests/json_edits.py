"""Edits of parsed JSON that tests apply to generate malformed variants of a valid file."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def setter(*keys: Any, value: Any) -> Callable[[Any], None]:
    """A change that sets the value at `keys` (object keys and array positions) of a parsed JSON document."""

    def change(data: Any) -> None:
        target = data
        for key in keys[:-1]:
            target = target[key]
        target[keys[-1]] = value

    return change
