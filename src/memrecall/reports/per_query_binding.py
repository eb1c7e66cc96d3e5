"""Per-query rows bound to their report: each row names the report's fingerprint and benchmark."""

from __future__ import annotations

from collections.abc import Sequence

from memrecall.errors import ConfigError, short
from memrecall.reports.content import report_systems
from memrecall.reports.proof.fingerprint import report_fingerprint

REPORT_KEY = "report_content_sha256"
BENCHMARK_KEY = "benchmark"


def report_benchmark(content: dict) -> str:
    """The benchmark a report's content answers."""
    return str(content.get("benchmark", content.get("task", {}).get("name", "unknown")))


def bind_rows(report: dict, rows: Sequence[dict]) -> list[dict]:
    """The rows with the report's fingerprint and benchmark in each (the system is already there)."""
    binding = {REPORT_KEY: report_fingerprint(report), BENCHMARK_KEY: report_benchmark(report["content"])}
    return [{**row, **binding} for row in rows]


def check_binding(report: dict, rows: Sequence, source: str) -> None:
    """ConfigError naming the first row that is not from this report, and every field that differs."""
    fingerprint = report_fingerprint(report)
    benchmark = report_benchmark(report["content"])
    systems = report_systems(report["content"])
    if not rows:
        raise ConfigError(f"{source}: holds no per-query rows")
    for line, row in enumerate(rows, start=1):
        if not isinstance(row, dict):
            raise ConfigError(f"{source}: line {line}: expected a JSON object (a per-query row)")
        if REPORT_KEY not in row:
            raise ConfigError(
                f"{source}: line {line}: no {REPORT_KEY}, so it cannot be matched to a report "
                "(written before per-query rows were bound); write it again with --per-query"
            )
        differs = []
        if row[REPORT_KEY] != fingerprint:
            differs.append(f"report content_sha256 {str(row[REPORT_KEY])[:12]} vs {str(fingerprint)[:12]}")
        if row.get(BENCHMARK_KEY) != benchmark:
            differs.append(f"benchmark {short(repr(row.get(BENCHMARK_KEY)))} vs {benchmark!r}")
        if row.get("system") not in systems:
            differs.append(f"system {short(repr(row.get('system')))} is not one of {short(', '.join(systems))}")
        if differs:
            raise ConfigError(f"{source}: line {line} belongs to another report: " + "; ".join(differs))
    missing = [name for name in systems if name not in {row.get("system") for row in rows}]
    if missing:
        raise ConfigError(f"{source}: no per-query rows of {short(', '.join(missing))}, which the report holds")


def check_values(report: dict, rows: Sequence[dict], rankings: Sequence, data, source: str) -> None:
    """ConfigError naming the first row whose values are not what the report's rankings give on its data."""
    from memrecall.reports.proof.replay import replayed_runs
    from memrecall.scoring.per_query import per_query_rows

    bench, loaded, runs = replayed_runs(report, rankings, data)
    ks = sorted({int(k.lstrip("@")) for row in rows if isinstance(row.get("hit"), dict) for k in row["hit"]})
    expected = {
        (name, row["query_id"]): row for name, r in runs for row in per_query_rows(loaded.task, r, name, ks or bench.ks)
    }
    seen = set()
    for line, row in enumerate(rows, start=1):
        key = (row.get("system"), row.get("query_id"))
        want = expected.get(key)
        where = f"{source}: line {line}: query {short(str(key[1]))} of {short(str(key[0]))}"
        if want is None or key in seen:
            problem = "is not in the report's task" if want is None else "appears twice"
            raise ConfigError(f"{where} {problem}")
        seen.add(key)
        got = {k: v for k, v in row.items() if k not in (REPORT_KEY, BENCHMARK_KEY)}
        if got != want:
            field = next(k for k in sorted(set(got) | set(want)) if got.get(k) != want.get(k))
            raise ConfigError(
                f"{where}: {field} is {short(repr(got.get(field)), 60)} in the file, but the report's rankings give "
                f"{short(repr(want.get(field)), 60)}"
            )
    missing = [key for key in expected if key not in seen]
    if missing:
        raise ConfigError(f"{source}: no row for query {short(missing[0][1])} of {short(missing[0][0])}")
