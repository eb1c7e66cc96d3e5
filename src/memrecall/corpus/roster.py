"""Check the EpiRec v3 roster: `python -m memrecall.corpus.roster data/personas_v3_roster.json [RULES.json]`."""

from __future__ import annotations

import json
import random
import re
import sys
import unicodedata
from collections import Counter, defaultdict
from pathlib import Path

# v2's 12 personas as docs/epirec_v3_plan.md section 3 lists them: what the 36 new ones must not repeat.
V2_CITIES = "Seoul|Brisbane|Nairobi|Buenos Aires|Mumbai|Osaka|Mexico City|Reykjavik|Lagos|Bogotá|Singapore|Manila"
V2_COUNTRIES = "South Korea|Australia|Kenya|Argentina|India|Japan|Mexico|Iceland|Nigeria|Colombia|Singapore|Philippines"
V2_OCCUPATIONS = (
    "data analyst|Year 12 student|chemistry teacher|bus driver|pastry chef|piano tuner|architecture student|tour guide|"
    "software tester|librarian|Secondary Four student|wedding photographer"
)
V2_THREADS = (
    "learning to swim|a sibling's exam year|saving for a trip|a school science fair|a first half marathon|"
    "a sister's wedding|teaching a child to cycle|tango classes|coaching children's football|opening a food stall|"
    "flatmate friction|adopting a street dog|a parent's retirement and shop closing|restoring a piano|weekend cycling|"
    "studio critiques|a long-distance friendship|shelter volunteering|a tour season|a ceramics class|an old dog|"
    "job interviews|a church choir|a parent's tailoring shop|a reading club|learning to drive|a child's school play|"
    "a badminton team|an art portfolio|a cousin sharing a room|moving in with a partner|a failing camera|"
    "a grandparent's rooftop garden"
).split("|")
FIELDS = {"written_order": int, "id": str, "name": str, "gender": str, "age": int, "city": str, "country": str}
FIELDS |= {"region": str, "utc_offset": str, "occupation": str, "work_status": str, "context": str, "threads": list}
WORK_STATUSES = ("paid work", "full-time student", "retired", "not in paid work")
OFFSET = re.compile(r"[+-](0\d|1[0-4]):(00|30|45)")
# Words that carry no topic in a thread line, dropped before two thread lines are compared.
FILLER = set("a an the to of for in on at with by from and or her his their its my new first old own up".split())


def plain(text: str) -> str:
    """`text` lowercased, accents removed and runs of spaces joined: the form names are compared in."""
    return " ".join(unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower().split())


def topic(thread: str) -> frozenset[str]:
    """Crude content stems of a thread line: filler dropped, then -ing/-er/-s endings, a doubled letter, a final e."""
    words = [w for w in re.findall(r"[a-z]+", plain(thread).replace("'s", "")) if w not in FILLER]
    words = [re.sub(r"(?<=[a-z]{3})(ings?|ers?|es|(?<!s)s)$", "", w) for w in words]
    return frozenset(re.sub(r"(?<=[a-z]{3})e$", "", re.sub(r"(?<=[a-z]{2})([a-z])\1$", r"\1", w)) for w in words)


def same_topic(a: str, b: str) -> bool:
    """Two thread lines are one topic when their stems are equal, nested, or overlap by at least half (Jaccard)."""
    x, y = topic(a), topic(b)
    return bool(x and y) and (x <= y or y <= x or len(x & y) / len(x | y) >= 0.5)


def seeded_ids(count: int, first: int) -> dict[int, str]:
    """written_order -> id: `random.Random(3).shuffle` of the list in written order, i-th gets p{first + i}."""
    order = list(range(1, count + 1))
    random.Random(3).shuffle(order)
    return {n: f"p{first + i}" for i, n in enumerate(order)}


def band_of(age: int, rules: dict) -> str | None:
    """The age band ("16-29" ...) of the rules that holds `age`, or None."""
    return next((b for b in rules["ages"] if int(b.split("-")[0]) <= age <= int(b.split("-")[1])), None)


def _line_problems(p: dict, rules: dict) -> list[str]:
    """What is wrong with one roster line on its own."""
    stated = p["gender"] in ("woman", "man") or plain(p["gender"]) in plain(p["context"])
    held = (
        (len(p["name"].split()) == 1, f"name '{p['name']}' is not one given name"),
        (band_of(p["age"], rules) is not None, f"age {p['age']} is in no band"),
        (stated, f"gender '{p['gender']}' is not named in context"),
        (p["region"] in rules["min_new_per_region"], f"region '{p['region']}' is not one of the plan's"),
        (bool(OFFSET.fullmatch(p["utc_offset"])), f"utc_offset '{p['utc_offset']}' is not +HH:MM or -HH:MM"),
        (p["work_status"] in WORK_STATUSES, f"work_status '{p['work_status']}' is not one of {WORK_STATUSES}"),
        (len(p["threads"]) == 3 and all(type(t) is str and t for t in p["threads"]), "needs 3 non-empty threads"),
        (plain(p["city"]) not in plain(V2_CITIES).split("|"), f"city '{p['city']}' is a v2 city"),
        (plain(p["occupation"]) not in plain(V2_OCCUPATIONS).split("|"), f"occupation '{p['occupation']}' is v2's"),
    )
    v2 = [f"thread '{t}' is v2's topic '{old}'" for t in p["threads"] for old in V2_THREADS if same_topic(t, old)]
    return [f"{p['id']}: {problem}" for problem in [text for ok, text in held if not ok] + v2]


