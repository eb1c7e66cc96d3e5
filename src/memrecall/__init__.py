"""memrecall: does your agent memory recall the right memory?"""

from __future__ import annotations

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
