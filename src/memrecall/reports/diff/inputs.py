"""The one reader of reports with their rankings for diff and gate.

Each system of a report (`systems`/`system_order`; a report of an older shape is read through
reports.shapes.current_shape by read_verified) becomes a Side, its rankings checked against the task and bound
to the report.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from memrecall.benchmarks import Benchmark, Loaded, get_benchmark
from memrecall.data.model import Ranking
from memrecall.data.rankings import rankings_sha256
from memrecall.errors import ConfigError, short
from memrecall.reports.compare_reports import manifest_differences, read_verified
from memrecall.reports.content import report_systems
from memrecall.reports.per_query_binding import report_benchmark
from memrecall.reports.proof.fingerprint import report_fingerprint
from memrecall.reports.proof.replay import load_for
from memrecall.reports.rankings_files import checked_runs, rankings_for
from memrecall.scoring.metrics import exact_mean, parse_metric
from memrecall.scoring.policy import in_headline, per_query_values


@dataclass(frozen=True)
class Side:
    """One system: its name, its report (None for a bare rankings file) and its checked rankings."""

    name: str
    rankings: dict[str, Ranking]
    report: dict | None = None
    source: str = ""

    @property
    def fingerprint(self) -> str | None:
        """The report's content sha256, or None for a bare rankings file."""
        return None if self.report is None else str(report_fingerprint(self.report))


@dataclass
class Sides:
    """The benchmark, its loaded task, how it is scored (from the first report), and the systems."""

    benchmark: Benchmark
    loaded: Loaded
    sides: list[Side]
    scoring: dict = field(default_factory=dict)

    @property
    def primary_metric(self) -> str:
        """The first report's primary metric (the benchmark's for bare rankings files)."""
        first = next((s.report for s in self.sides if s.report is not None), None)
        return first["content"]["primary_metric"] if first else self.benchmark.headline()[0]


def report_entries(content: dict) -> dict[str, dict]:
    """The system entries of a report's content (in the current shape) by name."""
    return {name: content["systems"][name] for name in content.get("system_order", [])}


# the fields that say most about why two reports differ, named first: the data, then how it was read and scored
TELLING = ("split.data_sha256", "protocol", "granularity", "session_representation", "split.", "denominator.")


def _telling(name: str) -> int:
    """A manifest field's place in TELLING (the rest after, in their sorted order)."""
    return next((i for i, prefix in enumerate(TELLING) if name.startswith(prefix)), len(TELLING))


def check_comparable(paths: Sequence[Path], reports: Sequence[dict], subject: bool) -> None:
    """ConfigError naming the first report and field (benchmark, then the comparability manifest) that differs."""
    first = report_benchmark(reports[0]["content"])
    for path, report in zip(paths[1:], reports[1:], strict=True):
        other = report_benchmark(report["content"])
        if other != first:
            raise ConfigError(f"{path}: not comparable with {paths[0]}: benchmark is {other!r}, not {first!r}")
        fields = sorted(manifest_differences(reports[0], report, subject), key=lambda f: _telling(f[0]))
        if fields:
            name, a, b = fields[0]
            raise ConfigError(
                f"{path}: not comparable with {paths[0]}: {name} is {short(repr(b), 90)}, not {short(repr(a), 90)}"
                + (f" (and {len(fields) - 1} more field(s))" if len(fields) > 1 else "")
            )


def bound_rankings(path: Path, report: dict, name: str, rankings: dict[str, Ranking], loaded: Loaded) -> None:
    """ConfigError unless `rankings` are the ones the report's entry `name` was scored from.

    By the recorded rankings_sha256 where the entry has one (run, evaluate, compare), else by every metric's value
    overall (baseline strategies and harness modes record no hash of their rankings).
    """
    content, bench = report["content"], get_benchmark(report_benchmark(report["content"]))
    entry = report_entries(content)[name]
    recorded = entry.get("rankings_sha256")
    if recorded is not None:
        if rankings_sha256(loaded.task, rankings, bench.row_keys) != recorded:
            raise ConfigError(f"{path}: the rankings given for {short(name)} are not the ones it was made from")
        return
    overall = entry.get("results", {}).get("overall", {})
    metrics = [m for m in content["scoring"]["metrics"] if isinstance(overall.get(m), dict)]
    depth = content["scoring"].get("depth")
    values = per_query_values(loaded.task, rankings, [parse_metric(m) for m in metrics], depth)
    scored = [q for q in loaded.task.queries if q.targets]
    headline = [i for i, q in enumerate(scored) if in_headline(q)]
    for row, metric in enumerate(metrics):
        got, want = float(f"{float(exact_mean(values[row, headline])):.12g}"), overall[metric].get("value")
        if want is None or abs(got - float(want)) > 1e-9:
            raise ConfigError(
                f"{path}: the rankings given for {short(name)} give {metric} {got:.4f} overall, the report says {want}"
            )
    if not metrics:
        raise ConfigError(f"{path}: {short(name)} records neither rankings_sha256 nor overall results to check against")


def read_sides(paths: Sequence[Path], rankings: Sequence[Path], data: Path | None, subject: bool = False) -> Sides:
    """Every system of every report with its rankings (given, or beside each report), checked and comparable."""
    reports = [read_verified(Path(p), "diff") for p in paths]
    check_comparable(paths, reports, subject)
    content = reports[0]["content"]
    bench = get_benchmark(report_benchmark(content))
    loaded = load_for(bench, content, data)
    sides, seen = [], set()
    for path, report, files in zip(paths, reports, rankings_for(paths, reports, rankings), strict=True):
        names = report_systems(report["content"])
        runs, _, _ = checked_runs(files, names, bench, loaded)
        for name, ranked in runs:
            bound_rankings(Path(path), report, name, ranked, loaded)
            label = name if name not in seen else f"{name} ({Path(path).name})"
            if label in seen:
                raise ConfigError(f"{path}: system {short(name)} is given twice")
            seen.add(label)
            sides.append(Side(label, ranked, report, str(path)))
    return Sides(bench, loaded, sides, content["scoring"])


def read_rankings_sides(files: Sequence[Path], benchmark: str, data: Path | None) -> Sides:
    """Bare rankings files on one benchmark's data: each a side named by its file stem."""
    bench = get_benchmark(benchmark)
    loaded = bench.load(bench.resolve_data(data))
    runs, _, _ = checked_runs(list(files), None, bench, loaded)
    names = [name for name, _ in runs]
    if len(set(names)) != len(names):
        raise ConfigError(f"two rankings files share the name {short(next(n for n in names if names.count(n) > 1))}")
    scoring = bench.scoring().describe()
    sides = [Side(name, ranked, None, str(file)) for (name, ranked), file in zip(runs, files, strict=True)]
    return Sides(bench, loaded, sides, scoring)
