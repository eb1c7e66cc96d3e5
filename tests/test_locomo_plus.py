"""Locomo-Plus: deterministic stitching, the cue as gold exactly once, time gaps, the all-cues layout, bad items."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest
from conftest import shared_file

from memrecall.data.loaders.locomo_plus import gap_bucket, gap_days, load_locomo_plus
from memrecall.errors import DatasetError

FIXTURES = Path(__file__).parent / "fixtures"
PLUS, LOCOMO = FIXTURES / "locomo_plus_mini.json", FIXTURES / "locomo_mini.json"


@pytest.mark.parametrize(
    ("text", "days"),
    [
        ("two weeks later", 14),
        ("about three months later", 90),
        ("one year later", 365),
        ("a year after", 365),
        ("6 weeks later", 42),
        ("two months after the challenge ended", 60),
        ("several months later", 90),
        ("a few weeks later", 21),
        ("a couple of months later", 60),
        ("later that day", None),
    ],
)
def test_time_gaps_read_as_the_authors_count_days(text, days):
    assert gap_days(text) == days


def test_gap_buckets_bound_each_stratum():
    assert [gap_bucket(d) for d in (7, 30, 31, 90, 180, 181)] == [
        "00-30 days", "00-30 days", "31-90 days", "31-90 days", "91-180 days", "181+ days",
    ]  # fmt: skip


def _cue_count(task, query) -> int:
    """How many documents of the query's store hold the text of its gold cue's first line."""
    gold = [d for d in task.stores[query.store_id] if d.id in query.targets]
    first_line = gold[0].text.split("\n")[0]
    return sum(first_line in d.text for d in task.stores[query.store_id])


@pytest.mark.parametrize("granularity", ["session", "turn"])
def test_each_store_is_a_conversation_plus_its_cue_once(granularity):
    task, facts = load_locomo_plus(PLUS, LOCOMO, granularity, "one")
    assert list(task.stores) == ["plus0", "plus1", "plus2"]
    assert [len(q.targets) for q in task.queries] == ([1, 1, 1] if granularity == "session" else [2, 1, 2])
    assert all(_cue_count(task, q) == 1 for q in task.queries)
    assert facts["gap_days_read"] == {"14": 1, "90": 2}


def test_cue_time_query_time_and_speakers_follow_the_conversation():
    task, _ = load_locomo_plus(PLUS, LOCOMO, "session", "one")
    query = task.queries[0]
    store = task.stores[query.store_id]
    cue = next(d for d in store if d.id in query.targets)
    last_locomo = max(d.timestamp for d in store if d.id not in query.targets)
    assert query.time == last_locomo + timedelta(days=7)
    assert cue.timestamp == query.time - timedelta(days=14)
    speakers = {line.split(":")[0] for d in store if d.id not in query.targets for line in d.text.split("\n")}
    assert cue.text.split(":")[0] in speakers
    assert query.text.split(":")[0] in speakers
    assert [d.id for d in store] == [f"session_{n}" for n in range(1, len(store) + 1)]  # no id singles the cue out
    assert [d.timestamp for d in store] == sorted(d.timestamp for d in store)


def test_all_cues_layout_puts_every_cue_of_a_conversation_in_one_store():
    task, facts = load_locomo_plus(PLUS, LOCOMO, "session", "all")
    one, _ = load_locomo_plus(PLUS, LOCOMO, "session", "one")
    assert list(task.stores) == ["conversation0", "conversation1"]  # the mini LoCoMo file holds two
    assert [q.id for q in task.queries if q.store_id == "conversation0"] == ["plus0", "plus2"]  # i mod 2
    assert len(task.stores["conversation0"]) == len(one.stores["plus0"]) + 1
    assert len({next(iter(q.targets)) for q in task.queries if q.store_id == "conversation0"}) == 2
    assert task.version == "session+all-cues"
    assert facts["shared_cues"] == []


def test_a_cue_repeated_word_for_word_in_one_store_is_gold_for_both(tmp_path):
    items = json.loads(PLUS.read_text())
    items[2]["cue_dialogue"] = items[0]["cue_dialogue"]
    path = tmp_path / "plus.json"
    path.write_text(json.dumps(items))
    task, facts = load_locomo_plus(path, LOCOMO, "session", "all")
    assert facts["shared_cues"] == [[0, 2]]
    targets = {q.id: q.targets for q in task.queries}
    assert targets["plus0"] == targets["plus2"]
    assert len(targets["plus0"]) == 2


@pytest.mark.parametrize(
    ("field", "value", "where"),
    [
        ("relation_type", "fear", "[1].relation_type"),
        ("relation_type", None, "[1].relation_type"),
        ("time_gap", "later that day", "[1].time_gap"),
        ("time_gap", 14, "[1].time_gap"),
        ("cue_dialogue", "", "[1].cue_dialogue"),
        ("cue_dialogue", "C: who is this?", "[1].cue_dialogue"),
        ("trigger_query", ["A: hi"], "[1].trigger_query"),
        ("trigger_query", "hello there", "[1].trigger_query"),
    ],
)
def test_malformed_item_names_file_and_item(tmp_path, field, value, where):
    items = json.loads(PLUS.read_text())
    items[1][field] = value
    path = tmp_path / "plus.json"
    path.write_text(json.dumps(items))
    with pytest.raises(DatasetError) as caught:
        load_locomo_plus(path, LOCOMO)
    assert "\n" not in str(caught.value)
    assert str(caught.value).startswith(f"{path}: {where}: ")


def test_without_a_locomo_file_nearby_the_error_says_where_it_looked(tmp_path):
    path = tmp_path / "plus.json"
    path.write_text(PLUS.read_text())
    with pytest.raises(DatasetError, match="needs LoCoMo's locomo10.json beside it or one folder up"):
        load_locomo_plus(path)


@pytest.mark.realdata
@pytest.mark.parametrize("granularity", ["session", "turn"])
def test_the_real_release_gold_cue_is_in_each_store_exactly_once(granularity):
    plus, locomo = shared_file("locomo_plus", "locomo_plus.json"), shared_file("locomo10.json")
    task, facts = load_locomo_plus(plus, locomo, granularity, "one")
    assert len(task.queries) == len(task.stores) == 401
    assert all(_cue_count(task, q) == 1 for q in task.queries)
    relations = [q.strata["relation_type"] for q in task.queries]
    assert {r: relations.count(r) for r in sorted(set(relations))} == {
        "causal": 101,
        "goal": 100,
        "state": 100,
        "value": 100,
    }
    first, last = task.queries[0], task.queries[-1]
    assert (first.store_id, first.text) == (
        "plus0",
        "Caroline: I ended up volunteering for that project, and now I'm totally overwhelmed.",
    )
    assert last.id == "plus400" and last.strata == {"relation_type": "value", "time_gap": "31-90 days"}
    assert facts["conversation_of_item"] == "item i -> conversation i mod 10 of the LoCoMo file, in file order"


@pytest.mark.realdata
def test_the_real_all_cues_layout_names_the_two_shared_cues():
    plus, locomo = shared_file("locomo_plus", "locomo_plus.json"), shared_file("locomo10.json")
    task, facts = load_locomo_plus(plus, locomo, "session", "all")
    assert len(task.stores) == 10 and len(task.queries) == 401
    assert facts["shared_cues"] == [[124, 134], [352, 362]]
    assert sorted(len(q.targets) for q in task.queries)[-4:] == [2, 2, 2, 2]
