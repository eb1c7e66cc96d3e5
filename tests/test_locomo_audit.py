"""LoCoMo --gold audited: corrected evidence replaces the release's where the audit differs; official is unchanged."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import run, shared_file

from memrecall.benchmarks import get_benchmark
from memrecall.data.loaders.locomo import load_locomo
from memrecall.data.loaders.locomo_audit import audited
from memrecall.errors import DatasetError

LOCOMO = Path(__file__).parent / "fixtures" / "locomo_mini.json"


def _record(conversation: int, number: int, cited: list, correct: list, question: str) -> dict:
    return {
        "question_id": f"locomo_{conversation}_qa{number}",
        "question": question,
        "golden_answer": "",
        "category": 4,
        "error_type": "WRONG_CITATION",
        "cited_evidence": cited,
        "correct_evidence": correct,
        "reasoning": "hand-made",
        "correct_answer": "",
    }


RECORDS = [
    _record(0, 0, ["D1:3"], ["D1:2"], "Which studio did Ines book the pottery course at?"),
    _record(0, 1, ["D1:3"], ["D1:3"], "What colour was the mug Ines made?"),
    _record(1, 1, ["D2:1"], ["D1:1", "D2:2"], "When did Lena pass her driving test?"),
    _record(1, 2, ["D1:1"], [], "How often does Ravi run?"),
]


@pytest.fixture
def audit(tmp_path) -> Path:
    path = tmp_path / "errors.json"
    path.write_text(json.dumps(RECORDS))
    return path


def test_audited_gold_replaces_only_the_corrected_evidence(audit):
    loaded, facts = audited(load_locomo(LOCOMO, "turn"), LOCOMO, audit)
    targets = {q.id: q.targets for q in loaded.task.queries}
    assert targets["conv-a:qa0"] == {"D1:2"}
    assert targets["conv-a:qa1"] == {"D1:3"}
    assert targets["conv-b:qa1"] == {"D1:1", "D2:2"}
    assert targets["conv-b:qa2"] == frozenset()  # the audit finds no evidence: out of the denominator
    assert targets["conv-a:qa2"] == {"D2:1", "D2:3"}  # not audited: as released
    assert loaded.task.version == "turn+audited"
    assert {k: facts[k] for k in ("records", "evidence_changed", "evidence_kept", "targets_changed")} == {
        "records": 4, "evidence_changed": 3, "evidence_kept": 1, "targets_changed": 3,
    }  # fmt: skip
    assert facts["left_without_evidence"] == ["conv-b:qa2"]
    assert facts["official"] is False  # a hand-made audit file is not the released one


def test_at_session_level_a_correction_within_one_session_changes_no_target(audit):
    _, facts = audited(load_locomo(LOCOMO, "session"), LOCOMO, audit)
    assert facts["evidence_changed"] == 3
    assert facts["targets_changed"] == 2  # conv-a:qa0 moves from D1:3 to D1:2, both in session_1


def test_official_gold_leaves_the_dataset_facts_as_they_were(audit):
    benchmark = get_benchmark("locomo")
    default, official = benchmark.load(LOCOMO), benchmark.load(LOCOMO, gold="official")
    assert default.dataset == official.dataset and "gold" not in default.dataset
    chosen = benchmark.load(LOCOMO, gold="audited", gold_file=audit)
    assert chosen.dataset["gold"]["name"] == "audited"
    assert chosen.task.version == "session+audited"


@pytest.mark.parametrize(
    ("change", "where"),
    [
        ({"question_id": "locomo_0_q1"}, "[0].question_id"),
        ({"question_id": "locomo_7_qa0"}, "[0].question_id"),
        ({"question": "Which studio?"}, "locomo_0_qa0.question"),
        ({"cited_evidence": ["D1:1"]}, "locomo_0_qa0.cited_evidence"),
        ({"cited_evidence": "D1:3"}, "locomo_0_qa0.cited_evidence"),
        ({"correct_evidence": [2]}, "locomo_0_qa0.correct_evidence"),
    ],
)
def test_a_record_that_is_not_the_release_names_file_and_record(tmp_path, change, where):
    path = tmp_path / "errors.json"
    path.write_text(json.dumps([RECORDS[0] | change, *RECORDS[1:]]))
    with pytest.raises(DatasetError) as caught:
        audited(load_locomo(LOCOMO, "turn"), LOCOMO, path)
    assert str(caught.value).startswith(f"{path}: {where}: ")
    assert "\n" not in str(caught.value)


def test_gold_is_refused_for_other_benchmarks():
    result = run("run", "realtalk", "--system", "fts5", "--gold", "audited")
    assert result.exit_code == 2
    assert "only for the locomo benchmarks, not realtalk" in result.output


@pytest.mark.realdata
def test_the_real_audit_changes_the_counted_questions():
    data = shared_file("locomo10.json")
    shared_file("locomo_audit", "errors.json")
    facts = {g: audited(load_locomo(data, g), data)[1] for g in ("session", "turn")}
    assert facts["session"]["records"] == 156
    assert (facts["session"]["evidence_changed"], facts["session"]["evidence_kept"]) == (96, 60)
    assert (facts["session"]["targets_changed"], facts["turn"]["targets_changed"]) == (29, 93)
    assert facts["turn"]["left_without_evidence"] == ["conv-47:qa11"]
    assert facts["turn"]["official"] == {"file": "errors.json", "variant": "dial481/locomo-audit at 9493fb4"}
