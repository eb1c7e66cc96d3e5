"""The system registry: built-in systems by name, entry points, and MODULE:ATTR loading."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memrecall.encoding.embeddings import Encoder
from memrecall.errors import ConfigError, UsageError, comma_list
from memrecall.systems.contract import contract_problem, is_system

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
        from memrecall.systems.builtin.windowed import WindowedDenseRetriever

        return WindowedDenseRetriever(context.encoder(), context.show_progress)
    from memrecall.systems.builtin.dense import DenseRetriever

    return DenseRetriever(context.encoder(), context.show_progress)


def build_builtin(name: str, context: SystemContext) -> Any:
    """A fresh built-in system by name."""
    from memrecall.systems.builtin.fts5 import Fts5Retriever
    from memrecall.systems.builtin.fusion import HybridRetriever

    if name == "recency":
        from memrecall.systems.builtin.recency import RecencyRetriever

        return RecencyRetriever()
    if name == "hashing":
        from memrecall.systems.builtin.hashing import HashingRetriever

        return HashingRetriever()
    if name == "fts5":
        return Fts5Retriever()
    if name == "bm25-official":
        from memrecall.systems.builtin.bm25_official import OfficialBM25

        return OfficialBM25()
    if name == "dense":
        return _dense(context)
    if name == "hybrid":
        return HybridRetriever([Fts5Retriever(), _dense(context)])
    if name in MEMORY_MODEL_SYSTEMS:
        from memrecall.systems.builtin.dense import DenseRetriever
        from memrecall.systems.builtin.memory_models import build_memory_model

        return build_memory_model(name, DenseRetriever(context.encoder(), context.show_progress))
    raise UsageError(f"unknown system {name!r}")


def registered_names() -> list[str]:
    """Built-in system names, then names installed packages register under `memrecall.systems.registry`."""
    from importlib.metadata import entry_points

    return [*BUILTIN_SYSTEMS, *sorted(ep.name for ep in entry_points(group=ENTRY_POINT_GROUP))]


def default_name(spec: str) -> str:
    """The name a spec runs under unless --name says otherwise: the name itself, or MODULE:ATTR's ATTR."""
    if spec.endswith(".toml"):  # a service file: the `name` it gives
        from memrecall.systems.services.loading import service_name

        return service_name(spec)
    return spec.partition(":")[2].strip() if ":" in spec and entry_point(spec) is None else spec


def reserved_name_problem(name: str, spec: str | None) -> str | None:
    """Why a run may not report under `name` (a registered system's name that `spec` is not), or None."""
    if name in registered_names() and name != spec:
        what = f"--system {spec}" if spec else "this system"
        return f"{name!r} is the name of a registered system and {what} is not it; give another name with --name"
    return None


def parse_system_names(text: str, known: Sequence[str] = BUILTIN_SYSTEMS) -> list[str]:
    """Split a comma list of built-in names (--strategies), rejecting empty, unknown or repeated ones."""
    names = comma_list(text, "--strategies")
    unknown = [n for n in names if n not in known]
    if unknown:
        raise UsageError(f"unknown strategy {unknown[0]!r}; choose from {', '.join(known)}")
    return names


def load_system(spec: str, context: SystemContext) -> tuple[Any, str]:
    """A system and its default name from a built-in name, an entry-point name, or MODULE:ATTR."""
    if spec in BUILTIN_SYSTEMS:
        return build_builtin(spec, context), spec
    if spec.endswith(".toml"):  # a service file (docs/services.md)
        from memrecall.systems.services.loading import load_service

        return load_service(spec)
    return load_plugin(spec)


def entry_point(spec: str):
    """The `memrecall.systems` entry point registered under `spec`, or None."""
    from importlib.metadata import entry_points

    return next((e for e in entry_points(group=ENTRY_POINT_GROUP) if e.name == spec), None)


def is_trusted_spec(spec: str) -> bool:
    """True for memrecall's own code: a built-in name, an entry point memrecall registers, or a service file."""
    if spec in BUILTIN_SYSTEMS or spec.endswith(".toml"):
        return True
    entry = entry_point(spec)
    dist = getattr(entry, "dist", None) if entry is not None else None
    return dist is not None and dist.name == "memrecall" and entry.value.startswith("memrecall.systems.")


def spec_problem(spec: str) -> str | None:
    """Why `spec` names no system (no built-in, entry point or service file of that name, and not MODULE:ATTR)."""
    if spec in BUILTIN_SYSTEMS or spec.endswith(".toml") or ":" in spec or entry_point(spec) is not None:
        return None
    return f"unknown system {spec!r}: give MODULE:ATTR or one of {', '.join(registered_names())}"


def load_plugin(spec: str) -> tuple[Any, str]:
    """A system and its default name from an entry-point name or MODULE:ATTR (imports and builds user code)."""
    entry = entry_point(spec)
    if entry is not None:
        try:
            target = entry.load()
        except (Exception, SystemExit) as exc:  # noqa: BLE001 - any import failure of user code becomes one line
            raise ConfigError(f"--system {spec}: cannot load {entry.value}: {_what(exc)}") from None
        return _instantiate(target, spec), spec
    problem = spec_problem(spec)
    if problem is not None:
        raise UsageError(problem)
    module_name, _, attr = spec.partition(":")
    if str(Path.cwd()) not in sys.path:
        sys.path.insert(0, str(Path.cwd()))
    try:
        module = importlib.import_module(module_name)
    except (Exception, SystemExit) as exc:  # noqa: BLE001 - any import failure of user code becomes one line
        raise ConfigError(f"--system {spec}: cannot import {module_name}: {_what(exc)}") from None
    target = module
    for part in attr.split("."):
        if not hasattr(target, part):
            raise ConfigError(f"--system {spec}: {module_name} has no attribute {attr}")
        target = getattr(target, part)
    return _instantiate(target, spec), attr


def _instantiate(target: Any, spec: str) -> Any:
    """A class is called with no arguments, a system object is used as is, another callable is called."""
    try:
        if isinstance(target, type) or not is_system(target) and callable(target):
            target = target()
    except (Exception, SystemExit) as exc:  # noqa: BLE001 - user code
        raise ConfigError(f"--system {spec}: constructing it failed: {_what(exc)}") from None
    problem = contract_problem(target)
    if problem is not None:
        raise ConfigError(f"--system {spec}: {problem}")
    return target


def _what(exc: BaseException) -> str:
    """`TYPE: message`, or `called sys.exit(CODE)` for an exit."""
    if isinstance(exc, SystemExit):
        return f"it called sys.exit({exc.code!r})"
    return f"{type(exc).__name__}: {exc}"


def module_file(module_name: str, search: Iterable[str]) -> Path | None:
    """The source file of a plug-in module, found without importing it or its packages (None if not found)."""
    from importlib.machinery import PathFinder

    locations: list[str] | None = list(search)
    spec = None
    for part in module_name.split("."):
        if locations is None:
            return None
        try:
            spec = PathFinder.find_spec(part, locations)
        except (ImportError, ValueError, OSError):
            return None
        if spec is None:
            return None
        locations = list(spec.submodule_search_locations) if spec.submodule_search_locations else None
    origin = spec.origin if spec is not None else None
    return Path(origin) if origin and origin not in ("built-in", "frozen") and Path(origin).is_file() else None
