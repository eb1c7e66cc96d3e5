"""From a service file's path to a running adapter: its name (read without running anything) and its adapter."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from memrecall.systems.services.spec import parse_service


def service_name(path: str) -> str:
    """The `name` a service file gives (read without running anything), else the file's stem."""
    try:
        name = tomllib.loads(Path(path).read_text("utf-8")).get("name")
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        name = None
    return name if isinstance(name, str) and name.strip() else Path(path).stem


def load_service(path: str) -> tuple[Any, str]:
    """(the adapter for a service file, its name)."""
    spec = parse_service(path)
    if spec.kind == "http":
        from memrecall.systems.services.http import HttpServiceAdapter

        return HttpServiceAdapter(spec), spec.name
    from memrecall.systems.services.mcp import McpServiceAdapter

    return McpServiceAdapter(spec), spec.name
