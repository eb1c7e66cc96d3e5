"""The comparability manifest: what must match before two reports' numbers may be set side by side."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from memrecall.encoding.vector_cache import COMPUTED
from memrecall.scoring.metrics import parse_metric

SCHEMA = "memrecall-comparability/v1"
REPRESENTATIONS = {
    ("longmemeval", "perseus", "session"): "session = user and assistant turns as 'role: content' lines",
    ("longmemeval", "official", "session"): "session = its user turns joined by one space (LongMemEval's own)",
    ("longmemeval", "perseus", "turn"): "one user turn per document",
    ("longmemeval", "official", "turn"): "one user turn per document",
    ("locomo", None, "session"): "session = 'speaker: text' lines, image captions inline",
    ("locomo", None, "turn"): "one dialogue turn per document, image caption inline",
}


SUBJECT = ("encoder", "dense_policy")  # what a row measures, not where: a leaderboard table ranks rows across them


def manifest(content: Mapping[str, Any], results: Mapping[str, Any], dense_policy: str | None) -> dict:
    """The manifest of a report's content: split commitment, protocol, representation, k, denominators, encoder.

    The encoder is the report's own (`model`, a baseline's) or else the signed claim of its first system
    (`systems.NAME.encoder`, a run's), as an identity (encoder_identity); None for a ranking no memrecall encoder
    made.
    """
    dataset = content.get("dataset") or {}
    family = dataset.get("family") if isinstance(dataset, dict) else None
    task = content["task"]
    granularity = dataset.get("granularity", "session") if isinstance(dataset, dict) else "session"
    protocol = dataset.get("protocol") if isinstance(dataset, dict) else None
    stratum = content.get("primary_stratum")
    by_group = results.get(f"by_{stratum}", {}) if stratum else {}
    added = set(content["scoring"].get("requested_metrics", []))  # --metrics: beside the policy, not part of it
    own = [name for name in content["scoring"]["metrics"] if name not in added]
    ks = sorted({m.k for m in map(parse_metric, own) if m.k is not None})
    return {
        "schema": SCHEMA,
        "split": {
            "data_sha256": task["source_sha256"],
            "queries": task["queries"],
            "stores": task["stores"],
            "type_distribution": {group: row["n"] for group, row in by_group.items()},
            "max_instances": dataset.get("max_instances") if isinstance(dataset, dict) else None,
        },
        "protocol": protocol or task["version"],
        "session_representation": REPRESENTATIONS.get((family, protocol, granularity), "one document per item"),
        "granularity": granularity,
        "k": ks,
        "depth": content["scoring"].get("depth"),
        "denominator": {
            "headline_queries": results.get("overall", {}).get("n"),
            "left_out_of_headline": results.get("left_out_of_headline", {}),
            "without_targets": results.get("n_without_targets", 0),
        },
        "encoder": content.get("model") or first_system_encoder(content),
        "dense_policy": dense_policy,
    }


def claimed_encoder(content: Mapping[str, Any]) -> dict | None:
    """The encoder a report's systems use: the report's own (`model`), else the first claim in system order.

    The signed manifest takes the first system's claim only, so a report whose first system uses no encoder
    (`recency,dense`) signs None; readers compare with this instead, so such a pair is not like-for-like by omission.
    """
    if content.get("model"):
        return content["model"]
    systems = content.get("systems") or {}
    claims = (systems.get(name, {}).get("encoder") for name in content.get("system_order") or [])
    return next((encoder_identity(c) for c in claims if c is not None), None) if isinstance(systems, dict) else None


def first_system_encoder(content: Mapping[str, Any]) -> dict | None:
    """The encoder identity the report's first system claims in signed content, or None."""
    order = content.get("system_order") or []
    systems = content.get("systems") or {}
    return encoder_identity(systems.get(order[0], {}).get("encoder")) if order and isinstance(systems, dict) else None


def encoder_identity(claim: Any) -> Any:
    """An encoder claim without its cache check count: which encoder, not how many vectors one run computed
    (two systems on one encoder compute different numbers, and a report made before the check has none)."""
    return {k: v for k, v in claim.items() if k != COMPUTED} if isinstance(claim, dict) else claim


def conditions(fields: Mapping[str, Any]) -> dict:
    """A manifest without its SUBJECT fields: where the numbers were measured, which rows must share."""
    return {k: v for k, v in fields.items() if k not in SUBJECT}


def flatten(value: Any, prefix: str = "") -> dict[str, Any]:
    """`{"a": {"b": 1}}` -> `{"a.b": 1}`; lists stay values."""
    if not isinstance(value, dict):
        return {prefix: value}
    out: dict[str, Any] = {}
    for key, item in value.items():
        out.update(flatten(item, f"{prefix}.{key}" if prefix else key))
    return out


def mismatches(a: Mapping[str, Any], b: Mapping[str, Any]) -> list[tuple[str, Any, Any]]:
    """Every manifest field whose value differs (or exists on one side only), sorted by field."""
    left, right = flatten(dict(a)), flatten(dict(b))
    return [(k, left.get(k), right.get(k)) for k in sorted(set(left) | set(right)) if left.get(k) != right.get(k)]
