import copy

import pytest
from corpus_factory import persona

from memrecall.corpus import rules
from memrecall.corpus.checks import check_corpus, check_persona

REFERENCE = rules.parse_timestamp(rules.REFERENCE_NOW)


def persona_messages(item, stem="p01"):
    return [str(v) for v in check_persona(item, stem, REFERENCE)]


def test_factory_persona_is_valid():
    assert persona_messages(persona(1)) == []
    assert check_corpus([persona(1), persona(2)], REFERENCE) == []


def mutated(change):
    item = copy.deepcopy(persona(1))
    change(item)
    return item


def episode(i):
    return lambda item: item["episodes"][i]


@pytest.mark.parametrize(
    "change, expected",
    [
        (lambda p: None, None),
        (lambda p: p["episodes"].pop(), "has 13 episodes, expected 14 to 18"),
        (lambda p: p["episodes"][1].__setitem__("session", 1), "session 1 spans more than one calendar day"),
        (lambda p: [e.__setitem__("session", min(e["session"], 9)) for e in p["episodes"]], "has 9 sessions"),
        (
            lambda p: p["episodes"][0].__setitem__("date_time", "2024-12-01T09:00:00+00:00"),
            "session span is 207.0 days",
        ),
        (lambda p: p["episodes"][5].__setitem__("date_time", "2025-03-23T09:00:00"), "p01e06: date_time"),
        (lambda p: p["episodes"][13].__setitem__("date_time", "2025-07-01T09:00:00+00:00"), "not before reference_now"),
        (lambda p: p["episodes"][2].__setitem__("text", "Too short to count."), "p01e03: text has 4 words"),
        (lambda p: p["episodes"][2].__setitem__("text", "One two three four five. " * 4), "text has 4 sentences"),
        (lambda p: p["episodes"][3].__setitem__("id", "p01e09"), "episode id should be p01e04"),
        (lambda p: p["episodes"][4]["probes"].pop(0), "has 0 factual probes"),
        (lambda p: p["episodes"][4]["probes"][1].__setitem__("id", "p01e05-q"), "probe id should be p01e05-x"),
        (
            lambda p: p["episodes"][6]["probes"][2].__setitem__("query", "Back on the rooftop again."),
            "p01e07-i: implicit probe shares content-word stems with its episode: rooftop",
        ),
        (
            lambda p: p["episodes"][6]["probes"][2].__setitem__("query", "That nervous dusk."),
            "p01e07-i: implicit probe uses emotion-vocabulary words: nervous",
        ),
        (lambda p: p["episodes"][1].__setitem__("valence", "neutral"), "high-intensity episode cannot have neutral"),
    ],
)
def test_each_persona_rule_has_a_failing_fixture(change, expected):
    messages = persona_messages(mutated(change))
    if expected is None:
        assert messages == []
    else:
        assert any(expected in m for m in messages), messages


def test_persona_id_must_match_file_name():
    assert any("does not match its file name p07.json" in m for m in persona_messages(persona(1), "p07"))


def test_corpus_rules_duplicates_band_mix_balance_and_age_coverage():
    a, b = persona(1), persona(2)
    b["episodes"][0]["text"] = a["episodes"][0]["text"]
    b["episodes"][0]["probes"][0]["query"] = a["episodes"][0]["probes"][0]["query"]
    b["episodes"][1]["id"] = a["episodes"][1]["id"]
    b["episodes"][1]["probes"][0]["id"] = a["episodes"][1]["probes"][0]["id"]
    messages = [str(v) for v in check_corpus([a, b], REFERENCE)]
    assert any("duplicate episode id (2x): 'p01e02'" in m for m in messages)
    assert any("duplicate probe id (2x): 'p01e02-f'" in m for m in messages)
    assert any("duplicate episode text" in m for m in messages)
    assert any("duplicate probe query" in m for m in messages)

    lows = copy.deepcopy(a)
    for e in lows["episodes"]:
        e["intensity_band"], e["valence"] = "low", "neutral"
    messages = [str(v) for v in check_corpus([lows], REFERENCE)]
    assert "corpus: low share is 100.0%, expected 35% to 55%" in messages
    assert "corpus: the short-term range holds no high-intensity episode" in messages

    tilted = copy.deepcopy(a)
    for e in tilted["episodes"]:
        if e["intensity_band"] == "high":
            e["valence"] = "positive"
    messages = [str(v) for v in check_corpus([tilted], REFERENCE)]
    assert "corpus: high episodes unbalanced: 6 positive vs 0 negative" in messages

    old = copy.deepcopy(a)
    for e in old["episodes"][12:]:
        e["date_time"] = "2025-06-10T09:00:00+00:00"
    messages = [str(v) for v in check_corpus([old], REFERENCE)]
    assert "corpus: the short-term range holds no episode that is not high" in messages
