"""The Python API: run a system on a benchmark, or score rankings, and get the signed report back."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memrecall.benchmarks import Benchmark, Loaded, get_benchmark
from memrecall.data.model import Ranking
from memrecall.data.rankings import check_rows, rankings_hint, read_rankings_file, rows_from_dicts
from memrecall.errors import RankingsError
from memrecall.reports.system_report import systems_report
from memrecall.running.executors import executor_facts
from memrecall.running.pipeline import rank_task
from memrecall.scoring.per_query import per_query_rows
from memrecall.systems.contract import adapt


@dataclass
class Result:
    """A signed report, each system's checked rankings by query id, and per-query rows."""

    report: dict
    rankings: dict[str, dict[str, Ranking]]
    per_query: list[dict]
    loaded: Loaded

    @property
    def metrics(self) -> dict:
        """The first system's results (overall and by stratum), as in the report."""
        content = self.report["content"]
        return content["systems"][content["system_order"][0]]["results"]


def _benchmark(benchmark: str | Benchmark) -> Benchmark:
    return benchmark if isinstance(benchmark, Benchmark) else get_benchmark(benchmark)


def run_system(
    system: Any,
    benchmark: str | Benchmark,
    data: str | Path | None = None,
    name: str | None = None,
    seed: int = 0,
    resamples: int = 2000,
    show_progress: bool = False,
    loaded: Loaded | None = None,
    executor: Any = None,
) -> Result:
    """Run any object with index(documents) and rank(query) on a benchmark; its rankings are checked strictly.

    `executor` (memrecall.running.executors.make_executor("ray", workers)) decides where ranking runs; the
    results are the same.
    """
    bench = _benchmark(benchmark)
    loaded = loaded or bench.load(bench.resolve_data(Path(data) if data else None))
    adapter = adapt(system, name)
    run = rank_task(adapter, loaded.task, bench.require_full_rankings, show_progress, executor)
    env = {"system_configs": {adapter.name: run.config}, "durations_seconds": {adapter.name: round(run.seconds, 3)}}
    env.update(executor_facts(executor))
    report = systems_report(
        bench, loaded, [(adapter.name, run.rankings)], bench.scoring(seed=seed, resamples=resamples), env
    )
    rows = per_query_rows(loaded.task, run.rankings, adapter.name, bench.ks)
    return Result(report, {adapter.name: run.rankings}, rows, loaded)


def evaluate_rankings(
    rows: str | Path | Sequence[dict] | Sequence[str | Path],
    benchmark: str | Benchmark,
    data: str | Path | None = None,
    names: Sequence[str] | None = None,
    seed: int = 0,
    resamples: int = 2000,
    loaded: Loaded | None = None,
) -> Result:
    """Score rankings (a file, several files, or a list of row dicts) strictly; several are paired against the first."""
    bench = _benchmark(benchmark)
    loaded = loaded or bench.load(bench.resolve_data(Path(data) if data else None))
    sources = [rows] if isinstance(rows, (str, Path)) or (rows and isinstance(rows[0], dict)) else list(rows)
    if names and len(names) != len(sources):
        raise RankingsError("--names", [f"{len(names)} name(s) for {len(sources)} rankings source(s)"])
    runs, files, notes = [], {}, {}
    for index, source in enumerate(sources):
        if isinstance(source, (str, Path)):
            text, files[str(source)] = read_rankings_file(Path(source))
            parsed, problems, note = _parse_file(text, str(source), bench, loaded)
            notes.update({str(source): note} if note else {})
            label, default = str(source), Path(source).stem
        else:
            parsed, problems = rows_from_dicts(source)
            label, default = "rankings", "system"
        rankings, mismatches = check_rows(parsed, loaded.task, bench.require_full_rankings)
        if problems or mismatches:
            found = problems + mismatches
            raise RankingsError(label, found, rankings_hint(found, len(parsed), bench.name))
        runs.append(((names[index] if names else default), rankings))
    env = {"rankings_files": files, **({"formats": notes} if notes else {})} if files else {}
    report = systems_report(bench, loaded, runs, bench.scoring(seed=seed, resamples=resamples), env)
    per_query = [row for name, r in runs for row in per_query_rows(loaded.task, r, name, bench.ks)]
    return Result(report, dict(runs), per_query, loaded)


def _parse_file(text: str, source: str, bench: Benchmark, loaded: Loaded) -> tuple[list, list[str], str | None]:
    """Rows of a rankings file, or of an official LongMemEval retrieval log (noted with its granularity)."""
    import json

    from memrecall.data.jsonfile import DuplicateKey, loads_strict, split_lines
    from memrecall.data.rankings import parse_rankings_text, store_sizes
    from memrecall.reports.official_log import is_official_log_line, read_official_log

    lines = split_lines(text)
    sizes = store_sizes(loaded.task)
    first = next((line for line in lines if line.strip()), "")
    if bench.name.startswith("longmemeval") and first.lstrip().startswith("{"):
        try:
            official = is_official_log_line(loads_strict(first))
        except (json.JSONDecodeError, DuplicateKey):
            official = is_official_log_line(json.loads(first)) if _parses(first) else False
        if official:
            rows, problems, detected = read_official_log(lines, loaded.task)
            return rows, problems, f"official LongMemEval retrieval log, {detected} corpus ids"
    rows, problems = parse_rankings_text(text, source, sizes)
    return rows, problems, None


def _parses(line: str) -> bool:
    """True when `line` is JSON (duplicate keys aside), to tell an official log line with a repeated key."""
    import json

    try:
        json.loads(line)
    except json.JSONDecodeError:
        return False
    return True
