"""Each v3 rule for the new personas (docs/epirec_v3_plan.md section 3) has a variant that breaks it."""

import copy
import json
import shutil
from datetime import timedelta
from pathlib import Path

import pytest

from memrecall.corpus import checks_v3, rules
from memrecall.corpus.checks_v3 import check_persona_v3
from memrecall.corpus.draft_check import check_draft_files

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = rules.parse_timestamp(rules.REFERENCE_NOW)


def base() -> dict:
    """v2's p01 (it meets every v3 target) renamed p13: a valid new-part persona."""
    text = (ROOT / "data" / "personas" / "p01.json").read_text(encoding="utf-8")
    return json.loads(text.replace('"p01', '"p13'))


def roster_of(persona: dict) -> dict:
    return {persona["persona_id"]: {k: persona[k] for k in ("name", "age", "context", "threads")}}


def messages(persona: dict, roster: dict | None = None) -> list[str]:
    found = check_persona_v3(persona, persona["persona_id"], REFERENCE, roster_of(base()) if roster is None else roster)
    return [str(v) for v in found]


def test_the_base_persona_meets_every_v3_rule():
    assert messages(base()) == []


def test_the_constants_are_the_registered_targets():
    registered = json.loads((ROOT / "docs" / "epirec_v3_rules.json").read_text(encoding="utf-8"))
    per = registered["per_persona"]
    assert per["episodes"] == checks_v3.EPISODES and per["threads"] == checks_v3.THREADS
    assert tuple(per["sessions"]) == checks_v3.SESSIONS
    assert tuple(per["session_span_days"]) == checks_v3.SESSION_SPAN_DAYS
    assert tuple(per["episode_age_days"]) == checks_v3.EPISODE_AGE_DAYS
    assert tuple(per["episodes_per_thread"]) == checks_v3.EPISODES_PER_THREAD
    assert tuple(per["siblings_per_episode"]) == checks_v3.SIBLINGS_PER_EPISODE
    assert per["labels"] == checks_v3.LABELS
    assert {k: tuple(v) if isinstance(v, list) else (v, v) for k, v in per["age_buckets"].items()} == (
        checks_v3.AGE_BUCKETS
    )
    assert per["routes_used"] == list(rules.ROUTES)
    audit = registered["episode_near_neighbour_audit"]
    assert (audit["jaccard_threshold"], audit["min_pairs_per_new_persona"], audit["max_pair_jaccard_below"]) == (
        checks_v3.PAIR_JACCARD,
        checks_v3.MIN_PAIRS,
        checks_v3.MAX_PAIR_JACCARD_BELOW,
    )
    ages = registered["new_personas"]["ages"]
    assert (int(min(ages)[:2]), int(max(ages)[-2:])) == checks_v3.AGES


def shifted(days: float, which: slice):
    def change(p):
        for e in p["episodes"][which]:
            moment = rules.parse_timestamp(e["date_time"]) + timedelta(days=days)
            e["date_time"] = moment.isoformat()

    return change


def relabel(index: int, band: str, valence: str):
    def change(p):
        p["episodes"][index].update(intensity_band=band, valence=valence)

    return change


def implicit_routes(route: str):
    def change(p):
        for e in p["episodes"]:
            for q in e["probes"]:
                if q["type"] == "reflective_implicit" and q["route"] == route:
                    q["route"] = next(r for r in rules.ROUTES if r != route)

    return change


def field(key: str, value):
    def change(p):
        p[key] = value

    return change


def episode_field(index: int, key: str, value):
    def change(p):
        p["episodes"][index][key] = value

    return change


def same_text(p):
    p["episodes"][1]["text"] = p["episodes"][0]["text"]


def drop_last(p):
    p["episodes"].pop()


def unrelated_texts(p):
    for i, e in enumerate(p["episodes"]):
        e["text"] = " ".join(f"word{i}x{j}" for j in range(24)) + "."


def accented(word: str):
    def change(p):
        episode = p["episodes"][0]
        episode["text"] = episode["text"].rstrip(".") + f" with {word}."
        implicit = next(q for q in episode["probes"] if q["type"] == "reflective_implicit")
        implicit["query"] = implicit["query"].rstrip(".?") + f", {word.upper()} again."

    return change


