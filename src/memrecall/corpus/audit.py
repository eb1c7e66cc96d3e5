"""Lexical ambiguity candidates for blinded human review: episode near-neighbours and probe look-alikes."""

from __future__ import annotations

from itertools import combinations
from typing import Any

from memrecall.corpus.rules import content_stems

DEFAULT_THRESHOLD = 0.10


def jaccard(a: set[str], b: set[str]) -> float:
    """|a & b| / |a | b|, 0 for two empty sets."""
    union = a | b
    return len(a & b) / len(union) if union else 0.0


def audit_personas(personas: list[dict[str, Any]], threshold: float = DEFAULT_THRESHOLD) -> dict[str, Any]:
    """Episode pairs of one persona with content-stem Jaccard >= threshold, and probe candidates.

    A probe candidate is another episode of the probe's persona whose count of content stems
    shared with the probe is at least one and at least the count its own target shares.
    No authored labels are included, so the output can be reviewed blind.
    """
    pairs, probes = [], []
    for persona in sorted(personas, key=lambda p: p["persona_id"]):
        stems = {e["id"]: content_stems(e["text"]) for e in persona["episodes"]}
        for a, b in combinations(sorted(stems), 2):
            score = jaccard(stems[a], stems[b])
            if score >= threshold:
                pairs.append(
                    {
                        "persona_id": persona["persona_id"],
                        "episodes": [a, b],
                        "jaccard": round(score, 4),
                        "shared": sorted(stems[a] & stems[b]),
                    }
                )
        for episode in persona["episodes"]:
            for probe in episode["probes"]:
                probes.extend(_probe_candidates(persona["persona_id"], episode["id"], probe, stems))
    pairs.sort(key=lambda p: (-p["jaccard"], p["episodes"]))
    probes.sort(key=lambda p: p["probe_id"])
    return {
        "threshold": threshold,
        "method": "content-word Snowball stems (memrecall.corpus.rules); Jaccard for episode pairs, "
        "shared-stem counts for probes",
        "episode_pairs": pairs,
        "probe_candidates": probes,
        "counts": {
            "episode_pairs": len(pairs),
            "probes_with_candidates": len(probes),
            "by_probe_type": _count_by_type(probes),
        },
    }


def _probe_candidates(persona_id: str, target: str, probe: dict, stems: dict[str, set[str]]) -> list[dict]:
    """One row when other episodes share as many probe stems as the target does (and at least one)."""
    probe_stems = content_stems(probe["query"])
    own = len(probe_stems & stems[target])
    rivals = []
    for episode_id, episode_stems in sorted(stems.items()):
        shared = probe_stems & episode_stems
        if episode_id != target and shared and len(shared) >= own:
            rivals.append({"episode_id": episode_id, "overlap": len(shared), "shared": sorted(shared)})
    if not rivals:
        return []
    return [
        {
            "persona_id": persona_id,
            "probe_id": probe["id"],
            "type": probe["type"],
            "query": probe["query"],
            "target": target,
            "target_overlap": own,
            "candidates": rivals,
        }
    ]


def _count_by_type(rows: list[dict]) -> dict[str, int]:
    """Rows per probe type, sorted by type."""
    counts: dict[str, int] = {}
    for row in rows:
        counts[row["type"]] = counts.get(row["type"], 0) + 1
    return dict(sorted(counts.items()))
