"""Turn-level runs seen at session level: the sessions of a ranking's turns in first-seen order."""

from __future__ import annotations

from collections.abc import Mapping

from memrecall.data.model import JudgedQuery, LabelledDocument, Ranking, Task
from memrecall.errors import ConfigError

UNITS = ("session",)


def session_of(task: Task) -> dict[str, str]:
    """Each document's session (its `session` label); ConfigError when a store's documents carry none."""
    out = {}
    for store_id, docs in task.stores.items():
        for d in docs:
            session = d.labels.get("session") if d.labels else None
            if not isinstance(session, str):
                raise ConfigError(
                    f"--unit session needs turn-level documents that name their session; document {d.id!r} of "
                    f"store {store_id!r} ({task.name} {task.version}) names none"
                )
            out[d.id] = session
    return out


def session_task(task: Task) -> Task:
    """The task whose documents are the sessions of its turns and whose gold is the sessions of the gold turns."""
    session = session_of(task)
    stores = {
        store_id: tuple(LabelledDocument(s, "", None) for s in dict.fromkeys(session[d.id] for d in docs))
        for store_id, docs in task.stores.items()
    }
    queries = tuple(
        JudgedQuery(q.id, q.store_id, q.text, q.time, frozenset(session[t] for t in q.targets), q.strata)
        for q in task.queries
    )
    version = task.version.replace("turn", "turn->session", 1)
    return Task(task.name, version, task.source_sha256, stores, queries)


def session_rankings(task: Task, rankings: Mapping[str, Ranking]) -> dict[str, Ranking]:
    """Each turn ranking of `task` as the sessions its turns belong to, in the order their first turn ranks.

    Reading turns until k distinct sessions appear (LongMemEval's effective k) gives exactly the first
    k sessions of this order, so recall@k and recall_all@k here equal the official turn -> session values.
    """
    session = session_of(task)
    out = {}
    for query_id, ranking in rankings.items():
        sessions = tuple(dict.fromkeys(session[d] for d in ranking.doc_ids))
        out[query_id] = Ranking(query_id, sessions, tuple(float(len(sessions) - i) for i in range(len(sessions))))
    return out


def turns_to_sessions(task: Task, rankings: Mapping[str, Ranking]) -> tuple[Task, dict[str, Ranking]]:
    """The session task and the session rankings of a turn-level run."""
    return session_task(task), session_rankings(task, rankings)


def unit_problem(unit: str | None) -> str | None:
    """Why `unit` is not a scoring unit memrecall knows, or None (None: score the documents as ranked)."""
    if unit is None or unit in UNITS:
        return None
    return f"unknown unit {unit!r}; choose {', '.join(UNITS)} (or leave it out to score the documents as ranked)"


def unit_view(task: Task, dataset: Mapping, unit: str | None) -> tuple[Task, dict]:
    """The task scored at `unit` (None: as ranked) and its dataset facts, which then record the unit."""
    problem = unit_problem(unit)
    if problem:
        raise ConfigError(problem)
    if unit is None:
        return task, dict(dataset)
    return session_task(task), {**dataset, "unit": unit}
