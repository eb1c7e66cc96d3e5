"""Request templates ({placeholder} filling of JSON values) and a tiny JSON path for reading replies."""

from __future__ import annotations

import re
from typing import Any

_PLACEHOLDER = re.compile(r"\{\{|\}\}|\{([A-Za-z_][A-Za-z0-9_]*)\}")
_STEP = re.compile(r"([^.\[\]]+)|\[(\*|\d+)\]")


class PathMissing(LookupError):
    """A JSON path that is not in a reply."""


def placeholders(template: Any) -> set[str]:
    """Every {name} a template (a JSON value) uses."""
    if isinstance(template, str):
        return {m.group(1) for m in _PLACEHOLDER.finditer(template) if m.group(1)}
    if isinstance(template, dict):
        return set().union(*(placeholders(v) | placeholders(k) for k, v in template.items()))
    if isinstance(template, list):
        return set().union(*(placeholders(v) for v in template))
    return set()


def fill(template: Any, values: dict[str, Any]) -> Any:
    """The template with placeholders filled: "{x}" alone becomes the value itself, inside text it is formatted."""
    if isinstance(template, str):
        whole = _PLACEHOLDER.fullmatch(template)
        if whole and whole.group(1):
            return values[whole.group(1)]

        def one(match: re.Match) -> str:
            if not match.group(1):
                return match.group(0)[0]
            value = values[match.group(1)]
            return "" if value is None else str(value)

        return _PLACEHOLDER.sub(one, template)
    if isinstance(template, dict):
        return {fill(k, values): fill(v, values) for k, v in template.items()}
    if isinstance(template, list):
        return [fill(v, values) for v in template]
    return template


def parse_path(path: str) -> list[str | int | None]:
    """`a.b[0].c[*]` as steps: a key (str), an index (int) or every item (None); "" is the value itself."""
    steps: list[str | int | None] = []
    position = 0
    text = path.strip()
    while position < len(text):
        if text[position] == "." and steps:
            position += 1
        match = _STEP.match(text, position)
        if not match:
            raise ValueError(f"cannot read {path!r} at character {position + 1}")
        key, index = match.groups()
        steps.append(key if key is not None else (None if index == "*" else int(index)))
        position = match.end()
    return steps


def lookup(value: Any, path: str) -> Any:
    """The value at a JSON path; a path with [*] gives a list of every match. PathMissing when absent."""
    found = [value]
    spread = False
    for step in parse_path(path):
        out = []
        for item in found:
            if step is None:
                if not isinstance(item, list):
                    raise PathMissing(path)
                out.extend(item)
            elif isinstance(step, int):
                if not isinstance(item, list) or step >= len(item):
                    raise PathMissing(path)
                out.append(item[step])
            else:
                if not isinstance(item, dict) or step not in item:
                    raise PathMissing(path)
                out.append(item[step])
        spread = spread or step is None
        found = out
    return found if spread else found[0]
