"""Systems: the plug-in contract, the built-in systems by name, entry points, and MODULE:ATTR loading."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memrecall.embeddings import Encoder
from memrecall.errors import ConfigError
from memrecall.model import Document, Query, Ranking, Task

ENTRY_POINT_GROUP = "memrecall.systems"
BASELINE_SYSTEMS = ("recency", "hashing", "dense", "fts5", "hybrid")
REFERENCE_SYSTEMS = ("bm25-official",)
MEMORY_MODEL_SYSTEMS = ("time-decay", "salience-oracle", "salience-vader", "gated")
BUILTIN_SYSTEMS = BASELINE_SYSTEMS + MEMORY_MODEL_SYSTEMS + REFERENCE_SYSTEMS
NEEDS_ENCODER = frozenset({"dense", "hybrid", *MEMORY_MODEL_SYSTEMS})
DENSE_POLICIES = ("windows", "truncate")


@dataclass
class SystemContext:
    """What built-in systems are made from: a lazily loaded shared encoder and the dense policy."""

    encoder: Callable[[], Encoder]
    dense_policy: str = "truncate"
    show_progress: bool = False


def _dense(context: SystemContext):
    """Plain dense (encoder truncation) or the best <= 160-word window per document."""
    if context.dense_policy not in DENSE_POLICIES:
        raise ConfigError(f"unknown dense policy {context.dense_policy!r}; choose {' or '.join(DENSE_POLICIES)}")
    if context.dense_policy == "windows":
        from memrecall.retrievers.windowed import WindowedDenseRetriever

        return WindowedDenseRetriever(context.encoder(), context.show_progress)
    from memrecall.retrievers.dense import DenseRetriever

    return DenseRetriever(context.encoder(), context.show_progress)


def build_builtin(name: str, context: SystemContext) -> Any:
    """A fresh built-in system by name."""
    from memrecall.retrievers.fts5 import Fts5Retriever
    from memrecall.retrievers.fusion import HybridRetriever

    if name == "recency":
        from memrecall.retrievers.recency import RecencyRetriever

        return RecencyRetriever()
    if name == "hashing":
        from memrecall.retrievers.hashing import HashingRetriever

        return HashingRetriever()
    if name == "fts5":
        return Fts5Retriever()
    if name == "bm25-official":
        from memrecall.retrievers.bm25_official import OfficialBM25

        return OfficialBM25()
    if name == "dense":
        return _dense(context)
    if name == "hybrid":
        return HybridRetriever([Fts5Retriever(), _dense(context)])
    if name in MEMORY_MODEL_SYSTEMS:
        from memrecall.retrievers.dense import DenseRetriever
        from memrecall.retrievers.memory_models import build_memory_model

        return build_memory_model(name, DenseRetriever(context.encoder(), context.show_progress))
    raise ConfigError(f"unknown system {name!r}")


def registered_names() -> list[str]:
    """Built-in system names, then names installed packages register under `memrecall.systems`."""
    from importlib.metadata import entry_points

    return [*BUILTIN_SYSTEMS, *sorted(ep.name for ep in entry_points(group=ENTRY_POINT_GROUP))]


def parse_system_names(text: str, known: Sequence[str] = BUILTIN_SYSTEMS) -> list[str]:
    """Split a comma list of built-in names, rejecting unknown or repeated ones."""
    names = [n.strip() for n in text.split(",") if n.strip()]
    if not names:
        raise ConfigError("no strategy given")
    unknown = [n for n in names if n not in known]
    if unknown:
        raise ConfigError(f"unknown strategy {unknown[0]!r}; choose from {', '.join(known)}")
    if len(set(names)) != len(names):
        raise ConfigError("a strategy is listed twice")
    return names


def load_system(spec: str, context: SystemContext) -> tuple[Any, str]:
    """A system and its default name from a built-in name, an entry-point name, or MODULE:ATTR."""
    if spec in BUILTIN_SYSTEMS:
        return build_builtin(spec, context), spec
    from importlib.metadata import entry_points

    for entry in entry_points(group=ENTRY_POINT_GROUP):
        if entry.name == spec:
            return _instantiate(entry.load(), spec), spec
    if ":" not in spec:
        raise ConfigError(f"unknown system {spec!r}: give MODULE:ATTR or one of {', '.join(registered_names())}")
    module_name, _, attr = spec.partition(":")
    if str(Path.cwd()) not in sys.path:
        sys.path.insert(0, str(Path.cwd()))
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:  # noqa: BLE001 - any import failure of user code becomes one line
        raise ConfigError(f"--system {spec}: cannot import {module_name}: {type(exc).__name__}: {exc}") from None
    target = module
    for part in attr.split("."):
        if not hasattr(target, part):
            raise ConfigError(f"--system {spec}: {module_name} has no attribute {attr}")
        target = getattr(target, part)
    return _instantiate(target, spec), attr


def _instantiate(target: Any, spec: str) -> Any:
    """A class is called with no arguments, a system object is used as is, another callable is called."""
    try:
        if isinstance(target, type) or not _is_system(target) and callable(target):
            target = target()
    except Exception as exc:  # noqa: BLE001 - user code
        raise ConfigError(f"--system {spec}: constructing it failed: {type(exc).__name__}: {exc}") from None
    if not _is_system(target):
        raise ConfigError(f"--system {spec}: the object has no index(documents) and rank(query) methods")
    return target


def _is_system(obj: Any) -> bool:
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
    if not _is_system(system):
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
