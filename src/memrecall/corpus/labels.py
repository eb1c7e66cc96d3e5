"""Human label audit: a deterministic stratified sample to rate, and agreement between raters."""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path
from typing import Any

from memrecall.corpus.rules import INTENSITY_BANDS, VALENCES
from memrecall.data.jsonfile import read_csv_rows
from memrecall.errors import DatasetError, MemrecallError
from memrecall.io import csv_text

SAMPLE_SIZE = 60
SAMPLE_COLUMNS = ("episode_id", "text", "intensity_band", "valence", "notes")
BAND_ORDER = {"low": 0, "mild": 1, "high": 2}


class LabelsError(MemrecallError):
    """A rater file is unreadable or does not match the sample; carries every problem."""


def id_hash(episode_id: str) -> str:
    """sha256 of the episode id: the fixed, RNG-free order used for sampling."""
    return hashlib.sha256(episode_id.encode("utf-8")).hexdigest()


def stratum_quotas(sizes: dict[str, int], total: int) -> dict[str, int]:
    """Shares proportional to stratum size by largest remainder; ties go to the stratum name order."""
    population = sum(sizes.values())
    total = min(total, population)
    exact = {s: total * n / population for s, n in sizes.items()}
    quotas = {s: int(v) for s, v in exact.items()}
    leftover = total - sum(quotas.values())
    for stratum in sorted(exact, key=lambda s: (-(exact[s] - quotas[s]), s))[:leftover]:
        quotas[stratum] += 1
    return quotas


def sample_episodes(personas: list[dict[str, Any]], size: int = SAMPLE_SIZE) -> list[dict[str, Any]]:
    """Stratified by band x valence; within a stratum the lowest id hashes; rows ordered by id hash."""
    strata: dict[str, list[dict]] = {}
    for episode in (e for p in personas for e in p["episodes"]):
        strata.setdefault(f"{episode['intensity_band']}/{episode['valence']}", []).append(episode)
    quotas = stratum_quotas({s: len(v) for s, v in strata.items()}, size)
    chosen = [e for s, members in strata.items() for e in sorted(members, key=lambda e: id_hash(e["id"]))[: quotas[s]]]
    return sorted(chosen, key=lambda e: id_hash(e["id"]))


def sample_csv(episodes: list[dict[str, Any]]) -> str:
    """The rating sheet: id and text, with blank band, valence and notes columns (no authored labels)."""
    return csv_text(SAMPLE_COLUMNS, ([episode["id"], episode["text"], "", "", ""] for episode in episodes))


@dataclass(frozen=True)
class Rating:
    """One rater's labels for one episode."""

    band: str
    valence: str


def read_ratings(path: Path, sample_ids: list[str]) -> dict[str, Rating]:
    """Read a filled rating sheet; every sampled id exactly once with valid labels, else LabelsError."""
    try:
        rows = read_csv_rows(path)
    except DatasetError as exc:
        raise LabelsError(f"{path}: {exc.problem}") from None
    problems = []
    missing_columns = {"episode_id", "intensity_band", "valence"} - set(rows[0] if rows else {})
    if missing_columns:
        raise LabelsError(f"{path}: missing column(s) {', '.join(sorted(missing_columns))}")
    ratings: dict[str, Rating] = {}
    for line, row in enumerate(rows, start=2):
        episode_id = (row["episode_id"] or "").strip()
        band, valence = (row["intensity_band"] or "").strip().lower(), (row["valence"] or "").strip().lower()
        if episode_id not in sample_ids:
            problems.append(f"{path}: line {line}: {episode_id!r} is not in the sample")
        elif episode_id in ratings:
            problems.append(f"{path}: line {line}: {episode_id} is rated twice")
        if band not in INTENSITY_BANDS:
            problems.append(f"{path}: line {line}: intensity_band {band!r} is not one of high, mild, low")
        if valence not in VALENCES:
            problems.append(f"{path}: line {line}: valence {valence!r} is not one of positive, negative, neutral")
        ratings.setdefault(episode_id, Rating(band, valence))
    absent = [i for i in sample_ids if i not in ratings]
    if absent:
        problems.append(f"{path}: {len(absent)} sampled episode(s) not rated, e.g. {absent[0]}")
    if problems:
        raise LabelsError("\n".join(problems))
    return ratings


def cohen_kappa(a: list[str], b: list[str]) -> float:
    """Cohen's kappa of two raters' labels on the same items; 1.0 when chance agreement is total."""
    n = len(a)
    observed = sum(x == y for x, y in zip(a, b, strict=True)) / n
    count_a, count_b = Counter(a), Counter(b)
    expected = sum(count_a[c] * count_b[c] for c in set(a) | set(b)) / (n * n)
    return 1.0 if expected == 1.0 else (observed - expected) / (1.0 - expected)


def majority(values: list[str]) -> str | None:
    """The label more than half of the raters gave, or None."""
    label, count = Counter(values).most_common(1)[0]
    return label if count * 2 > len(values) else None


def agreement(raters: dict[str, dict[str, Rating]], authored: dict[str, dict]) -> tuple[dict, list[dict]]:
    """Pairwise kappa, exact and within-one-band agreement, consensus, and disputed episodes."""
    ids = sorted(authored)
    names = sorted(raters)
    pairs = {}
    for x, y in combinations(names, 2):
        bands_x, bands_y = [raters[x][i].band for i in ids], [raters[y][i].band for i in ids]
        val_x, val_y = [raters[x][i].valence for i in ids], [raters[y][i].valence for i in ids]
        pairs[f"{x} vs {y}"] = {
            "band_kappa": cohen_kappa(bands_x, bands_y),
            "valence_kappa": cohen_kappa(val_x, val_y),
            "band_exact": sum(p == q for p, q in zip(bands_x, bands_y, strict=True)) / len(ids),
            "band_within_one": sum(
                abs(BAND_ORDER[p] - BAND_ORDER[q]) <= 1 for p, q in zip(bands_x, bands_y, strict=True)
            )
            / len(ids),
            "valence_exact": sum(p == q for p, q in zip(val_x, val_y, strict=True)) / len(ids),
        }
    disputes = []
    consensus = {}
    for i in ids:
        band = majority([raters[r][i].band for r in names])
        valence = majority([raters[r][i].valence for r in names])
        consensus[i] = {"intensity_band": band, "valence": valence}
        if band != authored[i]["intensity_band"] or valence != authored[i]["valence"]:
            disputes.append(
                {
                    "episode_id": i,
                    "authored_band": authored[i]["intensity_band"],
                    "consensus_band": band or "no majority",
                    "authored_valence": authored[i]["valence"],
                    "consensus_valence": valence or "no majority",
                }
            )
    summary = {"raters": names, "episodes": len(ids), "pairs": pairs, "consensus": consensus, "disputed": len(disputes)}
    return summary, disputes


def disputes_csv(disputes: list[dict]) -> str:
    """The disputed episodes as CSV."""
    columns = ("episode_id", "authored_band", "consensus_band", "authored_valence", "consensus_valence")
    return csv_text(columns, ([row.get(c, "") for c in columns] for row in disputes))
