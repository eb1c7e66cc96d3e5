"""LongMemEval's official retrieval log: its metrics, written out for the official QA stage, and read back.

The metric functions follow the definitions in LongMemEval's `src/retrieval/eval_utils.py`
(`evaluate_retrieval`, `evaluate_retrieval_turn2session`, the DCG that weighs rank 1 by 1 and
rank r >= 2 by 1/log2(r)); they were written from those definitions, not copied.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from memrecall.data.jsonfile import DuplicateKey, describe, line_problem, loads_strict
from memrecall.data.loaders.longmemeval import iter_records, noans_id, restore_id
from memrecall.data.model import Ranking, Task
from memrecall.data.rankings import RankingRow
from memrecall.errors import NearMiss, short
from memrecall.io import jsonl_line

OFFICIAL_KS = (1, 3, 5, 10, 30, 50)


def dcg(relevances: Sequence[float], k: int) -> float:
    """Rank 1 weighs 1, rank r >= 2 weighs 1 / log2(r), over the first k relevances."""
    head = list(relevances)[:k]
    return (head[0] + sum(r / math.log2(i) for i, r in enumerate(head[1:], start=2))) if head else 0.0


def ndcg_any(ranked: Sequence[str], correct: set[str], corpus: Sequence[str], k: int) -> float:
    """Binary nDCG@k of a ranking against the ideal ordering of the whole corpus."""
    ideal = dcg(sorted((1.0 if d in correct else 0.0 for d in corpus), reverse=True), k)
    actual = dcg([1.0 if d in correct else 0.0 for d in ranked], k)
    return actual / ideal if ideal else 0.0


def evaluate_retrieval(ranked: Sequence[str], correct: set[str], corpus: Sequence[str], k: int) -> tuple[float, ...]:
    """recall_any@k, recall_all@k (every correct id in the top k; 1 when there is none) and ndcg_any@k."""
    top = set(ranked[:k])
    return (
        float(any(d in top for d in correct)),
        float(all(d in top for d in correct)),
        ndcg_any(ranked, correct, corpus, k),
    )


def strip_turn(turn_id: str) -> str:
    """`<session>_<n>` -> `<session>`: the official turn -> session mapping (noans turns keep their prefix)."""
    return "_".join(turn_id.split("_")[:-1])


def evaluate_turn2session(ranked: Sequence[str], correct: set[str], corpus: Sequence[str], k: int) -> tuple[float, ...]:
    """Session metrics of a turn ranking: the top turns are read until k distinct sessions appear (effective k)."""
    sessions = [strip_turn(d) for d in ranked]
    corpus_sessions = [strip_turn(d) for d in corpus]
    correct_sessions = {strip_turn(d) for d in correct}
    effective = k
    while effective <= len(corpus) and len(set(sessions[:effective])) < k:
        effective += 1
    top = set(sessions[:effective])
    return (
        float(any(d in top for d in correct_sessions)),
        float(all(d in top for d in correct_sessions)),
        ndcg_any(sessions, correct_sessions, corpus_sessions, effective),
    )


def _named(values: Mapping[int, tuple[float, ...]]) -> dict[str, float]:
    """{recall_any@k, recall_all@k, ndcg_any@k} for each k."""
    out: dict[str, float] = {}
    for k, (any_hit, all_hit, ndcg) in values.items():
        out.update({f"recall_any@{k}": any_hit, f"recall_all@{k}": all_hit, f"ndcg_any@{k}": ndcg})
    return out


def official_metrics(ranked: Sequence[str], correct: set[str], corpus: Sequence[str], turn: bool) -> dict:
    """The log's `metrics`: session metrics (turn -> session for turn logs) and turn metrics (turn logs only)."""
    if not turn:
        return {"session": _named({k: evaluate_retrieval(ranked, correct, corpus, k) for k in OFFICIAL_KS}), "turn": {}}
    return {
        "session": _named({k: evaluate_turn2session(ranked, correct, corpus, k) for k in OFFICIAL_KS}),
        "turn": _named({k: evaluate_retrieval(ranked, correct, corpus, k) for k in OFFICIAL_KS}),
    }


def session_corpus_id(record: Mapping[str, Any], session_id: str, position: int) -> str:
    """A session's official corpus id: answer sessions without a has_answer user turn are renamed noans."""
    if session_id not in set(record.get("answer_session_ids", [])):
        return session_id
    turns = record["haystack_sessions"][position]
    has_user_answer = any(t.get("role") == "user" and t.get("has_answer") for t in turns)
    return session_id if has_user_answer else noans_id(session_id)


