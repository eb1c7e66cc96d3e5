"""Per-query scores files: each headline query's headline-metric values, ids and numbers only (no text).

The leaderboard's paired tests need per-query values; a scores file lets it rebuild from committed files
where the dataset may not be (LoCoMo's text and gold never leave the user's disk, only these numbers do).
Rows: {"query_id", "group" (the primary stratum, for benchmarks tabled by it, else null), "values"}.
A scores file is plain (`SYSTEM.scores.jsonl`, as `sweep` writes it) or gzip-compressed (`SYSTEM.scores.jsonl.gz`,
as the committed leaderboard stores it, deterministically: memrecall.io.deflated); readers take either.
"""

from __future__ import annotations

import json
from pathlib import Path

from memrecall.benchmarks import Benchmark, Loaded
from memrecall.data.compressed import inflated
from memrecall.data.jsonfile import DuplicateKey, loads_strict, read_regular_bytes
from memrecall.data.rankings import check_rows, parse_rankings_text
from memrecall.data.text import decode_utf8
from memrecall.errors import RankingsError
from memrecall.io import canonical_json
from memrecall.scoring.metrics import parse_metric
from memrecall.scoring.policy import in_headline, per_query_values

GROUPED = frozenset({"epirec"})
SCORES_BESIDE = (".scores.jsonl.gz", ".scores.jsonl")  # as the leaderboard's entries store them, or sweep writes them


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
    """Write scores rows as canonical JSON lines; gzip-compressed (deterministic) for a .gz path."""
    from memrecall.io import atomic_write_bytes, deflated

    data = "".join(canonical_json(r) + "\n" for r in rows).encode("utf-8")
    atomic_write_bytes(path, deflated(data) if path.name.endswith(".gz") else data)


def scores_beside(report: Path) -> list[Path]:
    """The scores files beside a NAME.report.json(.gz): NAME.scores.jsonl.gz and/or NAME.scores.jsonl."""
    from memrecall.reports.rankings_files import report_stem

    stem = report_stem(report)
    return [p for p in (Path(report).with_name(stem + suffix) for suffix in SCORES_BESIDE) if p.is_file()]


def read_scores(path: Path) -> list[dict]:
    """Scores rows of a file (plain or gzip); a line that is not a scores row is an error naming the file and line."""
    rows = []
    text = decode_utf8(path, inflated(path, read_regular_bytes(path)))
    for number, line in enumerate(text.splitlines(), start=1):
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
