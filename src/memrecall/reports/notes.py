"""What a reader must know beside a report's numbers: trivial cut-offs, the scoring depth, unofficial data."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from memrecall.data.official import official_note
from memrecall.scoring.policy import TRIVIAL_KEY

EVERY_STORE = "k reaches every store"


def trivial_text(cell: Any, n: Any) -> str:
    """`k reaches every store`, `k reaches the store for 12 of 200`, or "" (no count, or none trivial)."""
    count = cell.get(TRIVIAL_KEY) if isinstance(cell, Mapping) else None
    if not isinstance(count, int) or isinstance(count, bool) or count <= 0:
        return ""
    if count == n:
        return EVERY_STORE
    return f"k reaches the store for {count} of {n}"


def depth_note(content: Mapping[str, Any]) -> str | None:
    """The scoring depth in words, when rankings are scored down to a fixed rank."""
    scoring = content.get("scoring")
    depth = scoring.get("depth") if isinstance(scoring, Mapping) else None
    if not isinstance(depth, int) or isinstance(depth, bool):
        return None
    return f"every ranking is scored down to rank {depth} (so mrr is mrr@{depth}, for every system alike)"


def report_notes(content: Mapping[str, Any]) -> list[str]:
    """The notes of a report's content, in a fixed order: unofficial data first, then the depth."""
    notes = [official_note(content.get("data")), depth_note(content)]
    return [note for note in notes if note]
