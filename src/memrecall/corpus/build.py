"""Build the EpiRec release, SHA256SUMS and croissant.json from the persona sources."""

from __future__ import annotations

import hashlib
from collections import Counter
from pathlib import Path
from typing import Any

from memrecall.corpus import rules
from memrecall.corpus.croissant import croissant_metadata
from memrecall.corpus.sources import Layout, ReleaseSpec
from memrecall.io import atomic_write_text, pretty_json

RELEASE_NAME = "EpiRec"
RELEASE_FULL_NAME = "Episodic Recall: a benchmark for emotional resurfacing and factual lookup in agent memory"


def release_stats(personas: list[dict[str, Any]], reference_now: str) -> dict[str, Any]:
    """Counts of personas, episodes, probes, bands, valences, probe types and the episode age range."""
    reference = rules.parse_timestamp(reference_now)
    episodes = [e for p in personas for e in p["episodes"]]
    moments = [rules.parse_timestamp(e["date_time"]) for e in episodes]
    ages = [rules.age_days(m, reference) for m in moments if m is not None]
    return {
        "personas": len(personas),
        "episodes": len(episodes),
        "probes": sum(len(e["probes"]) for e in episodes),
        "intensity_bands": dict(sorted(Counter(e["intensity_band"] for e in episodes).items())),
        "valences": dict(sorted(Counter(e["valence"] for e in episodes).items())),
        "probe_types": dict(sorted(Counter(q["type"] for e in episodes for q in e["probes"]).items())),
        "age_buckets": dict(sorted(Counter(rules.age_bucket(a) for a in ages).items())),
        "episode_age_days": {"min": round(min(ages), 3), "max": round(max(ages), 3)} if ages else {"min": 0, "max": 0},
    }


def build_release(
    personas: list[dict[str, Any]], version: str, reference_now: str = rules.REFERENCE_NOW
) -> dict[str, Any]:
    """The release object: identity, reference time, stats and the personas in id order."""
    ordered = sorted(personas, key=lambda p: p["persona_id"])
    return {
        "name": RELEASE_NAME,
        "full_name": RELEASE_FULL_NAME,
        "version": version,
        "reference_now": reference_now,
        "stats": release_stats(ordered, reference_now),
        "personas": ordered,
    }


def sha256_text(text: str) -> str:
    """Hex sha256 of a text's UTF-8 bytes."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def generated_files(layout: Layout, sources: dict[ReleaseSpec, list[dict[str, Any]]]) -> dict[Path, str]:
    """Every generated file's path and exact text: one file per release, SHA256SUMS, croissant.json."""
    files: dict[Path, str] = {}
    shipped = []
    for release, personas in sources.items():
        text = pretty_json(build_release(personas, release.version))
        files[layout.release_file(release)] = text
        shipped.append((release, sha256_text(text), len(text.encode("utf-8"))))
    files[layout.checksums] = "".join(
        f"{digest}  {r.file_name}\n" for r, digest, _ in sorted(shipped, key=lambda x: x[0].file_name)
    )
    files[layout.croissant] = pretty_json(croissant_metadata(shipped))
    return files


def stale_files(files: dict[Path, str]) -> list[Path]:
    """Generated files whose bytes on disk differ from what a build would write."""
    stale = []
    for path, text in files.items():
        try:
            current = path.read_bytes()
        except OSError:
            current = None
        if current != text.encode("utf-8"):
            stale.append(path)
    return stale


def write_files(files: dict[Path, str]) -> list[Path]:
    """Write the stale generated files atomically; return what was written."""
    changed = stale_files(files)
    for path in changed:
        atomic_write_text(path, files[path])
    return changed
