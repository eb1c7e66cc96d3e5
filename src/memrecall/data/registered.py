"""Benchmarks other packages register under the `memrecall.benchmarks` entry-point group, found and loaded."""

from __future__ import annotations

from collections.abc import Collection
from importlib.metadata import EntryPoint
from typing import Any

from memrecall.errors import ConfigError

ENTRY_POINT_GROUP = "memrecall.benchmarks"


def describe_entry(entry: EntryPoint) -> str:
    """`benchmark entry point 'x' (pkg.mod:OBJ, group memrecall.benchmarks)`, for messages."""
    return f"benchmark entry point {entry.name!r} ({entry.value}, group {ENTRY_POINT_GROUP})"


def installed_entries(built_in: Collection[str]) -> dict[str, EntryPoint]:
    """The group's entry points by name; one that takes a built-in benchmark's name is a ConfigError."""
    from importlib.metadata import entry_points

    entries = {}
    for entry in entry_points(group=ENTRY_POINT_GROUP):
        if entry.name in built_in:
            raise ConfigError(
                f"{describe_entry(entry)} has the name of a built-in benchmark; rename it in its package's entry points"
            )
        entries[entry.name] = entry
    return entries


def load_entry(entry: EntryPoint, kind: type) -> Any:
    """The `kind` object an entry point names (a factory is called); any failure or mismatch is one ConfigError line."""
    try:
        found = entry.load()
        found = found() if callable(found) and not isinstance(found, kind) else found
    except Exception as exc:  # noqa: BLE001 - another package's code becomes one line
        raise ConfigError(f"{describe_entry(entry)}: cannot load it: {type(exc).__name__}: {exc}") from None
    if not isinstance(found, kind):
        raise ConfigError(
            f"{describe_entry(entry)}: expected a {kind.__module__}.{kind.__name__}, got {type(found).__name__}"
        )
    named = getattr(found, "name", None)
    if named != entry.name:
        raise ConfigError(f"{describe_entry(entry)}: the object it gives is named {named!r}; the names must agree")
    return found
