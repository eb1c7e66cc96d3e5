"""The leaderboard's entries: each report in a folder with its rankings and per-query scores, and its state."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from memrecall.benchmarks import BENCHMARKS, REPO_ROOT, Benchmark, Loaded, get_benchmark
from memrecall.data.jsonfile import read_json, read_regular_bytes
from memrecall.data.rankings import read_rankings_file
from memrecall.data.releases import RELEASES
from memrecall.errors import ConfigError, DatasetError
from memrecall.progress import progress_bar
from memrecall.reports.content import shape_problem
from memrecall.reports.leaderboard.encoders import RowEncoder, row_encoder
from memrecall.reports.proof.identity import isolation
from memrecall.reports.proof.verification import Check, report_state, verify_report
from memrecall.reports.query_scores import read_scores, scores_beside, scores_rows
from memrecall.reports.rankings_files import rankings_beside_report, report_files, report_stem
from memrecall.scoring.metrics import cluster_numbers

BUNDLED = tuple(("epirec", Path("data") / name) for name in reversed(RELEASES))  # newest first


@dataclass
class Entry:
    """One system's report on one benchmark, with its rankings and scores files and how far it verified."""

    report_path: Path
    rankings_path: Path
    report: dict
    system: str
    scores: list[dict]
    state: str
    checks: list = field(default_factory=list)

    def clusters(self, ids: Sequence[str]) -> tuple[int, ...] | None:
        """The queries' store clusters when the scores carry stores (the report resampled stores), else None."""
        stores = {r["query_id"]: r.get("store_id") for r in self.scores}
        if any(stores.get(q) is None for q in ids):
            return None
        return cluster_numbers([stores[q] for q in ids])

    @property
    def stores(self) -> int | None:
        """How many stores its scored queries come from, when the scores name them (store-level reports)."""
        named = {r.get("store_id") for r in self.scores}
        return None if None in named or not named else len(named)

    @property
    def content(self) -> dict:
        """The report's signed content."""
        return self.report["content"]

    @property
    def results(self) -> dict:
        """The system's results (overall and by stratum)."""
        return self.content["systems"][self.system]["results"]

    @property
    def oracle(self) -> bool:
        """True when the report's signed content says the system reads gold labels."""
        own = self.content["systems"][self.system]
        return bool(self.content.get("uses_gold_labels") or own.get("uses_gold_labels"))

    @property
    def isolation(self) -> str:
        """Where the code behind the rankings ran, from signed content: own code, process or rankings file."""
        return isolation(self.content, self.system)

    @property
    def cost(self) -> dict:
        """The run's cost block from the unsigned env ({} when absent)."""
        cost = (self.report.get("env") or {}).get("cost") or {}
        return cost.get(self.system) or {} if isinstance(cost, dict) else {}

    @property
    def config(self) -> object:
        """The system's config as the run recorded it in env (unsigned)."""
        return ((self.report.get("env") or {}).get("system_configs") or {}).get(self.system)

    @cached_property
    def encoder(self) -> RowEncoder:
        """The encoder the row ranked with (signed claim, else its config's model, else none)."""
        return row_encoder(self.content, self.config)

    @property
    def warm(self) -> bool:
        """True when the row's encoder found every text in the cache (a shared-cache sweep): no encoding cost."""
        return self.encoder.signed and (self.report.get("env") or {}).get("texts_encoded") == 0

    @property
    def row(self) -> str:
        """The row's key in its table: the system, or SYSTEM.ENCODER when a signed non-default encoder ranked."""
        return f"{self.system}.{self.encoder.name}" if self.encoder.axis else self.system


def load_data(values: Mapping[str, Sequence[Path]]) -> dict[tuple[str, str], tuple[Path, Loaded]]:
    """Data files and their tasks by (benchmark, source sha256): the bundled EpiRec releases, then each --data."""
    pairs = [(name, REPO_ROOT / path) for name, path in BUNDLED if (REPO_ROOT / path).is_file()]
    pairs += [(name, Path(p)) for name, paths in sorted(values.items()) for p in paths]
    out: dict[tuple[str, str], tuple[Path, Loaded]] = {}
    for name, path in pairs:
        bench = get_benchmark(name)
        loaded = bench.load(bench.resolve_data(path))
        out[(bench.name, loaded.task.source_sha256)] = (Path(path), loaded)
    return out


def read_entries(
    folder: Path,
    data: Mapping[tuple[str, str], tuple[Path, Loaded]],
    keys: Sequence[Path] = (),
    show_progress: bool = False,
) -> list[Entry]:
    """Every *.report.json(.gz) under `folder` (sorted by path) as an entry; a broken one is an error naming it."""
    paths = report_files(folder, pattern="**/*")
    if not paths:
        raise ConfigError(f"{folder}: no *.report.json(.gz) files")
    entries = []
    with progress_bar(len(paths), "leaderboard: checking", show_progress, unit="report") as bar:
        for path in paths:
            entries.append(read_entry(path, data, keys))
            bar.update(1)
    return entries


