"""What a run costs: index time, per-query latency (p50, p95) and peak memory, for a report's unsigned env."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

PER_CALL = "rank() timed per query"
PER_BATCH = "rank_many() time of a store divided by its queries"


class TimedAnswers(list):
    """A store's answers, carrying how long indexing and each query took (travels back from Ray workers)."""

    index_seconds: float = 0.0
    query_seconds: tuple[float, ...] = ()
    basis: str = PER_CALL
    counts: dict[str, int] = {}  # noqa: RUF012 - replaced, never mutated: what the system counted in this store


class TimedSystem:
    """A SystemAdapter seen through a stopwatch: index() and each query are timed, and after a store's queries
    its `store_counts()` (what the system dropped or altered there) travel with the answers; nothing else changes."""

    def __init__(self, adapter: Any) -> None:
        self.adapter = adapter
        self.system = adapter.system
        self.name = adapter.name
        self._index_seconds = 0.0

    def prepare(self, task: Any) -> None:
        """The adapter's prepare(task)."""
        self.adapter.prepare(task)

    def config(self) -> dict:
        """The adapter's config()."""
        return self.adapter.config()

    def index(self, documents: Sequence[Any], store_id: str | None = None) -> None:
        """Index one store, timed."""
        started = time.perf_counter()
        self.adapter.index(documents, store_id)
        self._index_seconds = time.perf_counter() - started

    def rank_many(self, queries: Sequence[Any], store_id: str | None = None) -> TimedAnswers:
        """Rank a store's queries: one by one when the system has only rank(), else as its batch.

        Every call goes through the adapter, so its user_code wrapper applies.
        """
        if callable(getattr(self.system, "rank_many", None)):
            started = time.perf_counter()
            out = TimedAnswers(self.adapter.rank_many(queries, store_id))
            share = (time.perf_counter() - started) / max(1, len(queries))
            out.query_seconds, out.basis = tuple(share for _ in queries), PER_BATCH
        else:
            answers, seconds = [], []
            for query in queries:
                started = time.perf_counter()
                answers.extend(self.adapter.rank_many((query,), store_id))
                seconds.append(time.perf_counter() - started)
            out = TimedAnswers(answers)
            out.query_seconds = tuple(seconds)
        out.index_seconds = self._index_seconds
        out.counts = self.adapter.store_counts(store_id)
        return out


def store_counts(outputs: dict) -> dict[str, int]:
    """The counts systems reported per store, summed over the stores (sorted keys; empty when none counted)."""
    total: dict[str, int] = {}
    for answers in outputs.values():
        for key, value in getattr(answers, "counts", {}).items():
            total[key] = total.get(key, 0) + value
    return dict(sorted(total.items()))


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile (0-100) by linear interpolation between closest ranks (numpy's default)."""
    ordered = sorted(values)
    if not ordered:
        return 0.0
    position = (len(ordered) - 1) * q / 100.0
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def peak_rss_mib() -> float:
    """This process's peak resident memory so far (getrusage ru_maxrss; KiB on Linux, bytes on macOS)."""
    import resource
    import sys

    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024


def run_cost(outputs: dict, prepare_seconds: float, total_seconds: float) -> dict:
    """The cost facts of one run from its stores' TimedAnswers, rounded for env."""
    timed = [a for a in outputs.values() if isinstance(a, TimedAnswers)]
    latencies = [s for answers in timed for s in answers.query_seconds]
    bases = sorted({a.basis for a in timed})
    return {
        "prepare_seconds": round(prepare_seconds, 4),
        "index_seconds": round(sum(a.index_seconds for a in timed), 4),
        "queries": len(latencies),
        "query_latency_ms": {
            "p50": round(1000 * percentile(latencies, 50), 4),
            "p95": round(1000 * percentile(latencies, 95), 4),
            "mean": round(1000 * sum(latencies) / max(1, len(latencies)), 4),
        },
        "latency_basis": "; ".join(bases),
        "total_seconds": round(total_seconds, 3),
        "peak_rss_mib": round(peak_rss_mib(), 1),
        "peak_rss_scope": "whole process since it started (ru_maxrss)",
    }
