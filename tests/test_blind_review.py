"""The blind ranking review's halves, packets, answers and reader recall (docs/epirec_v3_plan.md section 5)."""

import json
import random
from hashlib import sha256
from pathlib import Path

import pytest

from memrecall.corpus import blind_review
from memrecall.corpus.blind_review import ReviewError, answer_rows, csv_text, halves, merged, packet, reader_recall

ROOT = Path(__file__).resolve().parents[1]


def persona() -> dict:
    return json.loads((ROOT / "data" / "personas" / "p01.json").read_text(encoding="utf-8"))


def test_the_halves_are_the_plans_seeded_shuffle_cut_at_21():
    p = persona()
    ids = sorted(q["id"] for e in p["episodes"] for q in e["probes"])
    random.Random(int(sha256(b"p01").hexdigest(), 16)).shuffle(ids)
    first, second = halves(p)
    assert (first, second) == (ids[:21], ids[21:])
    assert len(set(first) | set(second)) == 42


def test_a_packet_hides_types_and_answers_and_its_key_undoes_it():
    p = persona()
    first, _ = halves(p)
    text, key = packet(p, first, "p01-h1")
    assert sorted(key["probes"].values()) == sorted(first)
    assert sorted(key["letters"].values()) == [e["id"] for e in p["episodes"]]
    for hidden in ("p01e", "reflective", "factual", "route", "intensity", "valence", "sibling"):
        assert hidden not in text
    queries = {q["id"]: q["query"] for e in p["episodes"] for q in e["probes"]}
    for blind_id, probe_id in key["probes"].items():
        assert f"{blind_id}: {queries[probe_id]}" in text
    assert packet(p, first, "p01-h1") == (text, key)
    assert packet(p, first, "p01-h2")[1]["letters"] != key["letters"]


def answers_for(key: dict, right: bool = True) -> dict:
    """Every prompt answered: the target first (or last, when not `right`)."""
    back = {eid: letter for letter, eid in key["letters"].items()}
    others = [letter for letter in key["letters"]]
    out = {}
    for blind_id, probe_id in key["probes"].items():
        target = back[probe_id.split("-")[0]]
        rest = [letter for letter in others if letter != target][:2]
        out[blind_id] = {"top3": [target, *rest] if right else [*rest, target], "verdict": "sure", "note": ""}
    return out


def test_answers_become_rows_and_reader_recall_counts_them():
    p = persona()
    first, second = halves(p)
    _, key1 = packet(p, first, "p01-h1")
    _, key2 = packet(p, second, "p01-h2")
    rows = answer_rows(key1, answers_for(key1), "r1", 1, "a.json") + answer_rows(
        key2, answers_for(key2, right=False), "r2", 1, "b.json"
    )
    recall = reader_recall(rows, final=False)
    assert sum(v["probes"] for v in recall.values()) == 42
    right = {suffix: sum(pid.endswith(f"-{suffix}") for pid in first) for suffix in "fxi"}
    for suffix, name in blind_review.TYPES.items():
        assert recall[name]["recall_at_3"] == 1.0
        assert recall[name]["recall_at_1"] == pytest.approx(right[suffix] / 14)
        assert recall[name]["failures"] == 14 - right[suffix]
    assert csv_text(rows) == csv_text(list(reversed(rows)))
    assert csv_text(rows).splitlines()[0] == ",".join(blind_review.COLUMNS)


def test_a_later_round_replaces_a_probes_reading_only_in_the_final_figures():
    p = persona()
    first, _ = halves(p)
    _, key = packet(p, first, "p01-h1")
    wrong = answer_rows(key, answers_for(key, right=False), "r1", 1, "a.json")
    again = answer_rows(key, answers_for(key), "r3", 2, "c.json")
    rows = merged(wrong, again, "review.csv")
    assert all(v["recall_at_1"] == 0.0 for v in reader_recall(rows, final=False).values())
    assert all(v["recall_at_1"] == 1.0 for v in reader_recall(rows, final=True).values())
    with pytest.raises(ReviewError, match=r"already recorded: p01e"):
        merged(rows, again, "review.csv")


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda a: a.pop("q01"), "prompts missing ['q01']"),
        (lambda a: a.update(q99=a["q01"]), "unknown ['q99']"),
        (lambda a: a["q02"].update(top3=["A", "A", "B"]), "q02: top3 must be 3 different entry letters"),
        (lambda a: a["q02"].update(top3=["A", "B"]), "q02: top3 must be 3 different entry letters"),
        (lambda a: a["q02"].update(top3=["A", "B", "Z"]), "q02: top3 must be 3 different entry letters"),
        (lambda a: a["q03"].update(verdict="maybe"), "q03: verdict must be one of sure, unsure, ambiguous"),
    ],
)
def test_an_unusable_answer_is_named_and_nothing_is_written(tmp_path, change, message, capsys):
    p = persona()
    first, _ = halves(p)
    _, key = packet(p, first, "p01-h1")
    answers = answers_for(key)
    change(answers)
    (tmp_path / "key.json").write_text(json.dumps(key), encoding="utf-8")
    (tmp_path / "a.json").write_text("```json\n" + json.dumps(answers) + "\n```\n", encoding="utf-8")
    out = tmp_path / "review.csv"
    argv = ["record", str(tmp_path / "key.json"), str(tmp_path / "a.json"), "--reader", "r1", "--csv", str(out)]
    assert blind_review.main(argv) == 1
    assert message in capsys.readouterr().err
    assert not out.exists()