VARIANTS = {
    "13 episodes": (drop_last, "has 13 episodes, expected exactly 14"),
    "a low episode made mild": (relabel(0, "mild", "neutral"), "label mix is"),
    "a high episode made positive": (relabel(0, "high", "positive"), "label mix is high/negative 3, high/positive 4"),
    "a route unused": (implicit_routes("time"), "takes the route(s) time"),
    "four siblings": (episode_field(0, "siblings", ["p13e02", "p13e03", "p13e04", "p13e05"]), "declares 4 siblings"),
    "no siblings": (episode_field(0, "siblings", []), "declares 0 siblings"),
    "two threads": (field("threads", ["one", "two"]), "has 2 threads, expected 3"),
    "a thread of six": (episode_field(0, "thread", 99), "thread must be"),
    "aged 71": (field("age", 71), "age 71 is outside 16 to 70"),
    "span over 145 days": (shifted(-20, slice(0, 1)), "session span is"),
    "older than 150 days": (shifted(-30, slice(0, 14)), "days before reference_now, expected 0.5 to 150"),
    "no medium episode": (shifted(-25, slice(10, 14)), "medium episodes, expected 1 to 1"),
    "two near-identical texts": (same_text, "episode texts are too alike"),
    "no look-alikes": (unrelated_texts, "episode pairs share content stems at Jaccard >= 0.1, expected at least 3"),
    **{
        f"implicit probe repeats {word}": (accented(word), f"implicit probe repeats {word.casefold()} from its episode")
        for word in ("Inés", "São", "Thảo", "Łódź")
    },
}


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_each_broken_v3_rule_is_named(name):
    change, expected = VARIANTS[name]
    persona = copy.deepcopy(base())
    change(persona)
    found = messages(persona)
    assert any(expected in m for m in found), found


@pytest.mark.parametrize("key", ["name", "age", "context", "threads"])
def test_a_persona_that_departs_from_its_roster_line_is_named(key):
    roster = roster_of(base())
    roster["p13"][key] = ["x", "y", "z"] if key == "threads" else (60 if key == "age" else "Other")
    assert any(f"{key} differs from the roster line" in m for m in messages(base(), roster))
    assert messages(base(), {}) == ["p13: has no line in the v3 roster"]


def checkout(tmp_path: Path, persona: dict) -> Path:
    """A draft layout: p01..p12 as committed, one new persona, the older releases and a roster for it."""
    data = tmp_path / "data"
    (data / "personas").mkdir(parents=True)
    for n in range(1, 13):
        shutil.copyfile(ROOT / "data" / "personas" / f"p{n:02d}.json", data / "personas" / f"p{n:02d}.json")
    for name in ("epirec_v1.json", "epirec_v2.json"):
        shutil.copyfile(ROOT / "data" / name, data / name)
    line = {"id": "p13", **roster_of(base())["p13"]}
    (data / "personas_v3_roster.json").write_text(json.dumps({"personas": [line]}), encoding="utf-8")
    path = data / "personas" / "p13.json"
    path.write_text(json.dumps(persona, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def test_draft_check_holds_new_personas_to_v3_and_to_no_reuse_of_v1_or_v2(tmp_path):
    path = checkout(tmp_path, base())
    files = sorted(path.parent.glob("p*.json"))
    found = [str(v) for v in check_draft_files(files)]
    # p13 is p01 renamed: every text repeats v2 (and the corpus now holds each text twice); nothing else breaks
    assert {m.split(": ", 2)[-1] for m in found if m.startswith(str(path))} == {
        "episode text is reused from v2",
        "probe query is reused from v2",
    }
    assert sum(m.endswith("episode text is reused from v2") for m in found) == 14
    assert not any("reused from v1.0" in m for m in found)
    assert all(str(path) in m or m.startswith("corpus: ") for m in found)
    persona = base()
    persona["episodes"][0]["siblings"] = []
    path.write_text(json.dumps(persona), encoding="utf-8")
    assert any(m.endswith("p13e01: declares 0 siblings, expected 1 to 3") for m in map(str, check_draft_files(files)))


def test_a_draft_below_data_drafts_is_checked_against_the_same_roster_and_releases(tmp_path):
    path = checkout(tmp_path, base())
    moved = tmp_path / "data" / "drafts" / "v3" / "p13.json"
    moved.parent.mkdir(parents=True)
    path.rename(moved)
    files = [*sorted(path.parent.glob("p*.json")), moved]
    found = [str(v) for v in check_draft_files(files)]
    assert sum(m.startswith(str(moved)) and m.endswith("episode text is reused from v2") for m in found) == 14
    assert not any("has no line in the v3 roster" in m for m in found)
