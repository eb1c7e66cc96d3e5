"""Reports: a fingerprinted `content` part and an `env` part outside the fingerprint."""

from __future__ import annotations

import platform
import socket
import sys
from datetime import UTC, datetime
from typing import Any

from memrecall.data.jsonfile import describe
from memrecall.data.model import Task
from memrecall.reports.proof.fingerprint import FINGERPRINT_KEY, content_sha256, fingerprint_matches
from memrecall.reports.version import __version__

signature = content_sha256  # the old name of the fingerprint function (it never was a signature); kept one release


SIGNIFICANT_DIGITS = 12


def round_floats(value: Any) -> Any:
    """Every float in a JSON-like value rounded to 12 significant digits (the last bits are platform noise)."""
    if isinstance(value, float):
        return float(f"{value:.{SIGNIFICANT_DIGITS}g}")
    if isinstance(value, dict):
        return {key: round_floats(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [round_floats(item) for item in value]
    return value


def make_report(content: dict[str, Any], env: dict[str, Any]) -> dict[str, Any]:
    """Wrap content (floats rounded, with the memrecall version, fingerprinted) and env (outside it) into a report."""
    content = round_floats({**content, "memrecall_version": __version__, "report_schema": REPORT_SCHEMA})
    return {"content": content, "env": env, FINGERPRINT_KEY: content_sha256(content)}


def package_versions() -> dict[str, str | None]:
    """Installed versions of the numeric stack, read without importing it."""
    from importlib.metadata import PackageNotFoundError, version

    out: dict[str, str | None] = {}
    for name in ("numpy", "torch", "sentence-transformers", "transformers", "onnxruntime", "tokenizers"):
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            out[name] = None
    return out


def verify(report: dict[str, Any]) -> bool:
    """True when the report's fingerprint matches its content (says nothing about who made it)."""
    return fingerprint_matches(report)


def environment(durations: dict[str, float], **extra: Any) -> dict[str, Any]:
    """Host, Python, platform, UTC finish time and durations: what stays out of the fingerprint."""
    return {
        "host": socket.gethostname(),
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "finished_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "durations_seconds": {k: round(v, 3) for k, v in sorted(durations.items())},
        "versions": package_versions(),
        **extra,
    }


def task_identity(task: Task) -> dict:
    """Name, version, source sha256, reference time and sizes of a task, for reports."""
    return {
        "name": task.name,
        "version": task.version,
        "source_sha256": task.source_sha256,
        "reference_time": task.reference_time.isoformat() if task.reference_time else None,
        "stores": len(task.stores),
        "documents": sum(len(s) for s in task.stores.values()),
        "queries": len(task.queries),
    }


def data_identity(task: Task) -> dict:
    """The task's source file against the official releases memrecall knows (see memrecall.data.official)."""
    from memrecall.data.official import official_record

    return official_record(task.name.lower(), task.source_sha256)


REPORT_SCHEMA = 3
"""2: one content shape (systems / system_order, kind "systems") for every command. 3: the dataset's family is
`dataset.family` (was `dataset.kind`), and each encoder claim signs `vectors_computed_at_least`."""


def shape_problem(report: Any) -> str | None:
    """What keeps `report` from being a renderable memrecall report of the current shape, or None.

    A report of an old shape (strategies, modes, dataset.kind) is read through
    memrecall.reports.shapes.current_shape first.
    """
    if not isinstance(report, dict) or not isinstance(report.get("content"), dict):
        return "not a memrecall report (no content object)"
    content = report["content"]
    task = content.get("task")
    if not isinstance(task, dict) or not all(k in task for k in ("name", "version", "queries")):
        return "content.task is missing or incomplete"
    for key in ("name", "version"):
        if not isinstance(task[key], str):
            return f"content.task.{key} must be a string, got {describe(task[key])}"
    if isinstance(task["queries"], bool) or not isinstance(task["queries"], int):
        return f"content.task.queries must be an integer, got {describe(task['queries'])}"
    if not isinstance(content.get("primary_metric", ""), str):
        return f"content.primary_metric must be a string, got {describe(content['primary_metric'])}"
    for key in ("primary_metric", "scoring"):
        if key not in content:
            return f"content.{key} is missing"
    if "system_order" in content or "systems" in content:
        names, entries = content.get("system_order"), content.get("systems")
        if not isinstance(names, list) or not isinstance(entries, dict) or any(n not in entries for n in names):
            return "content.system_order and content.systems do not match"
        return None
    return "content holds no systems"


def report_systems(content: dict) -> list[str]:
    """The system names of a report, in its order."""
    order = content.get("system_order")
    return [str(name) for name in order] if isinstance(order, list) else []
