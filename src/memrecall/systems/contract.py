"""The plug-in contract: any object with index() and rank(), seen through one adapter that wraps it in user_code."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from memrecall.data.model import Document, PublicTask, Query, Ranking
from memrecall.errors import ConfigError, SystemFailure
from memrecall.systems.user_code import json_safe_config, user_code


@dataclass(frozen=True)
class NotMeasurable:
    """A system's answer to a query whose results carry nothing that maps back to the store's ids."""

    reason: str


REQUIRED_METHODS = ("index(documents)", "rank(query)")


def is_system(obj: Any) -> bool:
    """True when obj has callable index and rank."""
    return contract_problem(obj) is None


def contract_problem(obj: Any) -> str | None:
    """What `obj` lacks of the contract, naming each missing method exactly; None when it has both."""
    missing = [m for m in REQUIRED_METHODS if not callable(getattr(obj, m.split("(")[0], None))]
    if not missing:
        return None
    has = [m for m in REQUIRED_METHODS if m not in missing]
    what = (
        f"{type(obj).__name__} has {has[0].split('(')[0]}() but no {missing[0]} method"
        if has
        else (f"{type(obj).__name__} has neither an index(documents) nor a rank(query) method")
    )
    return f"{what}; a system needs both index(documents) and rank(query)"


@dataclass
class SystemAdapter:
    """Any object with index() and rank(), seen through the full contract (optional parts filled in).

    Every call into the system's own code goes through `user_code`, so whatever it raises, exits or
    interrupts with becomes one line naming the system, the method and the plug-in's file and line.
    """

    system: Any
    name: str
    uses_gold_labels: bool = False  # read once, when the system was adapted: an oracle, reported apart

    def prepare(self, task: PublicTask) -> None:
        """Call the system's prepare(task) with the sealed view, when it has one."""
        if callable(getattr(self.system, "prepare", None)):
            with user_code(self.name, "prepare", self.system):
                self.system.prepare(task)

    def give_gold_labels(self, labels: Mapping[str, Mapping[str, Mapping[str, str]]]) -> None:
        """Hand authored labels (by store and document id) to a system that declared `uses_gold_labels`."""
        with user_code(self.name, "receive_gold_labels", self.system):
            self.system.receive_gold_labels(labels)

    def config(self) -> dict:
        """The system's config() made JSON-safe when it has one, else its name."""
        if not callable(getattr(self.system, "config", None)):
            return {"name": self.name}
        with user_code(self.name, "config", self.system):
            raw = self.system.config()
        return json_safe_config(self.name, raw)

    def index(self, documents: Sequence[Document], store_id: str | None = None) -> None:
        """Index one store."""
        with user_code(self.name, "index", self.system, f" on store {store_id!r}" if store_id else ""):
            self.system.index(documents)

    def store_counts(self, store_id: str | None = None) -> dict[str, int]:
        """The system's store_counts() for the store it just ranked (name -> count), when it has one, else {}."""
        if not callable(getattr(self.system, "store_counts", None)):
            return {}
        with user_code(self.name, "store_counts", self.system, f" on store {store_id!r}" if store_id else ""):
            counts = self.system.store_counts()
        items = counts.items() if isinstance(counts, Mapping) else [(counts, None)]
        bad = next((k for k, v in items if not isinstance(k, str) or type(v) is not int or v < 0), None)
        if bad is not None or not isinstance(counts, Mapping):
            raise SystemFailure(f"{self.name}: store_counts() must map names to counts >= 0, got {bad!r}")
        return dict(counts)

    def rank_many(self, queries: Sequence[Query], store_id: str | None = None) -> list[Any]:
        """The system's rank_many(queries) when it has one, else rank() per query."""
        if callable(getattr(self.system, "rank_many", None)):
            with user_code(self.name, "rank_many", self.system, f" on store {store_id!r}" if store_id else ""):
                return list(self.system.rank_many(tuple(queries)))
        out = []
        for query in queries:
            with user_code(self.name, "rank", self.system, f" on query {query.id!r}"):
                out.append(self.system.rank(query))
        return out


def unwrapped(system: Any) -> Any:
    """The system itself, out of a SystemAdapter around it (a wrapper says nothing of whose code it is)."""
    return system.system if isinstance(system, SystemAdapter) else system


def adapt(system: Any, name: str | None = None, default_name: str | None = None) -> SystemAdapter:
    """Wrap a system; its name is `name`, else its `name` attribute, else `default_name`, else its class."""
    if isinstance(system, SystemAdapter):
        return system if name is None else SystemAdapter(system.system, name, system.uses_gold_labels)
    with user_code(name or default_name or type(system).__name__, "index/rank lookup", system):
        problem = contract_problem(system)
    if problem is not None:
        raise ConfigError(problem)
    own = None
    if name is None:
        with user_code(default_name or type(system).__name__, "name", system):
            own = getattr(system, "name", None)
    chosen = name or (own if isinstance(own, str) and own else None) or default_name or type(system).__name__
    with user_code(chosen, "uses_gold_labels", system):
        declared = getattr(system, "uses_gold_labels", False) is True
    return SystemAdapter(system, chosen, declared)


def ranked_ids(output: Any) -> tuple[Any, ...] | None:
    """The ids of a Ranking or of a sequence of ids, best first; None when it is neither."""
    if isinstance(output, Ranking):
        return output.doc_ids
    if isinstance(output, (list, tuple)):
        return tuple(output)
    return None
