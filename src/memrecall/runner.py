"""Run a retriever over every store and query of a Task."""

from __future__ import annotations

from memrecall.model import Ranking, Task
from memrecall.progress import progress_bar
from memrecall.retrievers.base import TaskAware


def run_task(task: Task, retriever: TaskAware, show_progress: bool = False) -> dict[str, Ranking]:
    """Rankings for every query of the task, keyed by query id, in the task's query order."""
    retriever.prepare(task)
    by_store: dict[str, list] = {}
    for query in task.queries:
        by_store.setdefault(query.store_id, []).append(query)
    rankings: dict[str, Ranking] = {}
    with progress_bar(len(task.queries), f"{retriever.name}: ranking", show_progress, unit="query") as bar:
        for store_id, queries in by_store.items():
            retriever.index(task.stores[store_id])
            for query in queries:
                rankings[query.id] = retriever.rank(query)
                bar.update(1)
    return {q.id: rankings[q.id] for q in task.queries}
