"""Build small EpiRec source checkouts that pass every spec rule, for corpus tests."""

from __future__ import annotations

import json
from pathlib import Path

PLACES = [
    "harbour",
    "bakery",
    "garage",
    "library",
    "market",
    "station",
    "rooftop",
    "orchard",
    "museum",
    "stadium",
    "laundrette",
    "ferry",
    "greenhouse",
    "workshop",
]
OBJECTS = [
    "kettle",
    "ladder",
    "violin",
    "lantern",
    "bicycle",
    "notebook",
    "umbrella",
    "compass",
    "blanket",
    "teapot",
    "scarf",
    "trophy",
    "basket",
    "camera",
]
CUES = [
    "amber",
    "birch",
    "cobalt",
    "dune",
    "ember",
    "fjord",
    "glacier",
    "heron",
    "indigo",
    "juniper",
    "kestrel",
    "lagoon",
    "meadow",
    "nectar",
]
# (band, valence) per episode position: 6 low, 6 high (3 positive, 3 negative), 2 mild
LABELS = [
    ("low", "neutral"),
    ("high", "positive"),
    ("low", "neutral"),
    ("high", "negative"),
    ("mild", "positive"),
    ("low", "neutral"),
    ("high", "positive"),
    ("low", "neutral"),
    ("high", "negative"),
    ("mild", "negative"),
    ("low", "neutral"),
    ("high", "positive"),
    ("low", "neutral"),
    ("high", "negative"),
]
# day offsets from 2025-02-01: 13 sessions over 140 days; the last two sessions are under 6 days old
DAYS = [0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 145, 145]


def persona(number: int) -> dict:
    """A valid 14-episode persona source; texts differ per persona through its number."""
    from datetime import UTC, datetime, timedelta

    pid = f"p{number:02d}"
    episodes = []
    start = datetime(2025, 2, 1, 9, 0, tzinfo=UTC)
    for i in range(14):
        eid = f"{pid}e{i + 1:02d}"
        moment = start + timedelta(days=DAYS[i], hours=i % 2 * 6 if DAYS[i] == 145 else 0)
        band, valence = LABELS[i]
        text = (
            f"Persona {number} went to the {PLACES[i]} with a {OBJECTS[i]} and wrote down item {i + 1} "
            f"in the log for day {DAYS[i]}, then walked home slowly along the river."
        )
        episodes.append(
            {
                "id": eid,
                "session": min(i + 1, 13),
                "date_time": moment.isoformat(),
                "text": text,
                "emotion": "calm" if band == "low" else "pride",
                "intensity_band": band,
                "valence": valence,
                "probes": [
                    {
                        "id": f"{eid}-f",
                        "type": "factual",
                        "query": f"What did persona {number} carry to the {PLACES[i]}?",
                    },
                    {
                        "id": f"{eid}-x",
                        "type": "reflective_explicit",
                        "query": f"Persona {number} felt calm about the {OBJECTS[i]}.",
                    },
                    {
                        "id": f"{eid}-i",
                        "type": "reflective_implicit",
                        "query": f"That {CUES[i]} afternoon number {number + 100} keeps returning.",
                    },
                ],
            }
        )
    return {
        "persona_id": pid,
        "name": "Ada",
        "age": 25,
        "context": "A test persona.",
        "threads": ["one thread", "another thread"],
        "episodes": episodes,
    }


RULES = {"releases": {"epirec_v1.json": "memrecall-epirec-v1", "epirec_v2.json": "memrecall-epirec-v2"}}


def declare_rules(root: Path) -> None:
    """Declare memrecall's rules for the releases the checkout holds (data/memrecall_rules.json).

    Without data/archive/ a checkout holds v1 only (its sources in data/personas/).
    """
    (root / "data").mkdir(parents=True, exist_ok=True)
    held = RULES if (root / "data" / "archive").is_dir() else {"releases": {"epirec_v1.json": "memrecall-epirec-v1"}}
    (root / "data" / "memrecall_rules.json").write_text(json.dumps(held), encoding="utf-8")


def write_checkout(root: Path, personas: list[dict]) -> Path:
    """Write persona sources under root/data/personas, declaring memrecall's v1 rules, and return root."""
    folder = root / "data" / "personas"
    folder.mkdir(parents=True, exist_ok=True)
    for item in personas:
        (folder / f"{item['persona_id']}.json").write_text(json.dumps(item, indent=2), encoding="utf-8")
    declare_rules(root)
    return root


FEELINGS = [
    "proud",
    "glad",
    "relieved",
    "nervous",
    "curious",
    "grateful",
    "annoyed",
    "hopeful",
    "lonely",
    "amused",
    "tense",
    "content",
    "eager",
    "wistful",
]


def persona_v2(number: int) -> dict:
    """A persona that passes every v2 rule: two threads, anchors, siblings, short probes with routes."""
    item = persona(number)
    for i, episode in enumerate(item["episodes"]):
        episode["thread"] = 1 + i % 2
        episode["anchors"] = [
            f"Persona {number}",
            PLACES[i],
            OBJECTS[i],
            f"item {i + 1}",
            f"day {DAYS[i]}",
            "the river",
        ]
        probes = {p["type"]: p for p in episode["probes"]}
        probes["reflective_explicit"]["query"] = (
            f"I felt {FEELINGS[i]} about the {OBJECTS[i]}, {CUES[i]} {number + 100}."
        )
        implicit = probes["reflective_implicit"]
        implicit["query"] = f"It was all about {CUES[i]} {CUES[(i + 5) % 14]} {number + 100}."
        implicit["route"] = "time"
        episode["emotion"] = "content" if episode["intensity_band"] == "low" else "pride"
    episodes = item["episodes"]
    for episode in episodes:
        episode["siblings"] = [
            next(
                other["id"]
                for other in episodes
                if other["thread"] == episode["thread"]
                and (other["emotion"], other["valence"]) != (episode["emotion"], episode["valence"])
            )
        ]
    return item


def write_v2_checkout(root: Path, v1: list[dict], v2: list[dict]) -> Path:
    """Write a two-release checkout: v1 sources in the archive, v2 sources in data/personas."""
    for folder, personas in ((root / "data" / "archive" / "v1" / "personas", v1), (root / "data" / "personas", v2)):
        folder.mkdir(parents=True, exist_ok=True)
        for item in personas:
            (folder / f"{item['persona_id']}.json").write_text(json.dumps(item, indent=2), encoding="utf-8")
    declare_rules(root)
    return root
