"""Per-query results for error analysis: where each target landed, hits at each cut-off, the top ids."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from memrecall.data.model import Ranking, Task
from memrecall.scoring.metrics import parse_metric
from memrecall.scoring.policy import strata_in_headline

TOP = 5
HARDEST_LIMIT = 20


def per_query_rows(task: Task, rankings: Mapping[str, Ranking], system: str, ks: Sequence[int]) -> list[dict]:
    """One row per query in task order: id, store, strata, text, target ranks (None when absent), hit@k, top ids."""
    rows = []
    for query in task.queries:
        ranked = rankings[query.id].doc_ids
        position = {doc_id: i + 1 for i, doc_id in enumerate(ranked)}
        target_ranks = {t: position.get(t) for t in sorted(query.targets)}
        found = [r for r in target_ranks.values() if r is not None]
        first = min(found) if found else None
        rows.append(
            {
                "system": system,
                "query_id": query.id,
                "store_id": query.store_id,
                "strata": dict(sorted(query.strata.items())),
                "text": query.text,
                "target_ranks": target_ranks,
                "first_target_rank": first,
                "hit": {f"@{k}": first is not None and first <= k for k in ks} if query.targets else None,
                "top": list(ranked[:TOP]),
            }
        )
    return rows


def primary_cutoff(primary_metric: str) -> int:
    """The k of the primary metric (10 for a metric without a cut-off, such as mrr)."""
    return parse_metric(primary_metric).k or 10


def hardest_queries(rows: Sequence[dict], k: int) -> list[dict]:
    """From per-query rows of one or more systems: headline queries no system found within the top k.

    Each comes with the best rank any system gave a target (None when none ranked one); hardest first,
    then by query id.
    """
    best: dict[str, dict] = {}
    for row in rows:
        if row["hit"] is None or not strata_in_headline(row["strata"]):
            continue
        entry = best.setdefault(
            row["query_id"],
            {key: row[key] for key in ("query_id", "store_id", "strata", "text")} | {"best_rank": None},
        )
        rank = row["first_target_rank"]
        if rank is not None and (entry["best_rank"] is None or rank < entry["best_rank"]):
            entry["best_rank"] = rank
    missed = [e for e in best.values() if e["best_rank"] is None or e["best_rank"] > k]
    return sorted(missed, key=lambda e: (-(e["best_rank"] or 10**9), e["query_id"]))


def per_query_problem(row: object) -> str | None:
    """What keeps a parsed line from being a per-query row (typed checks, the format's one place), or None."""
    from memrecall.data.jsonfile import describe

    if not isinstance(row, dict):
        return f"expected a JSON object, got {describe(row)}"
    for key in ("system", "query_id", "store_id", "text"):
        if not isinstance(row.get(key), str):
            return f"{key} must be a string, got {describe(row.get(key))}"
    strata = row.get("strata")
    if not isinstance(strata, dict) or not all(isinstance(v, str) for v in strata.values()):
        return f"strata must be an object of strings, got {describe(strata)}"
    rank = row.get("first_target_rank")
    if rank is not None and (isinstance(rank, bool) or not isinstance(rank, int) or rank < 1):
        return f"first_target_rank must be null or a rank from 1, got {describe(rank)}"
    hit = row.get("hit")
    if hit is not None and not isinstance(hit, dict):
        return f"hit must be null or an object of true/false, got {describe(hit)}"
    for cut, value in (hit or {}).items():
        if not isinstance(value, bool):
            return f"hit[{cut!r}] must be true or false, got {describe(value)}"
    return None


def read_per_query(path) -> list[dict]:
    """A per-query JSONL file, strictly: duplicate keys, wrong types and non-regular files are DatasetErrors."""
    from memrecall.data.jsonfile import iter_jsonl
    from memrecall.errors import DatasetError

    rows = []
    for number, row in iter_jsonl(path):
        problem = per_query_problem(row)
        if problem:
            raise DatasetError(str(path), f"line {number}", f"not a per-query row: {problem}")
        rows.append(row)
    return rows
