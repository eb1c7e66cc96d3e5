"""What signed content records of the code that ranked: the spec, the class, the source's sha256 or its
distribution, the config, and where it ran. Source facts are read before the plug-in is imported, so a
plug-in that rewrites its own file on import is recorded as it was."""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path
from typing import Any

from memrecall.systems.contract import unwrapped
from memrecall.systems.registry import entry_point, module_file


def _file_facts(path: Path | None) -> dict:
    """The source file's name and sha256 (both None when it can't be found)."""
    if path is None or not path.is_file():
        return {"source_file": None, "source_sha256": None}
    return {"source_file": path.name, "source_sha256": hashlib.sha256(path.read_bytes()).hexdigest()}


def source_facts(spec: str | None, built: Any = None) -> dict:
    """Where a plug-in's code comes from: its entry point's distribution and version, and its module file."""
    if built is not None:
        module = sys.modules.get(type(unwrapped(built)).__module__)
        file = getattr(module, "__file__", None)
        return _file_facts(Path(file) if file else None)
    entry = entry_point(str(spec))
    facts: dict = {}
    target = str(spec)
    if entry is not None:
        dist = getattr(entry, "dist", None)
        facts = {"distribution": dist.name if dist else None, "distribution_version": dist.version if dist else None}
        target = entry.value
    module = target.partition(":")[0].strip()
    return {**facts, **_file_facts(module_file(module, [str(Path.cwd()), *sys.path]))}


def plugin_identity(spec: str | None, isolation: str, source: dict, declared: dict) -> dict:
    """A plug-in's identity for signed content: origin, isolation, spec, class, source and config."""
    return {
        "origin": "run",
        "isolation": isolation,
        "spec": spec,
        "class": declared["class"],
        "config": declared["config"],
        **source,
    }


RANKINGS_FILE = {"origin": "rankings file"}