UNSANDBOXED = {
    "none": "its plug-in shared the scorer's interpreter (isolation: none, --in-process); run it sandboxed",
    "process": "its plug-in ran outside the sandbox (isolation: process, --sandbox none); run it sandboxed",
}


def read_entry(path: Path, data: Mapping[tuple[str, str], tuple[Path, Loaded]], keys: Sequence[Path] = ()) -> Entry:
    """One report with its rankings (SYSTEM.rankings.jsonl beside it) and scores, checked and verified."""
    try:
        report = read_json(path)
    except DatasetError as exc:
        raise DatasetError(str(path), "", f"not a readable JSON report: {getattr(exc, 'problem', exc)}") from None
    problem = shape_problem(report)
    content = report.get("content", {}) if isinstance(report, dict) else {}
    if problem is None and (content.get("kind") != "systems" or len(content.get("system_order", [])) != 1):
        problem = "not a one-system report (memrecall run or sweep writes those)"
    if problem is None and content.get("benchmark") not in BENCHMARKS:
        problem = f"unknown benchmark {content.get('benchmark')!r}"
    if problem is None and isolation(content, content["system_order"][0]) in UNSANDBOXED:
        problem = UNSANDBOXED[isolation(content, content["system_order"][0])]
    if problem:
        raise DatasetError(str(path), "", problem)
    rankings = rankings_beside_report(path)
    bench = get_benchmark(content["benchmark"])
    found = data.get((bench.name, content["task"]["source_sha256"]))
    name = content["system_order"][0]
    if found:
        checks = verify_report(report, keys, rankings=(rankings,), data=found[0])
    else:
        checks = verify_report(report, keys)
    checks = [*checks, rankings_check(content["systems"][name].get("rankings_sha256"), rankings)]
    entry = Entry(path, rankings, report, name, [], report_state(report, checks), checks)
    loaded = found[1] if found else None
    entry.scores = _scores(entry, bench, loaded, scores_beside_report(path))
    return entry


def scores_beside_report(path: Path) -> Path | None:
    """The one scores file beside a report (SYSTEM.scores.jsonl.gz or .jsonl), or None; two of them is an error."""
    found = scores_beside(path)
    if len(found) > 1:
        raise DatasetError(str(path), "", f"two scores files beside it ({found[0].name}, {found[1].name}); keep one")
    return found[0] if found else None


def rankings_check(expected: object, path: Path) -> Check:
    """The rankings file beside a report must be the one its content names (sha256 of its bytes, inflated if gzip)."""
    import hashlib

    from memrecall.data.compressed import inflated

    digest = hashlib.sha256(inflated(path, read_regular_bytes(path))).hexdigest()
    ok = digest == expected
    detail = (
        f"sha256 {digest} is the report's rankings_sha256" if ok else f"sha256 {digest}, the report names {expected}"
    )
    return Check("rankings file", ok, detail)


def _scores(entry: Entry, bench: Benchmark, loaded: Loaded | None, path: Path | None) -> list[dict]:
    """The entry's per-query scores: from its file (checked against the report, and the data when given)."""
    computed = None
    if loaded is not None:
        computed = scores_rows(bench, loaded, entry.report, read_rankings_file(entry.rankings_path)[0])
    if path is not None:
        rows = read_scores(path)
        if computed is not None and rows != computed:
            raise DatasetError(str(path), "", "differs from the scores of its rankings on the data")
    elif computed is not None:
        rows = computed
    else:
        stem = report_stem(entry.report_path)
        raise DatasetError(
            str(entry.report_path), "", f"no {stem}.scores.jsonl(.gz) beside it and no --data for {bench.name}"
        )
    _check_means(entry, rows, path or entry.report_path)
    return rows


def _check_means(entry: Entry, rows: list[dict], path: Path) -> None:
    """The scores' means must equal the report's headline values (overall, and per group when grouped)."""
    groups: dict[str, list[dict]] = {"overall": rows}
    stratum = entry.content.get("primary_stratum")
    for row in rows:
        if row.get("group") is not None:
            groups.setdefault(str(row["group"]), []).append(row)
    for group, members in groups.items():
        summary = (
            entry.results.get("overall") if group == "overall" else entry.results.get(f"by_{stratum}", {}).get(group)
        )
        for metric in entry.content["headline_metrics"]:
            expected = (summary or {}).get(metric, {}).get("value")
            mean = math.fsum(r["values"].get(metric, math.nan) for r in members) / max(1, len(members))
            if expected is None or not math.isclose(mean, expected, rel_tol=1e-9, abs_tol=1e-12):
                raise DatasetError(
                    str(path), "", f"{metric} mean over {group} is {mean:.6f}, the report says {expected}"
                )
