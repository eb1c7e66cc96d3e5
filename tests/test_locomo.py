import json
from collections import Counter

import pytest
from conftest import FIXTURES, LOCOMO_MISSING, SHARED_DATA, run

from memrecall.data.loaders.locomo import load_locomo, parse_locomo_date, resolve_evidence
from memrecall.errors import DatasetError
from memrecall.reports.content import verify

MINI = FIXTURES / "locomo_mini.json"
REAL = SHARED_DATA / "locomo10.json"


def test_parse_locomo_date():
    assert parse_locomo_date("1:56 pm on 8 May, 2023").isoformat() == "2023-05-08T13:56:00+00:00"
    assert parse_locomo_date("12:06 am on 11 November, 2022").isoformat() == "2022-11-11T00:06:00+00:00"
    assert parse_locomo_date("8 May 2023") is None


@pytest.mark.parametrize(
    "raw, expected",
    [
        ("D1:3", [("D1:3", "ok")]),
        ("D2:1; D2:3", [("D2:1", "split"), ("D2:3", "split")]),
        ("D:2:1", [("D2:1", "repaired")]),
        ("D3:01", [("D3:1", "repaired")]),
        ("D", [(None, "malformed")]),
        ("D1:9", [("D1:9", "missing")]),
    ],
)
def test_every_odd_evidence_id_has_an_explicit_outcome(raw, expected):
    known = {"D1:3", "D2:1", "D2:3", "D3:1"}
    assert resolve_evidence(raw, known) == expected


def test_session_granularity_targets_sessions_holding_evidence():
    loaded = load_locomo(MINI, "session")
    task = loaded.task
    assert [d.id for d in task.stores["conv-b"]] == ["session_1", "session_2", "session_3"]
    by_id = {q.id: q for q in task.queries}
    assert by_id["conv-a:qa2"].targets == frozenset({"session_2"})
    assert by_id["conv-b:qa0"].targets == frozenset({"session_3"})
    assert by_id["conv-a:qa4"].strata == {
        "category": "5-adversarial",
        "in_headline": "no",
        "left_out_because": "5-adversarial",
    }
    assert "[shared an image: a photo of a blue ceramic mug on a table]" in task.stores["conv-a"][0].text


def test_turn_granularity_and_issue_counts():
    loaded = load_locomo(MINI, "turn")
    by_id = {q.id: q for q in loaded.task.queries}
    assert by_id["conv-a:qa2"].targets == frozenset({"D2:1", "D2:3"})
    assert by_id["conv-a:qa3"].targets == frozenset({"D2:1"})
    assert by_id["conv-a:qa5"].targets == frozenset()
    assert loaded.issue_counts() == {
        "malformed": 1,
        "missing": 1,
        "questions_without_evidence": 3,
        "repaired": 2,
        "split": 2,
    }
    assert {
        "query_id": "conv-a:qa6",
        "raw": "D1:9",
        "outcome": "missing",
        "resolved_to": "D1:9",
    } in loaded.evidence_issues


def test_broken_structure_names_sample_and_field(tmp_path):
    data = json.loads(MINI.read_text())
    data[1]["conversation"]["session_2_date_time"] = "sometime"
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    with pytest.raises(DatasetError, match="conv-b: session_2_date_time: cannot parse 'sometime'"):
        load_locomo(path)


def test_harness_on_fixture_counts_and_reports_issues(tmp_path, embedding_cache):
    result = run(
        "locomo", "--data", MINI, "--modes", "fts5", "--granularity", "turn", "--output", tmp_path / "r.json", "--quiet"
    )
    assert result.exit_code == 0, result.output
    report = json.loads((tmp_path / "r.json").read_text())
    assert verify(report)
    results = report["content"]["systems"]["fts5"]["results"]
    assert results["n_without_targets"] == 3
    assert results["left_out_of_headline"] == {"5-adversarial": 1}
    assert results["overall"]["n"] == 7
    assert results["apart_by_category"]["5-adversarial"]["n"] == 1
    assert report["content"]["dataset"]["evidence_issue_counts"]["split"] == 2


@pytest.mark.skipif(not REAL.exists(), reason=LOCOMO_MISSING)
def test_real_release_counts_are_pinned():
    session = load_locomo(REAL, "session")
    turn = load_locomo(REAL, "turn")
    assert len(session.task.stores) == 10
    assert sum(len(s) for s in session.task.stores.values()) == 272
    assert sum(len(s) for s in turn.task.stores.values()) == 5882
    assert len(turn.task.queries) == 1986
    assert Counter(q.strata["category"] for q in turn.task.queries) == {
        "1-multi-hop": 282,
        "2-temporal": 321,
        "3-open-domain": 96,
        "4-single-hop": 841,
        "5-adversarial": 446,
    }
    assert turn.issue_counts() == {
        "malformed": 1,
        "missing": 2,
        "questions_without_evidence": 4,
        "repaired": 2,
        "split": 13,
    }
    first, last = turn.task.queries[0], turn.task.queries[-1]
    assert (first.id, first.text, first.targets) == (
        "conv-26:qa0",
        "When did Caroline go to the LGBTQ support group?",
        frozenset({"D1:3"}),
    )
    assert last.id.startswith("conv-50:")
    assert turn.task.stores["conv-26"][0].id == "D1:1"


def test_exported_turn_rankings_replay_through_evaluate(tmp_path):
    result = run(
        "locomo",
        "--data",
        MINI,
        "--modes",
        "fts5",
        "--granularity",
        "turn",
        "--quiet",
        "--output",
        tmp_path / "r.json",
        "--export-rankings",
        tmp_path / "rk.jsonl",
    )
    assert result.exit_code == 0, result.output
    first = json.loads((tmp_path / "rk.jsonl").read_text().splitlines()[0])
    assert first["store_id"] == "conv-a" and first["query_id"] == "conv-a:qa0" and len(first["ranked_ids"]) == 6
    replay = run(
        "evaluate", tmp_path / "rk.jsonl", "--dataset", "locomo-turn", "--data", MINI, "--output", tmp_path / "e.json"
    )
    assert replay.exit_code == 0, replay.output
    replayed = json.loads((tmp_path / "e.json").read_text())["content"]["systems"]["rk"]["results"]
    original = json.loads((tmp_path / "r.json").read_text())["content"]["systems"]["fts5"]["results"]
    assert replayed == original  # one scoring policy per benchmark: the same metrics, groups and numbers
    assert replayed["apart_by_category"]["5-adversarial"]["n"] == 1
