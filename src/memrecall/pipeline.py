"""The one run pipeline: any system on any benchmark's Task, its rankings strictly checked."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from memrecall.errors import MemrecallError, RankingsError, SystemFailure
from memrecall.model import Query, Ranking, Task
from memrecall.progress import progress_bar
from memrecall.rankings import RankingRow, check_rows
from memrecall.systems import SystemAdapter, ranked_ids


@dataclass
class SystemRun:
    """One system's checked rankings for every query of a task, its config and how long it took."""

    name: str
    config: dict
    rankings: dict[str, Ranking]
    seconds: float


def rank_task(system: SystemAdapter, task: Task, require_full: bool, show_progress: bool = False) -> SystemRun:
    """Prepare, then index each store and rank its queries; every ranking passes the rankings-file checks."""
    started = time.perf_counter()
    system.prepare(task)
    by_store: dict[str, list[Query]] = {}
    for query in task.queries:
        by_store.setdefault(query.store_id, []).append(query)
    rows: list[RankingRow] = []
    given: dict[str, Ranking] = {}
    problems: list[str] = []
    with progress_bar(len(task.queries), f"{system.name}: ranking", show_progress, unit="query") as bar:
        for store_id, queries in by_store.items():
            outputs = _index_and_rank(system, store_id, task.stores[store_id], queries)
            if len(outputs) != len(queries):
                problems.append(
                    f"store {store_id}: rank_many returned {len(outputs)} rankings for {len(queries)} queries"
                )
                continue
            for query, output in zip(queries, outputs, strict=True):
                row, problem = _row(query, output)
                if problem:
                    problems.append(problem)
                else:
                    rows.append(row)
                    if isinstance(output, Ranking):
                        given[query.id] = output
                bar.update(1)
    rankings, mismatches = check_rows(rows, task, require_full)
    problems += [p for p in mismatches if not p.startswith("missing query") or not problems]
    if problems:
        raise RankingsError(f"system {system.name}", problems)
    checked = {q.id: given.get(q.id, rankings[q.id]) for q in task.queries}
    return SystemRun(system.name, system.config(), checked, time.perf_counter() - started)


def _index_and_rank(system: SystemAdapter, store_id: str, documents, queries: list[Query]) -> list[Any]:
    """Index one store and rank its queries; an exception in the system's code becomes one named error."""
    try:
        system.index(documents)
        return system.rank_many(queries)
    except MemrecallError:
        raise
    except Exception as exc:  # noqa: BLE001 - whatever a plug-in raises is reported, not a traceback
        raise SystemFailure(f"system {system.name}: store {store_id}: {type(exc).__name__}: {str(exc)[:200]}") from exc


def _row(query: Query, output: Any) -> tuple[RankingRow | None, str | None]:
    """A RankingRow for one system answer, or the problem with it, naming the query."""
    where = f"query {query.id}"
    ids = ranked_ids(output)
    if ids is None:
        return None, f"{where}: rank() returned {type(output).__name__}, expected a sequence of ids or a Ranking"
    if isinstance(output, Ranking) and output.query_id != query.id:
        return None, f"{where}: rank() returned the ranking of {output.query_id!r}"
    bad = [d for d in ids if not isinstance(d, str)]
    if bad:
        return None, f"{where}: ranked ids must be strings, got {type(bad[0]).__name__} {str(bad[0])[:40]!r}"
    return RankingRow(where, None, query.id, ids), None
