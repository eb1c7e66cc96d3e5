"""The retriever protocol: index one store, then rank all of it for a query."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

from memrecall.model import Document, Query, Ranking, Task


@runtime_checkable
class Retriever(Protocol):
    """Ranks every document of the indexed store for a query, best first, with scores."""

    name: str

    def index(self, store: Sequence[Document]) -> None:
        """Take the documents of one store; replaces any previous store."""

    def rank(self, query: Query) -> Ranking:
        """A full ranking of the indexed store; ties broken by a rule each retriever states."""


class TaskAware:
    """Mixin for retrievers that want to see a whole Task first (to batch-encode it)."""

    def prepare(self, task: Task) -> None:
        """Called once before any store of `task` is indexed; does nothing by default."""

    def config(self) -> dict[str, Any]:
        """The settings that define this retriever's output, recorded in reports."""
        return {"name": getattr(self, "name", type(self).__name__)}
