"""Compare signed reports: like-for-like only when their comparability manifests agree field by field."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from memrecall.data.jsonfile import open_regular, read_json
from memrecall.errors import ConfigError, DatasetError
from memrecall.reports.comparability import mismatches
from memrecall.reports.content import LAYOUTS, environment, make_report, shape_problem, verify


def is_report_file(path: Path) -> bool:
    """True when the file is a JSON object with content and signature (a memrecall report)."""
    try:
        with open_regular(path) as handle:
            if handle.read(1) != b"{":
                return False
        value = read_json(path)
    except DatasetError as exc:
        if "not a regular file" in exc.problem:
            raise
        return False
    except Exception:  # noqa: BLE001 - anything unreadable is simply not a report here
        return False
    return isinstance(value, dict) and "content" in value and "signature" in value


def entries(report: dict) -> list[tuple[str, dict]]:
    """(name, results) of every strategy, mode or system in the report, in its order."""
    content = report["content"]
    for order, items in LAYOUTS:
        if order in content:
            return [(name, content[items][name]["results"]) for name in content[order]]
    return []


def compare_reports(paths: Sequence[Path]) -> dict:
    """A signed comparison of reports: the manifest fields that differ and each system's headline values."""
    reports = []
    for path in paths:
        report = read_json(path)
        problem = shape_problem(report)
        if problem:
            raise ConfigError(f"{path}: {problem}")
        if not verify(report):
            raise ConfigError(f"{path}: the signature does not match the content; compare refuses edited reports")
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
                "signature": report["signature"],
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
