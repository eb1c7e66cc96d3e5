"""The committed v3 roster holds every roster rule of docs/epirec_v3_plan.md, and each rule, broken once, is named."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path

import pytest

from memrecall.corpus.roster import main, roster_problems, same_topic, seeded_ids

ROOT = Path(__file__).resolve().parents[1]
ROSTER_FILE = ROOT / "data" / "personas_v3_roster.json"
RULES_FILE = ROOT / "docs" / "epirec_v3_rules.json"
ROSTER = json.loads(ROSTER_FILE.read_text(encoding="utf-8"))
RULES = json.loads(RULES_FILE.read_text(encoding="utf-8"))["new_personas"]
OK_LINE = (
    "ok: 36 personas, ids match the seeded shuffle; 16-29 12, 30-49 12, 50-70 12; man 17, non-binary 1, woman 18; "
    "Africa 7, Americas 8, Asia 8, Europe 8, Oceania or small island states 5; "
    "full-time student 3, not in paid work 1, paid work 26, retired 6"
)


def variant(**changes: dict) -> dict:
    """A deep copy of the committed roster with fields of the named personas replaced (name -> {field: value})."""
    roster = copy.deepcopy(ROSTER)
    for name, fields in changes.items():
        persona = next(p for p in roster["personas"] if p["name"] == name)
        for key, value in fields.items():
            if value is None:
                del persona[key]
            else:
                persona[key] = value
    return roster


def test_the_committed_roster_has_no_problems():
    assert roster_problems(ROSTER, RULES) == []


def test_the_file_is_sorted_pretty_json_in_written_order():
    assert (
        ROSTER_FILE.read_text(encoding="utf-8")
        == json.dumps(ROSTER, sort_keys=True, indent=2, ensure_ascii=False) + "\n"
    )
    assert [p["written_order"] for p in ROSTER["personas"]] == list(range(1, 37))
    assert ROSTER["schema"] == "epirec-v3-roster/v1"


def test_ids_redo_from_the_written_order_with_random_3():
    lines = sorted(ROSTER["personas"], key=lambda p: p["written_order"])
    random.Random(3).shuffle(lines)
    assert [p["id"] for p in lines] == [f"p{13 + i}" for i in range(36)]
    assert (lines[0]["name"], lines[35]["name"]) == ("Itzel", "Mere")
    assert seeded_ids(36, 13)[1] == "p39"


def test_the_entry_point_prints_one_ok_line(capsys):
    assert main([str(ROSTER_FILE)]) == 0
    assert capsys.readouterr().out == OK_LINE + "\n"


def test_the_entry_point_prints_each_problem_and_exits_1(tmp_path, capsys):
    broken = tmp_path / "roster.json"
    broken.write_text(json.dumps(variant(Efua={"city": "Lagos"}, Callum={"occupation": "librarian"})), encoding="utf-8")
    assert main([str(broken), str(RULES_FILE)]) == 1
    assert capsys.readouterr().out == "p39: city 'Lagos' is a v2 city\np18: occupation 'librarian' is v2's\n"


YOUNG_EFUA = "ages: bands 16-29/30-49/50-70 hold 13/11/12, expected 12/12/12"
SWAPPED = "ids: not random.Random(3).shuffle of the written order: p21 should be p39, p39 should be p21"
REORDERED = "ids: not random.Random(3).shuffle of the written order: p39 should be p21, p21 should be p39"
STATUSES = "('paid work', 'full-time student', 'retired', 'not in paid work')"
RETIRED_TO_WORK = {name: {"work_status": "paid work"} for name in ("Sipho", "Ramon", "Nadia", "Meera")}
NO_LABEL = "A sign writer who hand-paints shopfront lettering and rents a draughty villa with two friends."
CASES = {
    "age moved to another band": (variant(Efua={"age": 25}), [YOUNG_EFUA]),
    "age above 70": (
        variant(Pilar={"age": 71}),
        ["ages: bands 16-29/30-49/50-70 hold 12/12/11, expected 12/12/12", "p38: age 71 is in no band"],
    ),
    "a third man short": (variant(Moussa={"gender": "woman"}), ["men: 16, expected 17 to 19"]),
    "other identity not in context": (
        variant(Rowan={"context": NO_LABEL}),
        ["p36: gender 'non-binary' is not named in context"],
    ),
    "a v2 city": (variant(Efua={"city": "Lagos"}), ["p39: city 'Lagos' is a v2 city"]),
    "a v2 city without its accent": (variant(Camila={"city": "Bogota"}), ["p17: city 'Bogota' is a v2 city"]),
    "two personas in one city": (variant(Moussa={"city": "Accra"}), ["p39, p21: share city 'accra'"]),
    "a third persona in a v2 country": (
        variant(Edgar={"country": "Mexico"}),
        ["country mexico: 2 new + 1 v2 (p19, p13), at most 2"],
    ),
    "a third persona in a new country": (
        variant(Dimitris={"country": "Spain"}, Elke={"country": "Spain"}),
        ["country spain: 3 new + 0 v2 (p37, p47, p38), at most 2"],
    ),
    "two in one new country is allowed": (variant(Elke={"country": "Spain"}), []),
    "a region below its minimum": (
        variant(Efua={"region": "Europe"}, Moussa={"region": "Europe"}, Selam={"region": "Europe"}),
        ["region Africa: 4 new personas, at least 5"],
    ),
    "a region the plan does not name": (
        variant(Nadia={"region": "Indian Ocean"}),
        ["p42: region 'Indian Ocean' is not one of the plan's"],
    ),
    "a malformed UTC offset": (
        variant(Prakash={"utc_offset": "+5:45"}),
        ["p16: utc_offset '+5:45' is not +HH:MM or -HH:MM"],
    ),
    "a duplicated occupation": (variant(Ronald={"occupation": "Florist"}), ["p34, p47: share occupation 'florist'"]),
    "a v2 occupation": (variant(Callum={"occupation": "Librarian"}), ["p18: occupation 'Librarian' is v2's"]),
    "a 5th full-time student": (
        variant(Linh={"work_status": "full-time student"}, Callum={"work_status": "full-time student"}),
        ["full-time students: 5 (p17, p43, p33, p18, p32), at most 4"],
    ),
    "3 retired or not in paid work": (variant(**RETIRED_TO_WORK), ["retired or not in paid work: 3, at least 4"]),
    "an unknown work status": (
        variant(Uwe={"work_status": "employed"}),
        [f"p44: work_status 'employed' is not one of {STATUSES}"],
    ),
    "two ids swapped": (variant(Efua={"id": "p21"}, Moussa={"id": "p39"}), [SWAPPED]),
    "written order out of step": (
        variant(Efua={"written_order": 2}, Moussa={"written_order": 1}),
        ["written_order: not 1..n in listed order", REORDERED],
    ),
    "a v2 thread topic": (
        variant(Efua={"threads": ["a church choir", "keeping six laying hens in the yard", "a naming ceremony"]}),
        ["p39: thread 'a church choir' is v2's topic 'a church choir'"],
    ),
    "a close variant of a v2 thread": (
        variant(Tomasz={"threads": ["chess games in the park", "learning to swim in the sea", "stamps"]}),
        ["p30: thread 'learning to swim in the sea' is v2's topic 'learning to swim'"],
    ),
    "two new personas share a topic": (
        variant(Pilar={"threads": ["her neighbourhood's Fallas committee", "keeping laying hens", "a walking group"]}),
        ["p39, p38: threads 'keeping six laying hens in the yard' and 'keeping laying hens' share a topic"],
    ),
    "two threads only": (
        variant(Tomasz={"threads": ["chess games in the park", "stamps"]}),
        ["p30: needs 3 non-empty threads"],
    ),
    "a surname": (variant(Tomasz={"name": "Tomasz Nowak"}), ["p30: name 'Tomasz Nowak' is not one given name"]),
    "a missing field": (variant(Efua={"city": None}), ["p39: 'city' missing or not str"]),
    "an age written as text": (variant(Efua={"age": "41"}), ["p39: 'age' missing or not int"]),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_each_broken_rule_gives_its_one_line(case):
    roster, expected = CASES[case]
    assert roster_problems(roster, RULES) == expected


def test_a_short_roster_is_named_first():
    roster = copy.deepcopy(ROSTER)
    roster["personas"].pop()
    assert roster_problems(roster, RULES)[0] == "roster: 35 personas, expected 36"


def test_topic_matching_sees_rewordings_but_not_shared_words_alone():
    assert same_topic("Tango classes on Fridays", "tango classes") is True
    assert same_topic("interviews for a job", "job interviews") is True
    assert same_topic("moving the bookshop to a bigger room", "moving in with a partner") is False
    assert same_topic("a petanque club's spring tournament", "an old-Fiat club's spring rally") is False
