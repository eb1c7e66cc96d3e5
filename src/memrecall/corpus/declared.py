"""data/memrecall_rules.json, read strictly: which memrecall rule set each release of a checkout follows."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from memrecall.data.jsonfile import read_regular_text
from memrecall.errors import ConfigError, DatasetError

RULE_SETS = {"memrecall-epirec-v1": 1, "memrecall-epirec-v2": 2, "memrecall-epirec-v3": 3}
EXAMPLE = '{"releases": {"epirec_v2.json": "memrecall-epirec-v2"}}'


class LayoutError(ConfigError):
    """The checkout's declared layout is broken: its rules file, or a declared release's sources."""


def rule_set_name(rules: int) -> str:
    """The rule-set name memrecall gives a release of this rule number."""
    return next((name for name, number in RULE_SETS.items() if number == rules), "memrecall-epirec-v2")


def unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object whose keys are all different (json's default keeps the last of two)."""
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"duplicate key {key!r}")
        out[key] = value
    return out


def read_rules(path: Path, where: str) -> dict[str, int] | None:
    """Release file name -> rule number; None when the file is absent.

    A file that is there but unreadable, empty, malformed (not an object of releases), or naming an
    unknown rule set is a LayoutError: it never means "no rules".
    """
    if not path.exists() and not path.is_symlink():
        return None
    try:
        text = read_regular_text(path)
    except DatasetError as exc:
        raise LayoutError(f"{where}: cannot read the rules file ({exc.problem})") from None
    if not text.strip():
        raise LayoutError(f"{where}: the rules file is empty; give {EXAMPLE}, or remove it")
    try:
        data = json.loads(text, object_pairs_hook=unique_keys)
    except ValueError as exc:
        raise LayoutError(f"{where}: not valid JSON ({exc}); give {EXAMPLE}") from None
    releases = data.get("releases") if isinstance(data, dict) else None
    if not isinstance(releases, dict) or not releases:
        raise LayoutError(f'{where}: expected an object whose "releases" names each release\'s rule set: {EXAMPLE}')
    out = {}
    for name, value in releases.items():
        if not isinstance(value, str) or value not in RULE_SETS:
            raise LayoutError(f"{where}: {name}: unknown rule set {value!r}; known: {', '.join(sorted(RULE_SETS))}")
        out[name] = RULE_SETS[value]
    return out
