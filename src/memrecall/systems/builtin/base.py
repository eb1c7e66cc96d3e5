"""The system contract: index one store, then rank it for a query, best first."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

from memrecall.data.model import Document, PublicTask, Query, Ranking


@runtime_checkable
class System(Protocol):
    """What `memrecall run` accepts. Optional too: prepare(task), config() -> dict, name, rank_many(queries)."""

    def index(self, documents: Sequence[Document]) -> None:
        """Take the documents of one store; replaces any previous store."""

    def rank(self, query: Query) -> Sequence[str] | Ranking:
        """Document ids of the indexed store, best first (EpiRec: all of them), or a Ranking."""


Retriever = System


class TaskAware:
    """Base of the built-in retrievers: a no-op prepare(task) and a config() naming the retriever."""

    def prepare(self, task: PublicTask) -> None:
        """Called once before any store of `task` is indexed; does nothing by default."""

    def config(self) -> dict[str, Any]:
        """The settings that define this retriever's output, recorded in reports."""
        return {"name": getattr(self, "name", type(self).__name__)}
