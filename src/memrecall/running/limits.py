"""A system's answer longer than its store is cut off where it comes back, before anything else holds it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from memrecall.data.model import Ranking


@dataclass(frozen=True)
class TooLong:
    """Stands in for an answer that listed more ids than the store holds documents (the ids are dropped)."""

    count: int
    store_size: int

    def problem(self, query_id: str, store_id: str) -> str:
        """The one line naming the query, the store and both counts."""
        return (
            f"query {query_id}: rank() returned {self.count} ids but store {store_id!r} holds only "
            f"{self.store_size} documents; a ranking lists each document at most once"
        )


def cap_to_store(answers: Sequence[Any], store_size: int) -> list[Any]:
    """Each answer as given, or a TooLong marker when it ranks more ids than `store_size`."""
    out = []
    for answer in answers:
        ids = answer.doc_ids if isinstance(answer, Ranking) else answer
        count = len(ids) if isinstance(ids, (list, tuple)) else -1
        out.append(TooLong(count, store_size) if count > store_size else answer)
    return out
