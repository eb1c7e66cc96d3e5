"""REALTALK: evidence forms, session/turn gold, questions without gold, the real release's counts, bad files."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import shared_file
from json_edits import setter

from memrecall.benchmarks import get_benchmark
from memrecall.data.loaders.realtalk import load_realtalk
from memrecall.data.loaders.realtalk_evidence import read_ids, written_form
from memrecall.errors import DatasetError

MINI = Path(__file__).parent / "fixtures" / "realtalk_mini"
CHAT = "Chat_1_Ann_Bob.json"


@pytest.mark.parametrize(
    ("raw", "form", "ids", "unread"),
    [
        ("D12:3", "single", [(12, 3)], []),
        ("D5:3.", "trailing_period", [(5, 3)], []),
        ("D12:3-D12:5", "range", [(12, 3), (12, 4), (12, 5)], []),
        ("D5:12;D5:16", "list", [(5, 12), (5, 16)], []),
        ("D13:4. D14:4", "list", [(13, 4), (14, 4)], []),
        ("D13:45:D20:19", "joined", [(13, 45), (20, 19)], []),
        ("", "empty", [], [""]),
        ("D58", "malformed", [], ["D58"]),
        ("D 2:18", "malformed", [], ["D", "2:18"]),
        ("D17;39", "malformed", [], ["D17", "39"]),
        ("D12:5-D12:3", "malformed", [], ["D12:5-D12:3"]),
    ],
)
def test_each_written_form_reads_its_ids(raw, form, ids, unread):
    assert written_form(raw) == form
    assert read_ids(raw) == (ids, unread)


def test_session_level_names_the_session_of_a_missing_turn():
    loaded = load_realtalk(MINI, "session")
    targets = {q.id: q.targets for q in loaded.task.queries}
    assert targets["Chat_1_Ann_Bob:qa0"] == {"session_1"}
    assert targets["Chat_1_Ann_Bob:qa1"] == {"session_2"}
    assert targets["Chat_1_Ann_Bob:qa3"] == {"session_2", "session_3"}
    assert targets["Chat_1_Ann_Bob:qa4"] == {"session_1"}  # D1:3 is not in the file; D1 turns 1-4 are session_1
    assert loaded.facts()["questions_without_gold"]["queries"] == {
        "Chat_1_Ann_Bob:qa5": "evidence 'D9:1', 'D' names no session of the chat",
        "Chat_1_Ann_Bob:qa6": "evidence none names no session of the chat",
    }


def test_turn_level_counts_only_turns_in_the_file():
    loaded = load_realtalk(MINI, "turn")
    targets = {q.id: q.targets for q in loaded.task.queries}
    assert targets["Chat_1_Ann_Bob:qa1"] == {"D1:6", "D1:7"}
    assert targets["Chat_1_Ann_Bob:qa4"] == frozenset()
    facts = loaded.facts()
    assert facts["evidence_ids"] == {"turn": 6, "session_only": 1, "unresolved": 1}
    assert facts["evidence_forms"] == {"list": 1, "malformed": 1, "range": 1, "single": 3, "trailing_period": 1}
    assert sorted(facts["questions_without_gold"]["queries"]) == [
        "Chat_1_Ann_Bob:qa4",
        "Chat_1_Ann_Bob:qa5",
        "Chat_1_Ann_Bob:qa6",
    ]
    assert [u["why"] for u in facts["unresolved_evidence"]] == [
        "no such turn (its session is there)",
        "no such session",
        "names no id",
    ]


def test_turn_text_carries_speaker_and_image_caption_and_its_own_time():
    store = load_realtalk(MINI, "turn").task.stores["Chat_1_Ann_Bob"]
    photo = next(d for d in store if d.id == "D1:4")
    assert photo.text == "Ann: Here she is. [shared an image: a grey cat on a sofa]"
    assert photo.timestamp.isoformat() == "2024-02-01T20:02:00+00:00"
    assert photo.labels == {"session": "session_1"}


def test_run_scores_only_questions_with_gold_and_names_the_rest(tmp_path):
    loaded = get_benchmark("realtalk-turn").load(MINI)
    assert loaded.dataset["questions_without_gold"]["count"] == 3
    assert loaded.task.queries[0].strata == {"category": "1-fact"}
    assert sum(1 for q in loaded.task.queries if q.targets) == 4


def _mutations():
    """Each breaks one record of the mini chat: (name, change to the JSON, the record the error must name)."""

    return [
        ("qa not a list", setter("qa", value={}), "qa"),
        ("question not a string", setter("qa", 0, "question", value=7), "qa[0].question"),
        ("evidence not a list", setter("qa", 1, "evidence", value="D1:6"), "qa[1].evidence"),
        ("evidence holds a number", setter("qa", 2, "evidence", value=[3]), "qa[2].evidence"),
        ("category unknown", setter("qa", 3, "category", value=4), "qa[3].category"),
        ("category a string", setter("qa", 3, "category", value="1"), "qa[3].category"),
        ("turn without clean_text", setter("session_2", 0, "clean_text", value=None), "session_2[0]"),
        ("dia_id unreadable", setter("session_2", 1, "dia_id", value="turn7"), "session_2[1].dia_id"),
        ("dia_id repeated", setter("session_3", 1, "dia_id", value="D2:1"), "session_3[1].dia_id"),
        ("turn time unreadable", setter("session_3", 0, "date_time", value="10/02/2024"), "session_3[0].date_time"),
        ("session time missing", setter("session_1_date_time", value=None), "session_1_date_time"),
        ("session not a list", setter("session_2", value="hello"), "session_2"),
        ("session empty", setter("session_3", value=[]), "session_3"),
    ]


@pytest.mark.parametrize(("name", "change", "where"), _mutations(), ids=[m[0] for m in _mutations()])
def test_malformed_chat_names_file_and_record(tmp_path, name, change, where):
    folder = tmp_path / "realtalk"
    shutil.copytree(MINI, folder)
    data = json.loads((folder / CHAT).read_text())
    change(data)
    (folder / CHAT).write_text(json.dumps(data))
    with pytest.raises(DatasetError) as caught:
        load_realtalk(folder, "turn")
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith(f"{folder / CHAT}: {where}: ")


def test_a_folder_without_chats_is_refused(tmp_path):
    with pytest.raises(DatasetError, match="holds no Chat_<n>_\\*.json file"):
        load_realtalk(tmp_path)


@pytest.mark.realdata
def test_the_real_release_counts_and_first_and_last_records():
    folder = shared_file("realtalk")
    session, turn = load_realtalk(folder, "session"), load_realtalk(folder, "turn")
    assert len(session.task.stores) == 10
    assert sum(len(d) for d in session.task.stores.values()) == 219
    assert sum(len(d) for d in turn.task.stores.values()) == 8944
    assert len(session.task.queries) == len(turn.task.queries) == 728
    assert sum(1 for q in session.task.queries if q.targets) == 725
    assert sum(1 for q in turn.task.queries if q.targets) == 705
    facts = session.facts()
    assert facts["evidence_forms"] == {
        "empty": 3, "joined": 1, "list": 26, "malformed": 5, "range": 14, "single": 1688, "trailing_period": 5,
    }  # fmt: skip
    assert facts["evidence_ids"] == {"turn": 1696, "session_only": 127, "unresolved": 9}
    categories = [q.strata["category"] for q in session.task.queries]
    assert (categories.count("1-fact"), categories.count("2-date"), categories.count("3-inference")) == (301, 319, 108)
    first, last = session.task.queries[0], session.task.queries[-1]
    assert (first.id, first.text) == ("Chat_1_Emi_Elise:qa0", "What are Kate's hobbies?")
    assert first.targets == {"session_1", "session_4"}  # D3:69 is in session_4, which starts at D3:30
    assert (last.id, last.targets) == ("Chat_10_Fahim_Muhhamed:qa84", {"session_17", "session_20"})
    assert last.text == "What role does art play in Fahim and Muhammad's hobbies and interests?"
    first_turn = turn.task.stores["Chat_1_Emi_Elise"][0]
    assert (first_turn.id, first_turn.text) == ("D1:1", "Emi: Hey! How are you?")
    assert session.task.source_sha256 == "e5086f8375e29acb19bd93c2192605b90fcf14b20a65025eee13ae4b42703d1f"
