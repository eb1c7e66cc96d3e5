"""A small generator of input variants for the fault suite: duplicate keys, wrong types, non-regular files."""

from __future__ import annotations

import copy
import json
from typing import Any

JsonPath = tuple[str | int, ...]


def decoy(value: Any) -> Any:
    """A different value of the same JSON type, for the repeated copy of a key (last-wins would take it)."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, (int, float)):
        return value + 1
    if isinstance(value, str):
        return value + "-decoy"
    if isinstance(value, list):
        return list(reversed(value)) + value[:1]
    return value


def dumps_with_duplicate(data: Any, target: JsonPath, key: str) -> str:
    """JSON text of `data` in which the object at `target` names `key` twice: the real value, then a decoy."""

    def encode(obj: Any, path: JsonPath) -> str:
        if isinstance(obj, dict):
            items = [f"{json.dumps(k)}: {encode(v, (*path, k))}" for k, v in obj.items()]
            if path == target:
                items.append(f"{json.dumps(key)}: {json.dumps(decoy(obj[key]))}")
            return "{" + ", ".join(items) + "}"
        if isinstance(obj, list):
            return "[" + ", ".join(encode(v, (*path, i)) for i, v in enumerate(obj)) + "]"
        return json.dumps(obj)

    return encode(data, ())


def with_value(data: Any, target: JsonPath, key: str, value: Any) -> Any:
    """A deep copy of `data` with obj[key] = value for the object at `target`."""
    changed = copy.deepcopy(data)
    obj = changed
    for step in target:
        obj = obj[step]
    obj[key] = value
    return changed


def wrong_types(value: Any) -> dict[str, Any]:
    """The wrong-typed stand-ins for a value: a boolean or number written as a string, and null."""
    out: dict[str, Any] = {"null": None}
    if isinstance(value, bool):
        out["bool as string"] = str(value).lower()
    elif isinstance(value, (int, float)):
        out["number as string"] = str(value)
    return out
