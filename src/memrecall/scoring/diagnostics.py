"""Retrieval diagnostics over headline queries: gold coverage at depth, and the tokens a reader receives."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from memrecall.data.model import Ranking, Task
from memrecall.scoring.metrics import rank_matrix, target_ranks
from memrecall.scoring.policy import in_headline

COVERAGE_KS = (1, 3, 5, 10, 20, 50)
CHARS_PER_TOKEN = 4


def headline_queries(task: Task) -> list:
    """Queries that have targets and are in the headline."""
    return [q for q in task.queries if q.targets and in_headline(q)]


def first_and_last_gold(queries: list, rankings: Mapping[str, Ranking]) -> tuple[np.ndarray, np.ndarray]:
    """Per query, the rank of its best-placed and of its worst-placed gold document (inf when absent)."""
    ranks = rank_matrix([target_ranks(rankings[q.id].doc_ids, q.targets) for q in queries])
    first = np.where(np.isnan(ranks), np.inf, ranks).min(axis=1)
    last = np.where(np.isnan(ranks), -np.inf, ranks).max(axis=1)
    return first, last


def coverage(task: Task, rankings: Mapping[str, Ranking], depth: int = 50) -> dict:
    """Coverage@k (any gold, all gold) for the standard ks up to `depth`, and where the misses went.

    A miss at k is `recoverable` when the gold (first gold for any-hit, last gold for all-evidence)
    ranks within `depth`, and `hard` when it is absent from the top `depth`.
    """
    queries = headline_queries(task)
    first, worst = first_and_last_gold(queries, rankings)
    out: dict = {"depth": depth, "n": len(queries), "any": {}, "all": {}, "misses": {}}
    ks = sorted({k for k in COVERAGE_KS if k <= depth} | {depth})
    for k in ks:
        out["any"][str(k)] = float(np.mean(first <= k)) if queries else 0.0
        out["all"][str(k)] = float(np.mean(worst <= k)) if queries else 0.0
        if k < depth:
            out["misses"][str(k)] = {
                "any": {"recoverable": int(np.sum((first > k) & (first <= depth))), "hard": int(np.sum(first > depth))},
                "all": {"recoverable": int(np.sum((worst > k) & (worst <= depth))), "hard": int(np.sum(worst > depth))},
            }
    return out


def estimated_tokens(text: str) -> int:
    """A stated estimate: one token per 4 characters, rounded up."""
    return -(-len(text) // CHARS_PER_TOKEN)


def token_efficiency(task: Task, rankings: Mapping[str, Ranking], ks: Sequence[int]) -> dict:
    """Average documents and estimated tokens a reader gets at top-k, against the whole store and gold alone."""
    queries = headline_queries(task)
    if not queries:
        return {}
    full_tokens, gold_tokens, full_docs = [], [], []
    topk_tokens = {k: [] for k in ks}
    for query in queries:
        tokens = {d.id: estimated_tokens(d.text) for d in task.stores[query.store_id]}
        full_tokens.append(sum(tokens.values()))
        full_docs.append(len(tokens))
        gold_tokens.append(sum(tokens[t] for t in query.targets if t in tokens))
        for k in ks:
            topk_tokens[k].append(sum(tokens[d] for d in rankings[query.id].doc_ids[:k]))
    full, gold = float(np.mean(full_tokens)), float(np.mean(gold_tokens))
    out = {
        "token_estimate": f"{CHARS_PER_TOKEN} characters per token",
        "full_store": {"documents": float(np.mean(full_docs)), "tokens": full},
        "gold_only": {"documents": float(np.mean([len(q.targets) for q in queries])), "tokens": gold},
        "top_k": {},
    }
    for k in ks:
        mean_k = float(np.mean(topk_tokens[k]))
        out["top_k"][str(k)] = {
            "documents": float(np.mean([min(k, n) for n in full_docs])),
            "tokens": mean_k,
            "full_over_top_k": full / mean_k if mean_k else None,
            "top_k_over_gold": mean_k / gold if gold else None,
        }
    return out


def recall_curve(
    task: Task, rankings: Mapping[str, Ranking], stratum: str | None, max_k: int = 50, every_gold: bool = False
) -> dict:
    """recall@k for k = 1..max_k (any gold in the top k; every gold when `every_gold`), with n.

    Over headline queries, overall and per stratum group; queries left out of the headline
    (LoCoMo category 5, for example) get their own `apart_by_<stratum>` curves.
    """
    scored = [q for q in task.queries if q.targets]
    queries = [q for q in scored if in_headline(q)]
    metric = "recall_all@k" if every_gold else "recall@k"
    out: dict = {"metric": metric, "k": list(range(1, max_k + 1)), "n": len(queries), "overall": []}
    if not scored:
        return out
    first, last = first_and_last_gold(scored, rankings)
    decisive = last if every_gold else first
    ks = np.arange(1, max_k + 1)
    headline = np.array([in_headline(q) for q in scored])

    def curve(mask: np.ndarray) -> dict:
        chosen = decisive[mask]
        values = [float(v) for v in (chosen[:, None] <= ks[None, :]).mean(axis=0)] if chosen.size else []
        return {"n": int(mask.sum()), "values": values}

    out["overall"] = curve(headline)["values"]
    if stratum:
        for label, members in ((f"by_{stratum}", headline), (f"apart_by_{stratum}", ~headline)):
            groups = sorted(
                {q.strata[stratum] for q, m in zip(scored, members, strict=True) if m and stratum in q.strata}
            )
            if groups:
                out[label] = {
                    g: curve(members & np.array([q.strata.get(stratum) == g for q in scored])) for g in groups
                }
    return out
