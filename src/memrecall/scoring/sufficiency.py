"""Evidence sufficiency at depth: not only whether some gold is retrieved, but whether enough of it is."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from memrecall.data.model import Ranking, Task
from memrecall.scoring.diagnostics import COVERAGE_KS, headline_queries

LATEST_TYPES = ("knowledge-update",)


def _positions(ranking: Ranking) -> dict[str, int]:
    return {doc_id: i + 1 for i, doc_id in enumerate(ranking.doc_ids)}


def sufficiency(task: Task, rankings: Mapping[str, Ranking], depth: int, stratum: str | None) -> dict:
    """Per stratum group at k = 1, 3, 5, 10, 20, 50 (up to depth): any-gold, all-gold and latest-gold coverage.

    Also per group: the worst required rank (the rank of the last gold document; absent counts as
    beyond depth), and how many questions miss all their evidence or part of it within depth.
    Latest-gold coverage is for knowledge-update questions: the gold session with the latest date.
    """
    ks = [k for k in COVERAGE_KS if k <= depth]
    groups: dict[str, list] = {}
    for query in headline_queries(task):
        groups.setdefault(query.strata.get(stratum, "all") if stratum else "all", []).append(query)
    out: dict = {"depth": depth, "ks": ks, "by_group": {}}
    for group, queries in sorted(groups.items()):
        firsts, worsts, latests = [], [], []
        missing = partial = 0
        for query in queries:
            position = _positions(rankings[query.id])
            ranks = [position.get(t, np.inf) for t in query.targets]
            found = [r for r in ranks if r <= depth]
            missing += not found
            partial += bool(found) and len(found) < len(ranks)
            firsts.append(min(ranks))
            worsts.append(max(ranks))
            if group in LATEST_TYPES:
                docs = {d.id: d for d in task.stores[query.store_id]}
                dated = [t for t in query.targets if docs[t].timestamp is not None]
                if dated:
                    latest = max(dated, key=lambda t: (docs[t].timestamp, t))
                    latests.append(position.get(latest, np.inf))
        first, worst = np.array(firsts), np.array(worsts)
        within = worst[worst <= depth]
        entry = {
            "n": len(queries),
            "any": {str(k): float(np.mean(first <= k)) for k in ks},
            "all": {str(k): float(np.mean(worst <= k)) for k in ks},
            "worst_required_rank": {
                "median": float(np.median(worst)) if np.isfinite(np.median(worst)) else None,
                "max_within_depth": int(within.max()) if within.size else None,
                "beyond_depth": int(np.sum(worst > depth)),
            },
            "missing_evidence": missing,
            "partial_evidence": partial,
        }
        if latests:
            latest = np.array(latests)
            entry["latest"] = {str(k): float(np.mean(latest <= k)) for k in ks}
        out["by_group"][group] = entry
    return out
