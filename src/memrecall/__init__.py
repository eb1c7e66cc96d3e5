"""memrecall: does your agent memory recall the right memory?"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import warnings

from memrecall.data.model import Document, Query, Ranking
from memrecall.reports.version import __version__

__all__ = [
    "Document",
    "Query",
    "Ranking",
    "Result",
    "__version__",
    "assert_gate_passes",
    "evaluate_rankings",
    "gate",
    "run_system",
]
API = frozenset({"Result", "assert_gate_passes", "evaluate_rankings", "gate", "run_system"})


def __getattr__(name: str):  # noqa: ANN202 - PEP 562: the API is imported on first use
    """`Result`, `evaluate_rankings`, `run_system`, `gate` and `assert_gate_passes` from memrecall.api, on first use.

    So a plug-in's worker process (and `memrecall --help`) does not pay for the scoring stack at start.
    """
    if name in API:
        from memrecall import api

        return getattr(api, name)
    raise AttributeError(f"module 'memrecall' has no attribute {name!r}")


# Import paths that README or examples/ documented before the 0.2 layout; each warns and goes in the next release.
LEGACY_MODULES = {
    "memrecall.datasets.epirec": "memrecall.data.loaders.epirec",
    "memrecall.datasets.locomo": "memrecall.data.loaders.locomo",
    "memrecall.datasets.longmemeval": "memrecall.data.loaders.longmemeval",
    "memrecall.embeddings": "memrecall.encoding.embeddings",
    "memrecall.harness": "memrecall.running.harness",
    "memrecall.model": "memrecall.data.model",
    "memrecall.rankings": "memrecall.data.rankings",
    "memrecall.report": "memrecall.reports.content",
    "memrecall.retrievers.hashing": "memrecall.systems.builtin.hashing",
    "memrecall.retrievers.windowed": "memrecall.systems.builtin.windowed",
    "memrecall.vector_cache": "memrecall.encoding.vector_cache",
}
LEGACY_PACKAGES = {"memrecall.datasets": "memrecall.data", "memrecall.retrievers": "memrecall.systems.builtin"}


class _LegacyPath(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Resolves an old import path to the module at its new place, with a DeprecationWarning."""

    def find_spec(self, fullname, path=None, target=None):  # noqa: ANN001, ANN201 - the finder protocol
        """A spec for a legacy name, else None."""
        if fullname in LEGACY_MODULES or fullname in LEGACY_PACKAGES:
            return importlib.util.spec_from_loader(fullname, self, is_package=fullname in LEGACY_PACKAGES)
        return None

    def create_module(self, spec):  # noqa: ANN001, ANN201 - the loader protocol
        """The module at its new path (the same object, so patches through either name agree)."""
        new = LEGACY_MODULES.get(spec.name) or LEGACY_PACKAGES[spec.name]
        warnings.warn(f"{spec.name} moved to {new}; the old path goes in the next release", DeprecationWarning, 2)
        module = importlib.import_module(new)
        spec.loader_state = module.__spec__
        return module

    def exec_module(self, module) -> None:  # noqa: ANN001 - the loader protocol
        """Nothing to run; give the module back its own spec, which the import system replaced."""
        module.__spec__ = module.__spec__.loader_state


if not any(isinstance(finder, _LegacyPath) for finder in sys.meta_path):
    sys.meta_path.insert(0, _LegacyPath())