def _count_problems(ps: list[dict], rules: dict) -> list[str]:
    """What is wrong with the roster-wide counts: size, order, ids, age bands, genders, regions, work status."""
    want = seeded_ids(len(ps), int(re.findall(r"\d+", rules["ids"])[0]))
    wrong = [f"{p['id']} should be {w}" for p in ps if p["id"] != (w := want.get(p["written_order"]))]
    ages, bands = Counter(band_of(p["age"], rules) for p in ps), "/".join(rules["ages"])
    got, expected = "/".join(str(ages[b]) for b in rules["ages"]), "/".join(map(str, rules["ages"].values()))
    gender, region = Counter(p["gender"] for p in ps), Counter(p["region"] for p in ps)
    students = [p["id"] for p in ps if p["work_status"] == "full-time student"]
    idle = sum(p["work_status"] in WORK_STATUSES[2:] for p in ps)
    most, least = rules["max_full_time_students"], rules["min_retired_or_not_in_paid_work"]
    held = [
        (len(ps) == rules["count"], f"roster: {len(ps)} personas, expected {rules['count']}"),
        ([p["written_order"] for p in ps] == list(range(1, len(ps) + 1)), "written_order: not 1..n in listed order"),
        (not wrong, f"ids: not random.Random(3).shuffle of the written order: {', '.join(wrong)}"),
        (got == expected, f"ages: bands {bands} hold {got}, expected {expected}"),
        (len(students) <= most, f"full-time students: {len(students)} ({', '.join(students)}), at most {most}"),
        (idle >= least, f"retired or not in paid work: {idle}, at least {least}"),
    ]
    for key, word in (("women", "woman"), ("men", "man")):
        lo, hi = rules[key]
        held.append((lo <= gender[word] <= hi, f"{key}: {gender[word]}, expected {lo} to {hi}"))
    for name, n in rules["min_new_per_region"].items():
        held.append((region[name] >= n, f"region {name}: {region[name]} new personas, at least {n}"))
    return [text for ok, text in held if not ok]


def _shared_problems(ps: list[dict], rules: dict) -> list[str]:
    """What must differ between personas: cities, occupations, countries (v2's count too), thread topics."""
    out, cap, v2 = [], rules["max_personas_per_country_all_48"], Counter(plain(V2_COUNTRIES).split("|"))
    for key in ("city", "occupation", "country"):
        groups: dict[str, list[str]] = defaultdict(list)
        for p in ps:
            groups[plain(p[key])].append(p["id"])
        for name, ids in groups.items():
            if key == "country" and len(ids) + v2[name] > cap:
                out.append(f"country {name}: {len(ids)} new + {v2[name]} v2 ({', '.join(ids)}), at most {cap}")
            elif key != "country" and len(ids) > 1:
                out.append(f"{', '.join(ids)}: share {key} '{name}'")
    lines = [(p["id"], t) for p in ps for t in p["threads"]]
    for i, (pid, a) in enumerate(lines):
        out += [f"{pid}, {qid}: threads '{a}' and '{b}' share a topic" for qid, b in lines[i + 1 :] if same_topic(a, b)]
    return out


def roster_problems(roster: dict, rules: dict) -> list[str]:
    """One line per rule of `rules` (docs/epirec_v3_rules.json "new_personas") or the plan that the roster breaks."""
    ps = roster.get("personas")
    if not isinstance(ps, list) or not all(isinstance(p, dict) for p in ps):
        return ["roster: 'personas' must be a list of objects"]
    kinds = [(p.get("id", f"#{n}"), k, t, type(p.get(k))) for n, p in enumerate(ps, 1) for k, t in FIELDS.items()]
    if bad := [f"{pid}: '{k}' missing or not {t.__name__}" for pid, k, t, got in kinds if got is not t]:
        return bad
    lines = [line for p in ps for line in _line_problems(p, rules)]
    return _count_problems(ps, rules) + lines + _shared_problems(ps, rules)


def main(argv: list[str]) -> int:
    """Print each problem and return 1, or print one "ok" line with counts and return 0 (2 on a usage error)."""
    if len(argv) not in (1, 2):
        print("usage: python -m memrecall.corpus.roster ROSTER.json [RULES.json]")
        return 2
    path = Path(argv[0])
    rules_path = Path(argv[1]) if len(argv) == 2 else path.resolve().parent.parent / "docs" / "epirec_v3_rules.json"
    try:
        roster = json.loads(path.read_text(encoding="utf-8"))
        rules = json.loads(rules_path.read_text(encoding="utf-8"))["new_personas"]
    except (OSError, ValueError, KeyError) as exc:
        print(f"error: cannot read {path} or {rules_path}: {exc!r}")
        return 1
    problems = roster_problems(roster, rules) if isinstance(roster, dict) else ["roster: not a JSON object"]
    if problems:
        print("\n".join(problems))
        return 1
    ps = roster["personas"]
    counts = [Counter(band_of(p["age"], rules) for p in ps)]
    counts += [Counter(p[key] for p in ps) for key in ("gender", "region", "work_status")]
    parts = "; ".join(", ".join(f"{k} {n}" for k, n in sorted(c.items())) for c in counts)
    print(f"ok: {len(ps)} personas, ids match the seeded shuffle; {parts}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
