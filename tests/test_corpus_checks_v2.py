"""Each v2 rule (GENERATION_SPEC.md sections 11-13) has a fixture that breaks it and names the place."""

import copy

import pytest
from conftest import run
from corpus_factory import persona, persona_v2, write_v2_checkout

from memrecall.corpus import rules
from memrecall.corpus.checks_v2 import check_corpus_v2, check_persona_v2, reused_texts

REFERENCE = rules.parse_timestamp(rules.REFERENCE_NOW)


def messages(item):
    return [str(v) for v in check_persona_v2(item, item["persona_id"], REFERENCE)]


def test_factory_v2_persona_is_valid():
    assert messages(persona_v2(1)) == []
    assert check_corpus_v2([persona_v2(1), persona_v2(2)]) == []


def probe(item, index, kind):
    return next(p for p in item["episodes"][index]["probes"] if p["type"] == kind)


def set_text(index, text):
    def change(item):
        item["episodes"][index]["text"] = text

    return change


def set_probe(index, kind, query):
    def change(item):
        probe(item, index, kind)["query"] = query

    return change


CASES = [
    (
        set_text(0, "Persona 1 went to the harbour with a kettle, item 1, day 0, the river."),
        "text has 15 words, expected 20 to 40",
    ),
    (lambda p: p["episodes"][0].__setitem__("thread", 3), "p01e01: thread must be 1..2, got 3"),
    (
        lambda p: [e.__setitem__("thread", 1) for e in p["episodes"][:9]],
        "p01: thread 2 holds 3 episodes, expected at least 4",
    ),
    (lambda p: p["episodes"][0].__setitem__("anchors", []), "p01e01: lists no anchors"),
    (
        lambda p: p["episodes"][0]["anchors"].append("lighthouse"),
        "p01e01: anchor 'lighthouse' is not in the episode text",
    ),
    (lambda p: p["episodes"][0]["anchors"].remove("day 0"), "p01e01: anchor list does not cover '0'"),
    (
        set_text(0, "Persona 1 went to the harbour with a kettle and met Odile, wrote item 1 for day 0 by the river."),
        "p01e01: anchor list does not cover 'Odile'",
    ),
    (lambda p: p["episodes"][0].__setitem__("siblings", []), "p01e01: declares no siblings"),
    (lambda p: p["episodes"][0].__setitem__("siblings", ["p01e01"]), "sibling 'p01e01' is not another episode"),
    (lambda p: p["episodes"][0].__setitem__("siblings", ["p01e02"]), "p01e01: sibling p01e02 is in thread 2, not 1"),
    (lambda p: p["episodes"][0].__setitem__("siblings", ["p01e03"]), "p01e01: sibling p01e03 has the same emotion"),
    (
        lambda p: (
            p["episodes"][6].__setitem__("anchors", ["rooftop"]) or p["episodes"][0].__setitem__("siblings", ["p01e07"])
        ),
        "p01e01: sibling p01e07 shares no anchor",
    ),
    (
        set_probe(0, "factual", "What did persona one carry to the harbour on that long slow day by water and wind?"),
        "p01e01-f: probe has 17 words, at most 16 allowed",
    ),
    (
        set_probe(0, "reflective_explicit", "The kettle at dusk, amber 101."),
        "p01e01-x: explicit probe names no feeling",
    ),
    (
        set_probe(0, "reflective_explicit", "I felt proud of the kettle by the harbour, amber 101."),
        "p01e01-x: explicit probe uses 2 anchors, at most 1: harbour, kettle",
    ),
    (lambda p: probe(p, 0, "reflective_implicit").pop("route"), "p01e01-i: implicit probe route must be one of"),
    (
        set_probe(0, "reflective_implicit", "It was all about the harbour, amber 101."),
        "p01e01-i: implicit probe uses anchors: harbour",
    ),
    (
        set_probe(0, "reflective_explicit", "I felt content, nothing more, amber 101."),
        "p01e01-x: reflective probe of a low-band episode leans on mood phrases: nothing more",
    ),
    (
        set_probe(2, "reflective_implicit", "It was all routine, amber cobalt 101."),
        "p01e03-i: reflective probe of a low-band episode leans on mood phrases: routine",
    ),
    (
        lambda p: [
            set_probe(i, "reflective_explicit", f"I felt proud, {c} 101.")(p) for i, c in ((1, "x1"), (3, "x3"))
        ],
        "p01: feeling word 'proud' is in 3 explicit probes, at most 2: p01e01-x, p01e02-x, p01e04-x",
    ),
]


@pytest.mark.parametrize("change, expected", CASES)
def test_each_v2_rule_names_the_place(change, expected):
    item = copy.deepcopy(persona_v2(1))
    change(item)
    found = messages(item)
    if expected is None:
        assert found == []
    else:
        assert any(expected in m for m in found), found


def test_a_phrase_in_more_than_three_reflective_probes_is_named():
    items = [persona_v2(1), persona_v2(2)]
    for index in range(4):
        probe(items[0], index, "reflective_implicit")["query"] = f"Salt on the windowsill, {index} amber."
    found = [str(v) for v in check_corpus_v2(items)]
    ids = "p01e01-i, p01e02-i, p01e03-i, p01e04-i"
    assert found == [
        f"corpus: phrase 'on the windowsill' is in 4 reflective probes, at most 3: {ids}",
        f"corpus: phrase 'salt on the' is in 4 reflective probes, at most 3: {ids}",
    ]


def test_v1_text_reused_in_v2_is_named():
    old, new = persona(1), persona_v2(1)
    assert [str(v) for v in reused_texts([new], [old])][:2] == [
        "p01e01: episode text is reused from v1.0",
        "p01e01-f: probe query is reused from v1.0",
    ]


def test_two_release_checkout_builds_and_validates_both(tmp_path):
    root = write_v2_checkout(tmp_path, [persona(1), persona(2)], [persona_v2(3), persona_v2(4)])
    assert run("build", "--root", root).exit_code == 0
    sums = (root / "data" / "SHA256SUMS").read_text().splitlines()
    assert [line.split()[1] for line in sums] == ["epirec_v1.json", "epirec_v2.json"]
    result = run("validate", "--root", root)
    assert result.exit_code == 0, result.output
    assert "EpiRec v1.0 personas: 2  episodes: 28  probes: 84" in result.output
    assert "EpiRec v2.0 personas: 2  episodes: 28  probes: 84" in result.output
    assert run("build", "--root", root, "--check").exit_code == 0


def test_v1_rules_stay_on_the_archive_and_v2_rules_on_the_sources(tmp_path):
    root = write_v2_checkout(tmp_path, [persona(1), persona(2)], [persona(3), persona_v2(4)])
    result = run("validate", "--root", root)
    assert result.exit_code == 1
    assert "data/personas/p03.json: p03e01: lists no anchors" in result.output
    assert "data/archive/v1/personas/p01.json" not in result.output
