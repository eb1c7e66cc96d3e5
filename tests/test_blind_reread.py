"""Re-reads after a rewrite: the failed probes, as many seeded decoys from the accepted ones, a later round only."""

import json
from pathlib import Path

import pytest
from test_blind_review import answers_for, persona

from memrecall.corpus import blind_reread
from memrecall.corpus.blind_review import ReviewError, answer_rows, csv_text, halves, packet


def first_round(wrong: int) -> list[dict[str, str]]:
    """Round 1 of p01: half one read right except its first `wrong` prompts, half two all right."""
    p = persona()
    rows = []
    for number, half in enumerate(halves(p), start=1):
        _, key = packet(p, half, f"p01-h{number}")
        answers = answers_for(key)
        for blind_id in sorted(answers)[: wrong if number == 1 else 0]:
            answers[blind_id]["top3"] = answers[blind_id]["top3"][1:] + answers[blind_id]["top3"][:1]
        rows += answer_rows(key, answers, f"r{number}", 1, "a.json")
    return rows


@pytest.mark.parametrize("wrong", [1, 3, 21])
def test_the_failed_probes_come_back_among_as_many_accepted_decoys(wrong):
    rows = first_round(wrong)
    failed = sorted(r["probe_id"] for r in rows if r["rank1"] != r["probe_id"].split("-")[0])
    again, decoys = blind_reread.reread_ids(persona(), rows, 2)
    assert again == failed and len(again) == wrong
    assert len(decoys) == wrong and not set(decoys) & set(again)
    assert blind_reread.reread_ids(persona(), rows, 2) == (again, decoys)  # seeded: the same draw every time
    assert blind_reread.reread_ids(persona(), rows, 3)[1] != decoys or wrong == 21


def test_an_ambiguous_verdict_is_read_again_and_a_clean_persona_writes_nothing(tmp_path: Path):
    rows = first_round(0)
    source = tmp_path / "p01.json"
    source.write_text(json.dumps(persona()), encoding="utf-8")
    assert blind_reread.write_rereads(tmp_path / "out", [source], rows, 2) == 0
    rows[5]["verdict"] = "ambiguous"
    assert blind_reread.write_rereads(tmp_path / "out", [source], rows, 2) == 1
    key = json.loads((tmp_path / "out" / "p01-r2.key.json").read_text(encoding="utf-8"))
    assert sorted(key["probes"].values()) == sorted([rows[5]["probe_id"], *key["decoys"]])
    assert rows[5]["probe_id"] not in (tmp_path / "out" / "p01-r2.md").read_text(encoding="utf-8")


def test_a_round_already_recorded_or_round_one_is_refused(tmp_path: Path, capsys):
    rows = first_round(2)
    with pytest.raises(ReviewError, match="p01: round 1 is already recorded"):
        blind_reread.reread_ids(persona(), rows, 1)
    review = tmp_path / "review.csv"
    review.write_text(csv_text(rows), encoding="utf-8")
    source = tmp_path / "p01.json"
    source.write_text(json.dumps(persona()), encoding="utf-8")
    args = [str(tmp_path / "out"), str(source), "--csv", str(review)]
    assert blind_reread.main([*args, "--round", "1"]) == 1
    assert "--round must be 2 or more" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()
    assert blind_reread.main([*args, "--round", "2"]) == 0
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["p01-r2.key.json", "p01-r2.md"]
