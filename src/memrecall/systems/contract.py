"""The plug-in contract: any object with index() and rank(), seen through one adapter."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from memrecall.data.model import Document, Query, Ranking, Task
from memrecall.errors import ConfigError


def is_system(obj: Any) -> bool:
    """True when obj has callable index and rank."""
    return callable(getattr(obj, "index", None)) and callable(getattr(obj, "rank", None))


@dataclass
class SystemAdapter:
    """Any object with index() and rank(), seen through the full contract (optional parts filled in)."""

    system: Any
    name: str

    def prepare(self, task: Task) -> None:
        """Call the system's prepare(task) when it has one."""
        if callable(getattr(self.system, "prepare", None)):
            self.system.prepare(task)

    def config(self) -> dict:
        """The system's config() when it has one, else its name."""
        if callable(getattr(self.system, "config", None)):
            return dict(self.system.config())
        return {"name": self.name}

    def index(self, documents: Sequence[Document]) -> None:
        """Index one store."""
        self.system.index(documents)

    def rank_many(self, queries: Sequence[Query]) -> list[Any]:
        """The system's rank_many(queries) when it has one, else rank() per query."""
        if callable(getattr(self.system, "rank_many", None)):
            return list(self.system.rank_many(list(queries)))
        return [self.system.rank(q) for q in queries]


def adapt(system: Any, name: str | None = None, default_name: str | None = None) -> SystemAdapter:
    """Wrap a system; its name is `name`, else its `name` attribute, else `default_name`, else its class."""
    if not is_system(system):
        raise ConfigError(f"{type(system).__name__} has no index(documents) and rank(query) methods")
    own = getattr(system, "name", None)
    chosen = name or (own if isinstance(own, str) and own else None) or default_name or type(system).__name__
    return SystemAdapter(system, chosen)


def ranked_ids(output: Any) -> tuple[Any, ...] | None:
    """The ids of a Ranking or of a sequence of ids, best first; None when it is neither."""
    if isinstance(output, Ranking):
        return output.doc_ids
    if isinstance(output, (list, tuple)):
        return tuple(output)
    return None
