"""Per-query scores files: each headline query's headline-metric values, ids and numbers only (no text).

The leaderboard's paired tests need per-query values; a scores file lets it rebuild from committed files
where the dataset may not be (LoCoMo's text and gold never leave the user's disk, only these numbers do).
Rows: {"query_id", "group" (the primary stratum, for benchmarks tabled by it, else null), "values"}.
"""

from __future__ import annotations

import json
from pathlib import Path

from memrecall.benchmarks import Benchmark, Loaded
from memrecall.data.jsonfile import DuplicateKey, loads_strict, read_regular_text
from memrecall.data.rankings import check_rows, parse_rankings_text
from memrecall.errors import RankingsError
from memrecall.io import canonical_json
from memrecall.scoring.metrics import parse_metric
from memrecall.scoring.policy import in_headline, per_query_values

GROUPED = frozenset({"epirec"})


def scores_rows(bench: Benchmark, loaded: Loaded, report: dict, rankings_text: str) -> list[dict]:
    """The scores rows of a report's rankings (strictly checked against the task), in task order."""
    parsed, problems = parse_rankings_text(rankings_text, "rankings")
    rankings, mismatches = check_rows(parsed, loaded.task, bench.require_full_rankings)
    if problems or mismatches:
        raise RankingsError("rankings", problems + mismatches)
    metrics = list(report["content"]["headline_metrics"])
    depth = report["content"]["scoring"].get("depth")
    values = per_query_values(loaded.task, rankings, [parse_metric(m) for m in metrics], depth)
    scored = [q for q in loaded.task.queries if q.targets]
    stratum = report["content"].get("primary_stratum") if bench.name in GROUPED else None
    by_store = report["content"]["scoring"]["bootstrap"].get("unit") == "store"
    rows = []
    for index, query in enumerate(scored):
        if in_headline(query):
            group = query.strata.get(stratum) if stratum else None
            cells = {m: float(values[i, index]) for i, m in enumerate(metrics)}
            row = {"query_id": query.id, "group": group, "values": cells}
            rows.append({**row, "store_id": query.store_id} if by_store else row)
    return rows


def write_scores(path: Path, rows: list[dict]) -> None:
    """Write scores rows as canonical JSON lines."""
    from memrecall.io import atomic_write_text

    atomic_write_text(path, "".join(canonical_json(r) + "\n" for r in rows))


def read_scores(path: Path) -> list[dict]:
    """Scores rows of a file; a line that is not a scores row is an error naming the file and line."""
    rows = []
    for number, line in enumerate(read_regular_text(path).splitlines(), start=1):
        try:
            row = loads_strict(line)
        except (json.JSONDecodeError, DuplicateKey) as exc:
            raise RankingsError(str(path), [f"line {number}: not JSON ({getattr(exc, 'msg', exc)})"]) from None
        if not (
            isinstance(row, dict)
            and isinstance(row.get("query_id"), str)
            and isinstance(row.get("values"), dict)
            and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in row["values"].values())
        ):
            raise RankingsError(str(path), [f"line {number}: expected query_id, group and numeric values"])
        rows.append(row)
    return rows
