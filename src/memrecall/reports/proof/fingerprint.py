"""A report's fingerprint: the sha256 of its canonical content (proves nothing about who made it)."""

from __future__ import annotations

import hashlib
from typing import Any

from memrecall.io import canonical_json

FINGERPRINT_KEY = "content_sha256"
LEGACY_KEY = "signature"  # earlier reports stored the same sha256 under this misleading name


def content_sha256(content: dict[str, Any]) -> str:
    """sha256 of the content serialised with sorted keys and no spaces."""
    return hashlib.sha256(canonical_json(content).encode("utf-8")).hexdigest()


def report_fingerprint(report: Any) -> str | None:
    """The fingerprint a report records (`content_sha256`, else the legacy `signature` key), or None."""
    if not isinstance(report, dict):
        return None
    for key in (FINGERPRINT_KEY, LEGACY_KEY):
        value = report.get(key)
        if isinstance(value, str):
            return value
    return None


def fingerprint_matches(report: Any) -> bool:
    """True when the recorded fingerprint is the sha256 of the report's content."""
    recorded = report_fingerprint(report)
    content = report.get("content") if isinstance(report, dict) else None
    return recorded is not None and isinstance(content, dict) and recorded == content_sha256(content)
