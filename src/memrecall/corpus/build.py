"""Build the EpiRec release, SHA256SUMS and croissant.json from the persona sources."""

from __future__ import annotations

import hashlib
from collections import Counter
from pathlib import Path
from typing import Any

from memrecall.corpus import rules
from memrecall.corpus.croissant import croissant_metadata
from memrecall.corpus.sources import Layout, ReleaseSpec, read_json_file
from memrecall.data.jsonfile import read_regular_bytes, read_regular_text, split_lines
from memrecall.errors import DatasetError
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
            current = read_regular_bytes(path)
        except DatasetError:
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


def dropped_entries(layout: Layout, built: list[ReleaseSpec]) -> list[str]:
    """Releases SHA256SUMS or croissant.json list that this build would not rebuild (it must never drop them)."""
    names = {r.file_name for r in built}
    problems = []
    if layout.checksums.exists():
        try:
            text = read_regular_text(layout.checksums)
        except DatasetError as exc:
            return [f"{layout.display(layout.checksums)}: cannot read it ({exc.problem}); restore it first"]
        for number, line in enumerate(split_lines(text), start=1):
            parts = line.split()
            if len(parts) != 2:
                problems.append(f"{layout.display(layout.checksums)}: line {number} is not '<sha256>  <file name>'")
            elif parts[1].lstrip("*") not in names:
                problems.append(f"{layout.display(layout.checksums)} lists {parts[1].lstrip('*')}")
    if layout.croissant.exists():
        where = layout.display(layout.croissant)
        metadata, violations = read_json_file(layout.croissant, where)
        for key in ("distribution", "recordSet"):
            entries = metadata.get(key, []) if isinstance(metadata, dict) and not violations else []
            for entry in entries if isinstance(entries, list) else [entries]:
                name = _croissant_release(entry)
                if name is not None and name not in names:
                    problems.append(f"{where} {key} lists {name}")
    return list(dict.fromkeys(problems))


def _croissant_release(entry: Any) -> str | None:
    """The release file a Croissant FileObject or RecordSet describes (`epirec_v2.json`, `epirec_v2/episodes`)."""
    if not isinstance(entry, dict) or not isinstance(entry.get("@id"), str):
        return None
    ident = entry["@id"]
    return ident if ident.endswith(".json") else ident.split("/")[0] + ".json"
