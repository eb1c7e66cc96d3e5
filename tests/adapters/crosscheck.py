"""Cross-check helpers: dense's exact cosine rankings, an adapter's rankings, and how they differ."""

from __future__ import annotations

import functools
import tempfile
from pathlib import Path

from memrecall.benchmarks import get_benchmark
from memrecall.data.model import Task
from memrecall.encoding.embeddings import Encoder, resolve_model
from memrecall.systems.builtin.dense import DenseRetriever

LOCOMO = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "locomo10.json"


def load_task(benchmark: str, path: Path | None = None) -> Task:
    """A benchmark's Task from `path`, or from its default data."""
    bench = get_benchmark(benchmark)
    return bench.load(bench.resolve_data(path)).task


def by_store(task: Task) -> dict[str, list]:
    """The task's queries grouped by store, in task order."""
    grouped: dict[str, list] = {}
    for q in task.queries:
        grouped.setdefault(q.store_id, []).append(q)
    return grouped


def dense_rankings(task: Task, cache: Path) -> dict[str, dict[str, float]]:
    """memrecall's dense built-in: per query, doc id -> cosine, in its ranking order (ties in store order)."""
    dense = DenseRetriever(Encoder(resolve_model(None), cache, device="cpu"))
    dense.prepare(task)
    out = {}
    for store_id, queries in by_store(task).items():
        dense.index(task.stores[store_id])
        for q in queries:
            ranking = dense.rank(q)
            out[q.id] = dict(zip(ranking.doc_ids, ranking.scores, strict=True))
    return out


def adapter_rankings(adapter, task: Task) -> dict[str, list[str]]:
    """An adapter's ranking of every query, store by store, as the pipeline calls it."""
    adapter.prepare(task)
    out = {}
    for store_id, queries in by_store(task).items():
        adapter.index(task.stores[store_id])
        answers = adapter.rank_many(queries) if hasattr(adapter, "rank_many") else [adapter.rank(q) for q in queries]
        out.update({q.id: list(a) for q, a in zip(queries, answers, strict=True)})
    return out


def differing(exact: dict[str, dict[str, float]], other: dict[str, list[str]]) -> list[str]:
    """Query ids whose ranking differs from the exact one."""
    return sorted(qid for qid, scores in exact.items() if list(scores) != other[qid])


def unexplained(exact: dict[str, dict[str, float]], other: dict[str, list[str]], tolerance: float) -> list[str]:
    """Query ids whose ranking is not a sort of dense's cosines to within `tolerance` (near-ties only)."""
    bad = []
    for qid in differing(exact, other):
        scores = [exact[qid][d] for d in other[qid]]
        if any(later > earlier + tolerance for earlier, later in zip(scores, scores[1:], strict=False)):
            bad.append(qid)
    return bad


def largest_gap(exact: dict[str, dict[str, float]], other: dict[str, list[str]]) -> float:
    """The largest cosine by which a later document beats an earlier one in `other`'s orders (0.0 if none)."""
    gap = 0.0
    for qid in differing(exact, other):
        scores = [exact[qid][d] for d in other[qid]]
        gap = max([gap, *(later - earlier for earlier, later in zip(scores, scores[1:], strict=False))])
    return gap


@functools.cache
def exact_for(benchmark: str) -> tuple[Task, dict[str, dict[str, float]]]:
    """The task and dense's rankings for `benchmark` (epirec: v2; locomo: the shared LoCoMo file), once per session."""
    from memrecall.data.releases import bundled_release

    task = load_task(benchmark, LOCOMO if benchmark == "locomo" else bundled_release("epirec_v2.json"))
    with tempfile.TemporaryDirectory(prefix="memrecall-crosscheck-") as cache:
        return task, dense_rankings(task, Path(cache))
