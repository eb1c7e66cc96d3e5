"""The inputs of `memrecall power`: reports, their rankings bound to them by rankings_sha256, scored on the task."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from memrecall.benchmarks import Benchmark, get_benchmark
from memrecall.data.jsonfile import read_json
from memrecall.data.model import Task
from memrecall.data.rankings import rankings_sha256
from memrecall.errors import ConfigError, UsageError, short
from memrecall.reports.content import shape_problem
from memrecall.reports.per_query_binding import report_systems
from memrecall.reports.proof.fingerprint import report_fingerprint
from memrecall.reports.proof.replay import load_for, match_rankings
from memrecall.reports.rankings_files import checked_runs, rankings_beside
from memrecall.reports.shapes import current_shape
from memrecall.scoring.metrics import parse_metric
from memrecall.scoring.policy import grouping_name, in_headline, per_query_values

REPORT_SUFFIX = ".report.json"


@dataclass
class PowerInputs:
    """Per-query values of each system (metrics x headline queries), the groups of queries, and where they came from."""

    benchmark: Benchmark
    task: Task
    systems: list[str]
    values: dict[str, np.ndarray]
    groups: dict[str, list[int]]
    grouping: str
    metrics: list[str]
    seed: int
    resamples: int
    fingerprints: list[str]


def read_reports(paths: Sequence[Path], say: Callable[[str], None] = lambda _: None) -> list[dict]:
    """Each report (an old shape read through the normaliser, and `say` told so), refused unless on the same data
    as the first."""
    reports = []
    for path in paths:
        report, note = current_shape(read_json(path))
        problem = shape_problem(report)
        if problem:
            raise ConfigError(f"{path}: {problem}")
        if note:
            say(f"{path}: {note}")
        first = reports[0]["content"] if reports else report["content"]
        content = report["content"]
        for key, value, other in (
            ("benchmark", content.get("benchmark"), first.get("benchmark")),
            ("data sha256", content["task"].get("source_sha256"), first["task"].get("source_sha256")),
        ):
            if value != other:
                raise ConfigError(
                    f"{path}: {key} {short(str(value))[:16]} differs from {paths[0]}'s {short(str(other))[:16]}"
                )
        reports.append(report)
    return reports


def rankings_for(paths: Sequence[Path], reports: Sequence[dict], given: Sequence[Path]) -> list[list[Path]]:
    """Rankings files per report: --rankings in the reports' system order, else STEM.rankings.jsonl beside each."""
    names = [report_systems(r["content"]) for r in reports]
    if given:
        total = sum(len(n) for n in names)
        if len(given) != total:
            raise UsageError(
                f"{len(given)} --rankings file(s) for {total} system(s) in the reports; give one per system"
            )
        out, start = [], 0
        for system_names in names:
            out.append(match_rankings(given[start : start + len(system_names)], system_names))
            start += len(system_names)
        return out
    out = []
    for path, system_names in zip(paths, names, strict=True):
        beside = rankings_beside(Path(path)) if Path(path).name.endswith(REPORT_SUFFIX) else []
        if len(system_names) != 1 or len(beside) != 1:
            raise UsageError(
                f"{path}: no rankings beside it (a one-system NAME{REPORT_SUFFIX} with one NAME.rankings.jsonl(.gz), "
                "as in the leaderboard's entries); give --rankings once per system"
            )
        out.append(beside)
    return out


def power_inputs(
    paths: Sequence[Path],
    given: Sequence[Path],
    data: Path | None,
    metrics: Sequence[str],
    grouping: str | None,
    say: Callable[[str], None] = lambda _: None,
) -> PowerInputs:
    """Score every system's rankings on the task; a rankings file the report does not name is an error naming it."""
    reports = read_reports(paths, say)
    first = reports[0]["content"]
    bench = get_benchmark(first["benchmark"])
    loaded = load_for(bench, first, data)
    task, values, systems = loaded.task, {}, []
    metrics = list(metrics or [first["primary_metric"]])
    parsed = [parse_metric(m) for m in metrics]
    for path, report, files in zip(paths, reports, rankings_for(paths, reports, given), strict=True):
        names = list(report["content"]["system_order"])
        runs, _, _ = checked_runs(files, names, bench, loaded)
        for (name, rankings), file in zip(runs, files, strict=True):
            recorded = report["content"]["systems"][name].get("rankings_sha256")
            if rankings_sha256(task, rankings, bench.row_keys) != recorded:
                raise ConfigError(f"{file}: not the rankings {path} was made from (its rankings_sha256 differs)")
            if name in values:
                raise ConfigError(f"{path}: system {short(name)} is in two of the reports")
            values[name] = per_query_values(task, rankings, parsed, report["content"]["scoring"].get("depth"))
            systems.append(name)
    headline = [i for i, q in enumerate(q for q in task.queries if q.targets) if in_headline(q)]
    for name in systems:
        values[name] = values[name][:, headline]
    keys, label = _grouping(bench, first, grouping)
    scored = [q for q in task.queries if q.targets]
    groups: dict[str, list[int]] = {}
    for position, index in enumerate(headline):
        strata = scored[index].strata
        if keys and all(k in strata for k in keys):
            groups.setdefault("/".join(strata[k] for k in keys), []).append(position)
    groups = {**dict(sorted(groups.items())), "overall": list(range(len(headline)))}
    bootstrap = first["scoring"]["bootstrap"]
    fingerprints = [str(report_fingerprint(r)) for r in reports]
    return PowerInputs(
        bench, task, systems, values, groups, label, metrics, bootstrap["seed"], bootstrap["resamples"], fingerprints
    )


def _grouping(bench: Benchmark, content: dict, grouping: str | None) -> tuple[tuple[str, ...], str]:
    """The stratum keys of `grouping` (default: by the report's primary stratum, else overall only)."""
    known = {grouping_name(keys): keys for keys in bench.groupings}
    if grouping is None:
        stratum = content.get("primary_stratum")
        grouping = f"by_{stratum}" if stratum and f"by_{stratum}" in known else "overall"
    if grouping not in known:
        raise UsageError(f"--grouping {short(grouping)}: not one of the report's groupings ({', '.join(known)})")
    return known[grouping], grouping
