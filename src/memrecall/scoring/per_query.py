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
