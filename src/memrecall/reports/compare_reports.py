"""Compare reports: verified first, like-for-like only when their comparability manifests agree field by field."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from memrecall.data.jsonfile import read_json
from memrecall.errors import ConfigError
from memrecall.reports.comparability import mismatches
from memrecall.reports.content import LAYOUTS, environment, make_report, shape_problem
from memrecall.reports.fingerprint import report_fingerprint


def is_report_file(path: Path) -> bool:
    """True when the file is a JSON object with content and a fingerprint (a memrecall report)."""
    try:
        with open(path, "rb") as handle:
            if handle.read(1) != b"{":
                return False
        value = read_json(path)
    except Exception:  # noqa: BLE001 - anything unreadable is simply not a report here
        return False
    return isinstance(value, dict) and "content" in value and report_fingerprint(value) is not None


def entries(report: dict) -> list[tuple[str, dict]]:
    """(name, results) of every strategy, mode or system in the report, in its order."""
    content = report["content"]
    for order, items in LAYOUTS:
        if order in content:
            return [(name, content[items][name]["results"]) for name in content[order]]
    return []


def compare_reports(paths: Sequence[Path]) -> dict:
    """A comparison of verified reports: the manifest fields that differ and each system's headline values."""
    from memrecall.reports.verification import report_state, verify_report

    reports = []
    for path in paths:
        report = read_json(path)
        problem = shape_problem(report)
        if problem:
            raise ConfigError(f"{path}: {problem}")
        checks = verify_report(report)
        if report_state(report, checks) == "UNVERIFIED":
            raise ConfigError(f"{path}: UNVERIFIED: {checks[-1].name}: {checks[-1].detail}; compare refuses it")
        reports.append(report)
    base = reports[0]["content"].get("comparability")
    differences = []
    for path, report in zip(paths[1:], reports[1:], strict=True):
        other = report["content"].get("comparability")
        if base is None or other is None:
            fields = [("comparability", "present" if base else "absent", "present" if other else "absent")]
        else:
            fields = mismatches(base, other)
        differences += [{"report": str(path), "field": f, "first": a, "this": b} for f, a, b in fields]
    like = not differences
    content = {
        "kind": "report-comparison",
        "like_for_like": like,
        "label": "like-for-like" if like else "not like-for-like",
        "reports": [
            {
                "path_name": Path(path).name,
                "content_sha256": report_fingerprint(report),
                "primary_metric": report["content"]["primary_metric"],
                "headline": {
                    name: {
                        m: results["overall"][m]["value"] for m in _headline(report) if m in results.get("overall", {})
                    }
                    for name, results in entries(report)
                },
            }
            for path, report in zip(paths, reports, strict=True)
        ],
        "mismatches": differences,
    }
    return make_report(content, environment({}))


def _headline(report: dict) -> list[str]:
    """The report's headline metrics (its primary metric when it lists none)."""
    content = report["content"]
    return list(content.get("headline_metrics") or [content["primary_metric"]])
