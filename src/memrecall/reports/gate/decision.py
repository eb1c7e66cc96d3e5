"""The gate's decision from a baseline report with its rankings and a candidate (report with rankings, or a run)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from memrecall.errors import ConfigError, UsageError
from memrecall.reports.compare_reports import read_verified
from memrecall.reports.content import report_systems
from memrecall.reports.diff.content import diff_content
from memrecall.reports.diff.inputs import Side, Sides, check_comparable, read_sides
from memrecall.reports.gate.guards import GateSettings, check_strata
from memrecall.reports.gate.verdict import (
    EXIT_CODES,
    FAIL,
    UNDECIDED,
    GuardResult,
    guard_results,
    overall_verdict,
    stratified_sample,
)
from memrecall.scoring.metrics import parse_metric
from memrecall.scoring.policy import in_headline

BROKE_MOST = 5


@dataclass
class GateResult:
    """The verdict (pass, fail, cannot decide), why, each guard's numbers, and on a fail the queries that broke most."""

    verdict: str
    guards: list[GuardResult] = field(default_factory=list)
    reason: str | None = None
    benchmark: str | None = None
    baseline: str | None = None
    candidate: str | None = None
    sample: dict | None = None
    broke_most: list[dict] = field(default_factory=list)
    diff: dict | None = None

    @property
    def exit_code(self) -> int:
        """0 pass, 1 fail, 2 cannot decide."""
        return EXIT_CODES[self.verdict]

    @property
    def refused(self) -> bool:
        """True when the inputs were not comparable, so no guard was measured."""
        return self.verdict == UNDECIDED and not self.guards

    @property
    def passed(self) -> bool:
        """True only for a pass."""
        return self.exit_code == 0

    def as_dict(self) -> dict:
        """Plain JSON (the diff's content stays out: it is the page's)."""
        return {
            "verdict": self.verdict,
            "reason": self.reason,
            "benchmark": self.benchmark,
            "baseline_content_sha256": self.baseline,
            "candidate_content_sha256": self.candidate,
            "sample": self.sample,
            "guards": [g.as_dict() for g in self.guards],
            "broke_most": self.broke_most,
        }


def read_baseline(path: Path) -> dict:
    """The baseline report, refused unless it holds exactly one system."""
    report = read_verified(Path(path), "gate")
    names = report_systems(report["content"])
    if len(names) != 1:
        raise UsageError(f"{path}: holds {len(names)} systems ({', '.join(names)}); a gate baseline holds one")
    return report


def refusal(baseline_path: Path, baseline: dict, candidate_label: str, candidate: dict) -> GateResult | None:
    """A cannot-decide result naming the first field where the candidate is not comparable, or None."""
    try:
        check_comparable([Path(baseline_path), Path(candidate_label)], [baseline, candidate], subject=True)
    except ConfigError as exc:
        return GateResult(UNDECIDED, reason=str(exc))
    return None


def decide(
    baseline_path: Path,
    baseline_rankings: Sequence[Path],
    candidate: Side,
    settings: GateSettings,
    data: Path | None,
) -> GateResult:
    """The gate's result for a candidate whose report is already known to be comparable with the baseline."""
    base = read_sides([baseline_path], baseline_rankings, data)
    bench, loaded = base.benchmark, base.loaded
    task = loaded.task
    headline = [q for q in task.queries if q.targets and in_headline(q)]
    check_strata(settings.guards, task, headline)
    sample = None
    if settings.sample is not None:
        sample = stratified_sample(headline, settings.sample, settings.seed, bench.primary_stratum)
    results = guard_results(task, base.sides[0].rankings, candidate.rankings, settings.guards, base.scoring, sample)
    verdict = overall_verdict(results)
    result = GateResult(
        verdict,
        results,
        benchmark=bench.name,
        baseline=base.sides[0].fingerprint,
        candidate=candidate.fingerprint,
        sample=None
        if sample is None
        else {"size": len(sample), "seed": settings.seed, "stratified_by": bench.primary_stratum},
    )
    if verdict == UNDECIDED:
        result.reason = "too few guarded queries to detect a drop of the margin at power 0.8 (see queries needed)"
    if verdict == FAIL:
        failed = [r for r in results if r.verdict == FAIL]
        k = parse_metric(failed[0].metric).k
        sides = [replace(base.sides[0], name="baseline"), replace(candidate, name="candidate")]
        result.diff = diff_content(Sides(bench, loaded, sides, base.scoring), k)
        result.broke_most = broke_most(result.diff, failed, sample)
    return result


def broke_most(content: dict, failed: Sequence[GuardResult], sample: frozenset[str] | None) -> list[dict]:
    """The queries of the failing guards' strata the candidate broke, largest drop of the gold's rank first."""
    from memrecall.reports.gate.guards import parse_stratum

    wanted = [parse_stratum(r.stratum) for r in failed]
    broken = [
        q
        for q in content["queries"]
        if q["outcomes"][0] == "broken"
        and (sample is None or q["id"] in sample)
        and any(all(q["strata"].get(k) == v for k, v in conditions) for conditions in wanted)
    ]
    broken.sort(key=lambda q: -q["changes"][0])
    return [
        {"query_id": q["id"], "text": q["text"], "baseline_rank": q["ranks"][0], "candidate_rank": q["ranks"][1]}
        for q in broken[:BROKE_MOST]
    ]


def candidate_side(
    baseline_path: Path, baseline: dict, path: Path, rankings: Sequence[Path], data: Path | None
) -> Side | GateResult:
    """A candidate report's one system with its rankings, or a cannot-decide result when it is not comparable."""
    report = read_verified(path, "gate")
    refused = refusal(baseline_path, baseline, str(path), report)
    if refused is not None:
        return refused
    sides = read_sides([path], rankings, data)
    if len(sides.sides) != 1:
        raise UsageError(f"{path}: holds {len(sides.sides)} systems; a gate candidate is one")
    return sides.sides[0]