def export_official_log(data: Path, task: Task, rankings: Mapping[str, Ranking], out_handle, turn: bool) -> int:
    """Write one official log line per ranked question, streaming the dataset again for its instance fields."""
    written = 0
    targets = {q.id: q.targets for q in task.queries}
    for record in iter_records(data):
        qid = record.get("question_id") if isinstance(record, dict) else None
        if qid not in rankings:
            continue
        store = {d.id: d for d in task.stores[qid]}
        dates = dict(zip(record["haystack_session_ids"], record["haystack_dates"], strict=True))
        positions = {sid: i for i, sid in enumerate(record["haystack_session_ids"])}
        if turn:
            ids_of = {d.id: d.id for d in store.values()}
        else:
            ids_of = {sid: session_corpus_id(record, sid, positions[sid]) for sid in store}
        corpus = [ids_of[d] for d in store]
        ranked = [ids_of[d] for d in rankings[qid].doc_ids]
        gold = targets[qid] if turn else set(record.get("answer_session_ids", []))
        correct = {c for c in corpus if not c.startswith("noans") and c in gold}
        items = [
            {"corpus_id": ids_of[d], "text": store[d].text, "timestamp": dates[store[d].labels.get("session", d)]}
            for d in rankings[qid].doc_ids
        ]
        line = dict(record)
        line["retrieval_results"] = {
            "query": record.get("question"),
            "ranked_items": items,
            "metrics": official_metrics(ranked, correct, corpus, turn),
        }
        out_handle.write(jsonl_line(line, compact=False) + "\n")
        written += 1
    return written


def official_log_problem(obj: Any) -> str | None:
    """What keeps a parsed line from being an official log line (typed checks, one place), or None."""
    if not isinstance(obj, dict):
        return f"expected a JSON object, got {describe(obj)}"
    missing = [key for key in ("question_id", "retrieval_results") if key not in obj]
    if missing:
        return f"missing {' and '.join(missing)}"
    if not isinstance(obj.get("question_id"), str):
        return f"question_id must be a string, got {describe(obj.get('question_id'))}"
    results = obj.get("retrieval_results")
    if not isinstance(results, dict):
        return f"retrieval_results must be an object, got {describe(results)}"
    items = results.get("ranked_items")
    if not isinstance(items, list):
        return f"retrieval_results.ranked_items must be an array, got {describe(items)}"
    for position, item in enumerate(items):
        if not isinstance(item, dict) or not isinstance(item.get("corpus_id"), str):
            got = describe(item.get("corpus_id")) if isinstance(item, dict) else describe(item)
            return f"retrieval_results.ranked_items[{position}].corpus_id must be a string, got {got}"
    return None


def read_official_log(lines: Sequence[str], task: Task) -> tuple[list[RankingRow], list[str], str]:
    """Session-level rows from an official log: noans renames undone, turn ids mapped to sessions in rank order.

    `lines` are split on '\\n' only (never str.splitlines()); duplicate keys and wrong types are refused.
    """
    rows, problems, kinds = [], [], set()
    queries = {q.id: q for q in task.queries}
    explain = None
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            obj = loads_strict(raw)
        except json.JSONDecodeError as exc:
            problems.append(line_problem(number, exc))
            continue
        except DuplicateKey as exc:
            problems.append(f"line {number}: {exc}")
            continue
        problem = official_log_problem(obj)
        if problem:
            problems.append(f"line {number}: not an official retrieval log line: {problem}")
            continue
        qid, items = obj["question_id"], obj["retrieval_results"]["ranked_items"]
        if qid not in queries:
            explain = explain or NearMiss(queries)
            problems.append(f"line {number}: unknown question {short(repr(qid))}{explain.explain(qid)}")
            continue
        ids = [item["corpus_id"] for item in items]
        store = task.stores[queries[qid].store_id]
        known = {d.id for d in store}
        sessions, kind = _as_sessions(ids, known)
        kinds.add(kind)
        if sessions is None:
            problems.append(
                f"line {number}: {qid!r}: corpus ids match neither the sessions nor the turns of its haystack"
            )
            continue
        rows.append(RankingRow(f"line {number}", None, qid, tuple(sessions)))
    detected = " and ".join(sorted(kinds)) or "no"
    return rows, problems, detected


def _as_sessions(ids: Sequence[str], known: set[str]) -> tuple[list[str] | None, str]:
    """Session ids in rank order, and whether the log ranked sessions or turns."""
    restored = [restore_id(i, known) for i in ids]
    if all(r is not None for r in restored):
        return list(dict.fromkeys(restored)), "session"
    sessions = [restore_id(i.rsplit("_", 1)[0], known) if "_" in i else None for i in ids]
    if all(s is not None for s in sessions):
        return list(dict.fromkeys(sessions)), "turn"
    return None, "unknown"
