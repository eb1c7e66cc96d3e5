"""BEAM: messages and turn pairs, gold per ability, abstention apart, the stale-above-updated count, bad files."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import shared_file
from json_edits import setter

from memrecall.benchmarks import get_benchmark
from memrecall.data.loaders.beam import load_beam, stale_above_updated
from memrecall.data.model import Ranking
from memrecall.errors import DatasetError

MINI = Path(__file__).parent / "fixtures" / "beam_mini"


def test_gold_of_each_source_chat_ids_shape():
    task, facts = load_beam(MINI, "message")
    targets = {q.id.split(":")[1]: q.targets for q in task.queries}
    assert targets["contradiction_resolution"] == {"2", "8"}
    assert targets["event_ordering"] == {"0", "6", "8"}  # a nested list is flattened
    assert targets["knowledge_update"] == {"6"}  # the updated message only
    assert targets["temporal_reasoning"] == {"0", "6"}
    assert targets["abstention"] == frozenset()
    assert facts["knowledge_update_stale"] == {"1:knowledge_update:0": ["0"]}
    assert facts["questions_without_gold"] == {
        "count": 1,
        "of": 10,
        "queries": {
            "1:preference_following:0": "preference_following[0].source_chat_ids names no id: "
            "no message of the conversation"
        },
    }


def test_pairs_join_each_user_message_to_the_reply_after_it():
    task, _ = load_beam(MINI, "pair")
    store = task.stores["1"]
    assert [d.id for d in store] == ["0-1", "2-3", "4-5", "6-7", "8-9"]
    assert store[1].text == "user: I have never written a Flask route before.\nassistant: Routes map URLs to functions."
    assert store[3].timestamp.isoformat() == "2024-04-02T00:00:00+00:00"
    assert {q.id: q.targets for q in task.queries}["1:contradiction_resolution:0"] == {"2-3", "8-9"}


def test_abstention_is_counted_apart_not_scored():
    benchmark = get_benchmark("beam")
    loaded = benchmark.load(MINI)
    ranking = {q.id: Ranking(q.id, ("0",), (1.0,)) for q in loaded.task.queries if q.targets}
    from memrecall.scoring.policy import score_task

    results = score_task(loaded.task, ranking, benchmark.scoring())
    assert results["without_targets_by_ability"] == {"abstention": 1, "preference_following": 1}
    assert results["overall"]["n"] == 8


@pytest.mark.parametrize(
    ("order", "expected"),
    [
        (("0", "6"), {"stale_first": 1, "updated_first": 0, "neither_ranked": 0}),
        (("6", "0"), {"stale_first": 0, "updated_first": 1, "neither_ranked": 0}),
        (("0",), {"stale_first": 1, "updated_first": 0, "neither_ranked": 0}),
        (("2",), {"stale_first": 0, "updated_first": 0, "neither_ranked": 1}),
    ],
)
def test_stale_above_updated_counts_which_message_ranks_first(order, expected):
    task, facts = load_beam(MINI, "message")
    rankings = {"1:knowledge_update:0": Ranking("1:knowledge_update:0", order, tuple(range(len(order), 0, -1)))}
    counts = stale_above_updated(task, rankings, facts["knowledge_update_stale"])
    assert counts == {"questions": 1, **expected, "stale_first_share": float(expected["stale_first"])}


def test_the_repositorys_nested_questions_folder_is_read_too(tmp_path):
    tier = tmp_path / "beam"
    shutil.copytree(MINI, tier)
    (tier / "1" / "probing_questions").mkdir()
    (tier / "1" / "probing_questions.json").rename(tier / "1" / "probing_questions" / "probing_questions.json")
    assert [q.id for q in load_beam(tier)[0].queries] == [q.id for q in load_beam(MINI)[0].queries]


def _mutations():
    def chat(change):
        return "chat.json", change

    def questions(change):
        return "probing_questions.json", change

    return [
        ("chat not a list", chat(lambda d: {"turns": []}), "$"),
        ("turns missing", chat(setter(0, "turns", value=None)), "[0].turns"),
        ("turn not a list", chat(setter(0, "turns", 1, value={"role": "user"})), "[0].turns[1]"),
        ("id not an integer", chat(setter(0, "turns", 0, 1, "id", value="1")), "[0].turns[0][1].id"),
        ("id repeats", chat(setter(1, "turns", 1, 0, "id", value=2)), "[1].turns[1][0].id"),
        ("role unknown", chat(setter(1, "turns", 0, 1, "role", value="system")), "[1].turns[0][1]"),
        (
            "anchor unreadable",
            chat(setter(1, "turns", 0, 0, "time_anchor", value="2 April 2024")),
            "[1].turns[0][0].time_anchor",
        ),
        ("questions not an object", questions(lambda d: [d]), None),
        ("ability unknown", questions(setter("memory_recall", value=[])), "memory_recall"),
        ("ability not a list", questions(setter("summarization", value={})), "summarization"),
        (
            "question missing",
            questions(setter("information_extraction", 0, "question", value="")),
            "information_extraction[0]",
        ),
        (
            "ids not integers",
            questions(setter("information_extraction", 0, "source_chat_ids", value=["4"])),
            "information_extraction[0].source_chat_ids",
        ),
        (
            "update without updated_info",
            questions(setter("knowledge_update", 0, "source_chat_ids", value={"original_info": [0]})),
            "knowledge_update[0].source_chat_ids",
        ),
        (
            "stale ids not integers",
            questions(setter("knowledge_update", 0, "source_chat_ids", "original_info", value="0")),
            "knowledge_update[0].source_chat_ids.original_info",
        ),
    ]


@pytest.mark.parametrize(("name", "mutation", "where"), _mutations(), ids=[m[0] for m in _mutations()])
def test_malformed_conversation_names_file_and_record(tmp_path, name, mutation, where):
    (file_name, change), tier = mutation, tmp_path / "beam"
    shutil.copytree(MINI, tier)
    path = tier / "1" / file_name
    data = json.loads(path.read_text())
    changed = change(data)
    path.write_text(json.dumps(data if changed is None else changed))
    with pytest.raises(DatasetError) as caught:
        load_beam(tier)
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith(f"{path}: {where or '$'}: ")


@pytest.mark.realdata
def test_the_real_128k_tier_counts_and_first_and_last_records():
    tier = shared_file("beam_128k")
    task, facts = load_beam(tier, "message")
    pairs, _ = load_beam(tier, "pair")
    assert len(task.stores) == 20
    assert sum(len(d) for d in task.stores.values()) == facts["messages"] == 5732
    assert sum(len(d) for d in pairs.stores.values()) == 2866
    assert len(task.queries) == 400
    abilities = [q.strata["ability"] for q in task.queries]
    assert all(abilities.count(a) == 40 for a in set(abilities)) and len(set(abilities)) == 10
    assert sum(1 for q in task.queries if q.targets) == 354  # 400 - 40 abstention - 6 without gold
    assert facts["questions_without_gold"]["count"] == 6
    assert len(facts["knowledge_update_stale"]) == 40
    first, last = task.queries[0], task.queries[-1]
    assert first.id == "1:abstention:0"
    assert first.text == "How did the user feedback influence the UI/UX improvements I made before the public launch?"
    assert (last.id, last.store_id) == ("20:temporal_reasoning:1", "20")
    assert task.stores["1"][0].text.startswith("user: I'm working on a project with a Time Anchor of March 15, 2024")
    assert task.stores["1"][0].timestamp.isoformat() == "2024-03-15T00:00:00+00:00"
