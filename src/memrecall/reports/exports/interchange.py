"""TREC interchange: qrels (`query_id 0 doc_id grade`) and run files (`qid Q0 docid rank score tag`) of a Task.

A run file's scores are the ranks counted down (n, n-1, ... 1) rather than a system's own scores, so
trec_eval, pytrec_eval, ir_measures and ranx, which order by score, read exactly memrecall's order
(a system's tied scores would be re-broken by document id there).
"""

from __future__ import annotations

from collections.abc import Mapping

from memrecall.data.model import Ranking, Task
from memrecall.data.trec import fields
from memrecall.errors import ConfigError
from memrecall.scoring.policy import in_headline

RANKINGS_FORMATS = ("jsonl", "trec")


def trec_id_problem(task: Task) -> str | None:
    """Why the task's ids cannot be written as TREC fields (empty, or holding whitespace), or None."""
    for query in task.queries:
        if fields(query.id) != [query.id] or "\n" in query.id:
            return f"query id {query.id!r} is empty or holds whitespace, which a TREC file cannot carry"
    for store_id, documents in task.stores.items():
        for document in documents:
            if fields(document.id) != [document.id] or "\n" in document.id:
                return (
                    f"store {store_id}: document id {document.id!r} is empty or holds whitespace (TREC cannot carry it)"
                )
    return None


def _check(task: Task) -> None:
    problem = trec_id_problem(task)
    if problem:
        raise ConfigError(f"cannot write TREC: {problem}; use --rankings-format jsonl")


def run_tag(name: str) -> str:
    """A system name as a TREC run tag: whitespace becomes `_`, never empty."""
    return "_".join(name.split()) or "memrecall"


def trec_run_text(task: Task, rankings: Mapping[str, Ranking], tag: str) -> str:
    """A TREC run of `rankings` in task order, scores counting down from the ranking's length."""
    _check(task)
    tag = run_tag(tag)
    lines = []
    for query in task.queries:
        ids = rankings[query.id].doc_ids
        lines += [f"{query.id} Q0 {doc} {i + 1} {len(ids) - i} {tag}" for i, doc in enumerate(ids)]
    return "".join(line + "\n" for line in lines)


def qrels_text(task: Task, headline_only: bool = False) -> tuple[str, int, int]:
    """TREC qrels of the task's judged queries (grade 1 unless graded), and the query and judgement counts.

    Queries without targets are left out (they are never scored); with `headline_only`, so are the
    queries a benchmark reports apart (abstention, LoCoMo category 5), so the qrels score `overall`.
    """
    _check(task)
    queries = [q for q in task.queries if q.targets and (in_headline(q) or not headline_only)]
    lines = [f"{q.id} 0 {doc} {q.gain(doc)}" for q in queries for doc in sorted(q.targets)]
    return "".join(line + "\n" for line in lines), len(queries), len(lines)
