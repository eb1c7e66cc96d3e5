"""TREC files: qrels (`query_id 0 doc_id grade`) and run files (`qid Q0 docid rank score tag`) of a Task.

A run file's scores are the ranks counted down (n, n-1, ... 1) rather than a system's own scores, so
trec_eval, pytrec_eval, ir_measures and ranx, which order by score, read exactly memrecall's order
(a system's tied scores would be re-broken by document id there).
"""

from __future__ import annotations

from collections.abc import Mapping

from memrecall.data.model import Ranking, Task
from memrecall.data.trec import fields
from memrecall.errors import ConfigError
from memrecall.scoring.policy import HEADLINE_REASON_KEY, in_headline


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


POPULATIONS = ("headline", "all", "apart")


def population_queries(task: Task, population: str) -> tuple[list, dict[str, int]]:
    """The judged queries of a population, and how many were left out, by reason (in a fixed order).

    headline: the queries the report's `overall` scores; apart: those it reports apart (abstention,
    LoCoMo's adversarial category); all: both. Queries without targets are never in any: nobody scores them.
    """
    if population not in POPULATIONS:
        raise ConfigError(f"unknown population {population!r}; choose {', '.join(POPULATIONS)}")
    chosen, left_out = [], {}
    for query in task.queries:
        if not query.targets:
            left_out["without targets"] = left_out.get("without targets", 0) + 1
            continue
        headline = in_headline(query)
        if population == "all" or (population == "headline") == headline:
            chosen.append(query)
        else:
            reason = "in the headline" if headline else f"reported apart ({query.strata.get(HEADLINE_REASON_KEY, '?')})"
            left_out[reason] = left_out.get(reason, 0) + 1
    return chosen, dict(sorted(left_out.items()))


def left_out_text(left_out: dict[str, int]) -> str:
    """`left out: 446 reported apart (adversarial), 4 without targets`, or "" when nothing was."""
    return "left out: " + ", ".join(f"{n} {reason}" for reason, n in left_out.items()) if left_out else ""


def trec_run_text(task: Task, rankings: Mapping[str, Ranking], tag: str, population: str = "all") -> str:
    """A TREC run of `rankings` in task order, scores counting down from the ranking's length.

    `population` keeps the queries `memrecall qrels --population` would judge (queries without targets are
    kept under `all`: a run holds what the system ranked).
    """
    _check(task)
    tag = run_tag(tag)
    kept = task.queries if population == "all" else population_queries(task, population)[0]
    lines = []
    for query in kept:
        ids = rankings[query.id].doc_ids
        lines += [f"{query.id} Q0 {doc} {i + 1} {len(ids) - i} {tag}" for i, doc in enumerate(ids)]
    return "".join(line + "\n" for line in lines)


def qrels_text(task: Task, population: str = "headline") -> tuple[str, int, int, dict[str, int]]:
    """TREC qrels of a population's queries (grade 1 unless graded): text, query and judgement counts, left out.

    The default, headline, is the population of the report's `overall`, so trec_eval or ir_measures on
    these qrels give the report's headline numbers.
    """
    _check(task)
    queries, left_out = population_queries(task, population)
    lines = [f"{q.id} 0 {doc} {q.gain(doc)}" for q in queries for doc in sorted(q.targets)]
    return "".join(line + "\n" for line in lines), len(queries), len(lines), left_out
