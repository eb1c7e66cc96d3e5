"""The one run pipeline: any system on any benchmark's Task, its rankings strictly checked."""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from typing import Any

from memrecall.data.model import Query, Ranking, Task
from memrecall.data.rankings import RankingRow, check_rows
from memrecall.errors import RankingsError
from memrecall.progress import progress_bar
from memrecall.running.limits import TooLong
from memrecall.scoring.depth import at_depth
from memrecall.systems.contract import NotMeasurable, SystemAdapter, ranked_ids


@dataclass
class SystemRun:
    """One system's checked rankings for every query of a task, its config and how long it took."""

    name: str
    config: dict
    rankings: dict[str, Ranking]
    seconds: float
    uses_gold_labels: bool = False
    cost: dict | None = None
    not_measurable: dict[str, str] = field(default_factory=dict)


def rank_task(
    system: SystemAdapter,
    task: Task,
    require_full: bool,
    show_progress: bool = False,
    executor=None,
    depth: int | None = None,
) -> SystemRun:
    """Prepare, then index each store and rank its queries (where the executor says); check every ranking.

    The system only ever sees `task.public()`, a fresh sealed copy: no targets, strata or labels. A system
    that declares `uses_gold_labels` is handed the authored labels as well, and its run says so.
    """
    from memrecall.running.cost import TimedSystem, run_cost, store_counts
    from memrecall.running.executors import LocalExecutor

    executor = executor or LocalExecutor()
    started = time.perf_counter()
    depth = None if require_full else depth
    public = task.public(depth)
    by_store: dict[str, list[Query]] = {}
    for query in public.queries:
        by_store.setdefault(query.store_id, []).append(query)
    work = [(store_id, public.stores[store_id], tuple(queries)) for store_id, queries in by_store.items()]
    if system.uses_gold_labels:
        system.give_gold_labels(task.gold_labels())
    system.prepare(task.public(depth))
    config = system.config()  # after prepare: an adapter may settle its recipe there
    prepared, system = time.perf_counter() - started, TimedSystem(system)
    with progress_bar(len(task.queries), f"{system.name}: ranking", show_progress, unit="query") as bar:
        outputs = executor.rank_stores(system, work, bar.update)
    rows: list[RankingRow] = []
    given: dict[str, Ranking] = {}
    problems: list[str] = []
    unmeasured: dict[str, str] = {}
    for store_id, queries in by_store.items():
        answers = outputs[store_id]
        if len(answers) != len(queries):
            problems.append(f"store {store_id}: rank_many returned {len(answers)} rankings for {len(queries)} queries")
            continue
        for query, output in zip(queries, answers, strict=True):
            if isinstance(output, TooLong):
                problems.append(output.problem(query.id, store_id))
                continue
            if isinstance(output, NotMeasurable):  # memrecall's own adapters only: plug-in answers never come here
                unmeasured[query.id] = str(output.reason)[:300]
                continue
            row, problem = _row(query, output)
            if problem:
                problems.append(problem)
            else:
                rows.append(row)
                if isinstance(output, Ranking):
                    given[query.id] = output
    measured = replace(task, queries=tuple(q for q in task.queries if q.id not in unmeasured))
    counts = store_counts(outputs)
    config = {**config, "counts": counts} if counts else config
    run = checked_run(system.name, config, rows, given, problems, measured, require_full, depth)
    run.seconds = time.perf_counter() - started
    run.cost = run_cost(outputs, prepared, run.seconds)
    run.uses_gold_labels = system.adapter.uses_gold_labels
    run.not_measurable = unmeasured
    return run


def checked_run(
    name: str,
    config: dict,
    rows: list[RankingRow],
    given: dict[str, Ranking],
    problems: list[str],
    task: Task,
    require_full: bool,
    depth: int | None,
) -> SystemRun:
    """The run of rows checked against the task (a system's own Ranking kept where `given` has one), cut to `depth`.

    Every problem, the answers' own and the rows' mismatches, is one RankingsError naming the system.
    A system that ranks deeper than the benchmark scores keeps only the ranks that are scored (see
    memrecall.scoring.policy.scoring_depth), so every system's stored rankings end at the same rank.
    """
    rankings, mismatches = check_rows(rows, task, require_full)
    problems = problems + [p for p in mismatches if not p.startswith("missing query") or not problems]
    if problems:
        raise RankingsError(f"system {name}", problems)
    checked = {q.id: at_depth(given.get(q.id, rankings[q.id]), depth) for q in task.queries}
    return SystemRun(name, config, checked, 0.0)


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
