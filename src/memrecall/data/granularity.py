"""Turn-level runs seen at session level: LongMemEval's turn -> session rule."""

from __future__ import annotations

from collections.abc import Mapping

from memrecall.data.model import JudgedQuery, LabelledDocument, Ranking, Task


def turns_to_sessions(task: Task, rankings: Mapping[str, Ranking]) -> tuple[Task, dict[str, Ranking]]:
    """Each query's sessions in the order their first turn ranks; gold sessions are those of the gold turns.

    Reading turns until k distinct sessions appear (LongMemEval's effective k) gives exactly the first
    k sessions of this order, so recall@k and recall_all@k here equal the official turn -> session values.
    """
    session_of = {d.id: d.labels["session"] for store in task.stores.values() for d in store}
    stores = {
        store_id: tuple(LabelledDocument(s, "", None) for s in dict.fromkeys(d.labels["session"] for d in docs))
        for store_id, docs in task.stores.items()
    }
    queries = tuple(
        JudgedQuery(q.id, q.store_id, q.text, q.time, frozenset(session_of[t] for t in q.targets), q.strata)
        for q in task.queries
    )
    converted = {}
    for query_id, ranking in rankings.items():
        sessions = tuple(dict.fromkeys(session_of[d] for d in ranking.doc_ids))
        converted[query_id] = Ranking(query_id, sessions, tuple(float(len(sessions) - i) for i in range(len(sessions))))
    session_task = Task(task.name, task.version.replace("/turn", "/turn->session"), task.source_sha256, stores, queries)
    return session_task, converted
