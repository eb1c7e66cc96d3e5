"""The one normaliser of old report shapes: baseline's `strategies` and the harness's `modes`, read as `systems`;
a dataset's family named `dataset.kind` (report_schema 2 and before), read as `dataset.family`.

Only `verify`, `compare`, `report` and `power` read old shapes, through `current_shape`, and say so; every other
reader takes the current shape alone. The fingerprint and signatures are checked on the report as written: the
normalised copy is for reading, never for hashing. A report made before the cache check (report_schema 2 and
before) has no `vectors_computed_at_least` in its encoder claims: none is invented, readers say none is recorded.
"""

from __future__ import annotations

from typing import Any

from memrecall.reports.comparability import manifest

# an old shape's entries key and its order key
OLD_SHAPES = (("strategies", "strategy_order"), ("modes", "mode_order"))
OLD_FAMILY = "dataset.kind"  # the old name of dataset.family (content.kind says what the document is)


def old_shape(report: Any) -> str | None:
    """`strategies` or `modes` when the report has that old content shape, `dataset.kind` when only its dataset's
    family has the old name, else None."""
    content = report.get("content") if isinstance(report, dict) else None
    if not isinstance(content, dict):
        return None
    if "systems" not in content and "system_order" not in content:
        found = next((items for items, order in OLD_SHAPES if items in content or order in content), None)
        if found is not None:
            return found
    dataset = content.get("dataset")
    return OLD_FAMILY if isinstance(dataset, dict) and "kind" in dataset and "family" not in dataset else None


def old_shape_note(shape: str) -> str:
    """The line a reader prints when it reads an old shape."""
    return f"read as an old report shape ({shape}); regenerate it for a replay with this version"


def current_shape(report: Any) -> tuple[Any, str | None]:
    """(the report in the current shape, a note when it was read from an old one; None when it already was)."""
    shape = old_shape(report)
    if shape is None:
        return report, None
    content = dict(report["content"])
    if isinstance(content.get("dataset"), dict) and "kind" in content["dataset"]:
        content["dataset"] = {("family" if k == "kind" else k): v for k, v in content["dataset"].items()}
    if shape == OLD_FAMILY:
        return {**report, "content": content}, old_shape_note(shape)
    order = dict(OLD_SHAPES)[shape]
    content["systems"], content["system_order"] = content.pop(shape, None), content.pop(order, None)
    content["benchmark"] = _old_benchmark(content)
    if content.get("kind") == "baseline":
        content.setdefault("primary_stratum", "probe_type")
        content.setdefault("headline_metrics", [content.get("primary_metric")])
        content["ablations"] = [
            {("system" if k == "strategy" else k): v for k, v in a.items()} for a in content.get("ablations", [])
        ] or None
        if content["ablations"] is None:
            del content["ablations"]
    elif shape == "modes":
        entries = content["systems"] if isinstance(content["systems"], dict) else {}
        depth = next((e["coverage"].get("depth") for e in entries.values() if "coverage" in e), None)
        content["diagnostics"] = {"ks": [], "coverage_depth": depth}
    content["kind"] = "systems"
    if "comparability" not in content and isinstance(content["systems"], dict) and content["system_order"]:
        first = content["systems"].get(content["system_order"][0], {})
        if isinstance(first, dict) and isinstance(first.get("results"), dict) and "task" in content:
            content["comparability"] = manifest(content, first["results"], None)
    return {**report, "content": content}, old_shape_note(shape)


def _old_benchmark(content: dict) -> str:
    """The benchmark an old report answered (epirec for baselines; the harness's from its dataset)."""
    if content.get("kind") == "baseline":
        return "epirec"
    dataset = content.get("dataset") if isinstance(content.get("dataset"), dict) else {}
    if dataset.get("family") == "longmemeval":
        return "longmemeval" if dataset.get("protocol") == "perseus" else "longmemeval-official"
    if dataset.get("family") == "locomo":
        return "locomo" if dataset.get("granularity") == "session" else "locomo-turn"
    return str(content.get("task", {}).get("name", "unknown"))
