"""Compare reports: verified first, like-for-like only when their comparability manifests agree field by field."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from memrecall.data.jsonfile import read_json
from memrecall.errors import ConfigError
from memrecall.reports.comparability import claimed_encoder, conditions, mismatches
from memrecall.reports.content import environment, make_report, shape_problem
from memrecall.reports.proof.fingerprint import report_fingerprint
from memrecall.reports.shapes import current_shape


def entries(report: dict) -> list[tuple[str, dict]]:
    """(name, results) of every system in the report, in its order."""
    content = report["content"]
    return [(name, content["systems"][name]["results"]) for name in content["system_order"]]


def read_verified(path: Path, command: str, say: Callable[[str], None] = lambda _: None) -> dict:
    """A report read from `path` in the current shape, refused (naming the file) unless its proof is not UNVERIFIED.

    A report of an old shape is verified as written and read through the normaliser; `say` is told so.
    """
    from memrecall.reports.proof.verification import report_state, verify_report

    written = read_json(path)
    report, note = current_shape(written)
    problem = shape_problem(report)
    if problem:
        raise ConfigError(f"{path}: {problem}")
    checks = verify_report(written)
    if report_state(written, checks) == "UNVERIFIED":
        raise ConfigError(f"{path}: UNVERIFIED: {checks[-1].name}: {checks[-1].detail}; {command} refuses it")
    if note:
        say(f"{path}: {note}")
    return report


def manifest_differences(first: dict, other: dict, subject: bool = True) -> list[tuple[str, object, object]]:
    """(field, first's value, other's value) of each comparability field that differs between two reports.

    The encoder binds only two reports that both use one, and only with `subject` (a row's own axes may differ
    where the question is how two subjects compare on the same conditions, as in `diff`).
    """
    base, this = report_manifest(first), report_manifest(other)
    if base is None or this is None:
        return [("comparability", "present" if base else "absent", "present" if this else "absent")]
    if subject and uses_encoder(first) and uses_encoder(other):
        return mismatches(base, this)
    return mismatches(conditions(base), conditions(this))


def compare_reports(paths: Sequence[Path], say: Callable[[str], None] = lambda _: None) -> dict:
    """A comparison of verified reports: the manifest fields that differ and each system's headline values.

    A report of an old shape is verified as written and read through the normaliser; `say` is told so.
    """
    reports = [read_verified(path, "compare", say) for path in paths]
    differences = []
    for path, report in zip(paths[1:], reports[1:], strict=True):
        fields = manifest_differences(reports[0], report)
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


def report_manifest(report: dict) -> dict | None:
    """The report's comparability manifest (an old baseline's is derived by the normaliser), its encoder the one
    any system claims (claimed_encoder) where the signed manifest names none."""
    manifest = report["content"].get("comparability")
    if manifest is not None and manifest.get("encoder") is None:
        return {**manifest, "encoder": claimed_encoder(report["content"])}
    return manifest


def uses_encoder(report: dict) -> bool:
    """True when any system of the report claims an encoder, or names one in its (old) config."""
    content = report["content"]
    if claimed_encoder(content) is not None:
        return True
    if any(_names_model(content["systems"][name].get("config")) for name in content["system_order"]):
        return True
    return content.get("model") is not None


def _names_model(config) -> bool:
    """True when a config (or any part of it) carries a `model` entry."""
    if isinstance(config, dict):
        return "model" in config or any(_names_model(v) for v in config.values())
    if isinstance(config, list):
        return any(_names_model(v) for v in config)
    return False


def _headline(report: dict) -> list[str]:
    """The report's headline metrics (its primary metric when it lists none)."""
    content = report["content"]
    return list(content.get("headline_metrics") or [content["primary_metric"]])
