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
    if "mrr" in scoring.get("metrics", []):  # a report of before report schema 2 called mrr@depth mrr
        return f"every ranking is scored down to rank {depth} (so mrr is mrr@{depth}, for every system alike)"
    return f"every ranking is scored down to rank {depth}, for every system alike (and named so: mrr@{depth})"


def unmeasured_note(dataset: Mapping[str, Any]) -> str | None:
    """How many queries were not measurable (the system's answer mapped back to no id), when any were."""
    facts = dataset.get("not_measurable") if isinstance(dataset, Mapping) else None
    if not isinstance(facts, Mapping) or not facts.get("count"):
        return None
    first = next(iter(facts.get("queries") or {}), None)
    return (
        f"{facts['count']} of {facts.get('of')} queries left out of every number: the system's answer carried nothing"
        f" that maps back to a document id (listed under dataset.not_measurable; the first is {first!r})"
    )


def report_notes(content: Mapping[str, Any]) -> list[str]:
    """The notes of a report's content, in a fixed order: unofficial data first, then the depth, then the population."""
    notes = [official_note(content.get("data")), depth_note(content), unmeasured_note(content.get("dataset") or {})]
    return [note for note in notes if note]
