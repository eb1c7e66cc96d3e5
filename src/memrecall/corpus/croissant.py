"""Croissant 1.1 JSON-LD metadata for the EpiRec release."""

from __future__ import annotations

from typing import Any

CROISSANT_SPEC = "http://mlcommons.org/croissant/1.1"
DATE_PUBLISHED = "2026-11-29"
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
    ("text", "sc:Text", "First-person journal entry, 15 to 60 words."),
    ("emotion", "sc:Text", "Authored dominant feeling, one lowercase word."),
    ("intensity_band", "sc:Text", "Authored intensity: high, mild or low."),
    ("valence", "sc:Text", "Authored valence: positive, negative or neutral."),
)


def _field(name: str, data_type: str, description: str) -> dict[str, Any]:
    """One episode field of the record set, extracted by JSONPath from the release file."""
    return {
        "@type": "cr:Field",
        "@id": f"episodes/{name}",
        "name": name,
        "description": description,
        "dataType": data_type,
        "source": {
            "fileObject": {"@id": "epirec_v1.json"},
            "extract": {"jsonPath": f"$.personas[*].episodes[*].{name}"},
        },
    }


def croissant_metadata(release_sha256: str, release_bytes: int) -> dict[str, Any]:
    """The croissant.json document, carrying the release file's sha256 and size."""
    return {
        "@context": _CONTEXT,
        "@type": "sc:Dataset",
        "conformsTo": CROISSANT_SPEC,
        "name": "EpiRec",
        "description": (
            "EpiRec v1: 12 fictional personas, each with 14 dated first-person journal episodes and three "
            "retrieval probes per episode (factual, reflective_explicit, reflective_implicit), 504 probes in all. "
            "An evaluation-only benchmark for factual lookup and emotional resurfacing in agent memory retrieval."
        ),
        "license": "https://creativecommons.org/licenses/by/4.0/",
        "url": PROJECT_URL,
        "creator": {"@type": "sc:Organization", "name": "memrecall maintainers"},
        "datePublished": DATE_PUBLISHED,
        "version": "1.0.0",
        "inLanguage": "en",
        "isLiveDataset": False,
        "keywords": ["agent memory", "retrieval", "episodic memory", "benchmark", "synthetic"],
        "distribution": [
            {
                "@type": "cr:FileObject",
                "@id": "epirec_v1.json",
                "name": "epirec_v1.json",
                "description": "The release artifact: reference time, stats and personas with episodes and probes.",
                "contentUrl": "data/epirec_v1.json",
                "contentSize": f"{release_bytes} B",
                "encodingFormat": "application/json",
                "sha256": release_sha256,
            }
        ],
        "recordSet": [
            {
                "@type": "cr:RecordSet",
                "@id": "episodes",
                "name": "episodes",
                "description": "One record per episode across all personas.",
                "field": [_field(*spec) for spec in _EPISODE_FIELDS],
            }
        ],
    }
