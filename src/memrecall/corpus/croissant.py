"""Croissant 1.1 JSON-LD metadata for the EpiRec release."""

from __future__ import annotations

from typing import Any

from memrecall.corpus.sources import ReleaseSpec

CROISSANT_SPEC = "http://mlcommons.org/croissant/1.1"
DATE_PUBLISHED = {"1.0": "2026-11-30", "2.0": "2026-11-30", "3.0": "2026-12-03"}  # by newest release
DESCRIPTION = {
    "2.0": (
        "EpiRec: 12 fictional personas, each with 14 dated first-person journal episodes and three "
        "retrieval probes per episode (factual, reflective_explicit, reflective_implicit), 504 probes per "
        "release. An evaluation-only benchmark for factual lookup and emotional resurfacing in agent memory "
        "retrieval. v2 replaces v1's paraphrase-matchable reflective probes; v1.0 ships unchanged beside it."
    ),
    "3.0": (
        "EpiRec: fictional personas, each with 14 dated first-person journal episodes and three retrieval "
        "probes per episode (factual, reflective_explicit, reflective_implicit). v3 has 48 personas (v2's 12 "
        "carried byte for byte and 36 new ones), 672 probes of each type; v2 and v1.0 (12 personas, 168 "
        "probes of each type) ship unchanged beside it. An evaluation-only benchmark for factual lookup and "
        "emotional resurfacing in agent memory retrieval."
    ),
}
PROJECT_URL = "https://github.com/memrecall/memrecall"

_CONTEXT = {
    "@language": "en",
    "@vocab": "https://schema.org/",
    "sc": "https://schema.org/",
    "cr": "http://mlcommons.org/croissant/",
    "rai": "http://mlcommons.org/croissant/RAI/",
    "dct": "http://purl.org/dc/terms/",
    "citeAs": "cr:citeAs",
    "column": "cr:column",
    "conformsTo": "dct:conformsTo",
    "data": {"@id": "cr:data", "@type": "@json"},
    "dataType": {"@id": "cr:dataType", "@type": "@vocab"},
    "examples": {"@id": "cr:examples", "@type": "@json"},
    "extract": "cr:extract",
    "field": "cr:field",
    "fileObject": "cr:fileObject",
    "fileProperty": "cr:fileProperty",
    "fileSet": "cr:fileSet",
    "format": "cr:format",
    "includes": "cr:includes",
    "isLiveDataset": "cr:isLiveDataset",
    "jsonPath": "cr:jsonPath",
    "key": "cr:key",
    "md5": "cr:md5",
    "parentField": "cr:parentField",
    "path": "cr:path",
    "recordSet": "cr:recordSet",
    "references": "cr:references",
    "regex": "cr:regex",
    "repeated": "cr:repeated",
    "replace": "cr:replace",
    "separator": "cr:separator",
    "source": "cr:source",
    "subField": "cr:subField",
    "transform": "cr:transform",
}

_EPISODE_FIELDS = (
    ("id", "sc:Text", "Episode id, pNNeMM."),
    ("session", "sc:Integer", "Session number within the persona, 1..n in time order."),
    ("date_time", "sc:DateTime", "ISO-8601 timestamp with an explicit UTC offset."),
    ("text", "sc:Text", "First-person journal entry (v1: 15 to 60 words, v2: 20 to 40)."),
    ("emotion", "sc:Text", "Authored dominant feeling, one lowercase word."),
    ("intensity_band", "sc:Text", "Authored intensity: high, mild or low."),
    ("valence", "sc:Text", "Authored valence: positive, negative or neutral."),
)


def _field(name: str, data_type: str, description: str, file_name: str) -> dict[str, Any]:
    """One episode field of a release's record set, extracted by JSONPath from the release file."""
    stem = file_name.removesuffix(".json")
    return {
        "@type": "cr:Field",
        "@id": f"{stem}/episodes/{name}",
        "name": name,
        "description": description,
        "dataType": data_type,
        "source": {
            "fileObject": {"@id": file_name},
            "extract": {"jsonPath": f"$.personas[*].episodes[*].{name}"},
        },
    }


def _distribution(release: ReleaseSpec, sha256: str, size: int) -> dict[str, Any]:
    """The FileObject of one release file."""
    return {
        "@type": "cr:FileObject",
        "@id": release.file_name,
        "name": release.file_name,
        "description": f"EpiRec v{release.version} release artifact: reference time, stats and personas "
        "with episodes and probes.",
        "contentUrl": f"data/{release.file_name}",
        "contentSize": f"{size} B",
        "encodingFormat": "application/json",
        "sha256": sha256,
    }


def _record_set(release: ReleaseSpec) -> dict[str, Any]:
    """One record per episode of one release."""
    stem = release.file_name.removesuffix(".json")
    return {
        "@type": "cr:RecordSet",
        "@id": f"{stem}/episodes",
        "name": f"{stem}/episodes",
        "description": f"One record per episode across all personas of EpiRec v{release.version}.",
        "field": [_field(*spec, release.file_name) for spec in _EPISODE_FIELDS],
    }


def croissant_metadata(shipped: list[tuple[ReleaseSpec, str, int]]) -> dict[str, Any]:
    """The croissant.json document: one distribution (sha256 and size) and record set per release."""
    newest = max(release.version for release, _, _ in shipped)
    return {
        "@context": _CONTEXT,
        "@type": "sc:Dataset",
        "conformsTo": CROISSANT_SPEC,
        "name": "EpiRec",
        "description": DESCRIPTION.get(newest, DESCRIPTION["2.0"]),
        "license": "https://creativecommons.org/licenses/by/4.0/",
        "url": PROJECT_URL,
        "creator": {"@type": "sc:Organization", "name": "memrecall maintainers"},
        "datePublished": DATE_PUBLISHED[newest],
        "version": f"{newest}.0",
        "inLanguage": "en",
        "isLiveDataset": False,
        "keywords": ["agent memory", "retrieval", "episodic memory", "benchmark", "synthetic"],
        "distribution": [_distribution(*item) for item in sorted(shipped, key=lambda x: x[0].file_name)],
        "recordSet": [_record_set(release) for release, _, _ in sorted(shipped, key=lambda x: x[0].file_name)],
    }
