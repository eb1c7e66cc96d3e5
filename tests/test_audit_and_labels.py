import csv
import io

import pytest
from corpus_factory import persona

from memrecall.corpus.audit import audit_personas, jaccard
from memrecall.corpus.labels import (
    LabelsError,
    Rating,
    agreement,
    cohen_kappa,
    read_ratings,
    sample_csv,
    sample_episodes,
    stratum_quotas,
)


def test_jaccard():
    assert jaccard({"a", "b"}, {"b", "c"}) == 1 / 3
    assert jaccard(set(), set()) == 0.0


def test_probe_candidates_need_at_least_the_targets_overlap():
    item = persona(1)
    item["episodes"] = item["episodes"][:3]
    item["episodes"][0]["probes"][0]["query"] = "What about the bakery and the garage?"
    result = audit_personas([item], threshold=1.0)
    rows = {r["probe_id"]: r for r in result["probe_candidates"]}
    # p01e01's own text mentions neither word; e02 (bakery) and e03 (garage) each share one stem
    assert rows["p01e01-f"]["target_overlap"] == 0
    assert [c["episode_id"] for c in rows["p01e01-f"]["candidates"]] == ["p01e02", "p01e03"]


def test_stratum_quotas_use_largest_remainder():
    assert stratum_quotas({"a": 72, "b": 72, "c": 24}, 60) == {"a": 26, "b": 26, "c": 8}
    assert stratum_quotas({"a": 1, "b": 1, "c": 1}, 2) == {"a": 1, "b": 1, "c": 0}
    assert sum(stratum_quotas({"x": 5, "y": 7, "z": 11}, 10).values()) == 10


def test_sample_is_stratified_deterministic_and_blind():
    personas = [persona(n) for n in range(1, 7)]
    first = sample_episodes(personas, 30)
    assert [e["id"] for e in first] == [e["id"] for e in sample_episodes(personas, 30)]
    assert len(first) == 30
    bands = sorted(e["intensity_band"] for e in first)
    assert bands.count("high") == 13 and bands.count("low") == 13 and bands.count("mild") == 4
    text = sample_csv(first)
    header = text.splitlines()[0]
    assert header == "episode_id,text,intensity_band,valence,notes"
    assert all(row["intensity_band"] == "" for row in csv.DictReader(io.StringIO(text)))


def test_sample_pins_the_hash_order():
    # rows follow sha256 of the id (sha256("p01e07") starts 2f869c50): fixed, RNG-free, version-independent
    ids = [e["id"] for e in sample_episodes([persona(1)], 14)]
    assert ids[:3] == ["p01e07", "p01e12", "p01e03"] and ids[-1] == "p01e13"


def test_cohen_kappa_against_hand_computation():
    a = ["high", "high", "low", "low", "mild", "low"]
    b = ["high", "low", "low", "low", "mild", "high"]
    # observed 4/6; expected (2*2 + 3*3 + 1*1) / 36 = 14/36
    assert cohen_kappa(a, b) == pytest.approx((4 / 6 - 14 / 36) / (1 - 14 / 36))
    assert cohen_kappa(["x", "x"], ["x", "x"]) == 1.0


def write_rater(path, rows):
    path.write_text(
        "episode_id,text,intensity_band,valence,notes\n" + "".join(f"{i},t,{b},{v},\n" for i, b, v in rows),
        encoding="utf-8",
    )
    return path


def test_read_ratings_reports_every_problem_with_its_line(tmp_path):
    path = write_rater(
        tmp_path / "r1.csv", [("e1", "high", "positive"), ("e1", "loud", "positive"), ("zz", "low", "grim")]
    )
    with pytest.raises(LabelsError) as caught:
        read_ratings(path, ["e1", "e2"])
    message = str(caught.value)
    assert "line 3: e1 is rated twice" in message
    assert "line 3: intensity_band 'loud' is not one of high, mild, low" in message
    assert "line 4: 'zz' is not in the sample" in message
    assert "line 4: valence 'grim'" in message
    assert "1 sampled episode(s) not rated, e.g. e2" in message


def test_agreement_consensus_and_disputes():
    raters = {
        "r1": {"e1": Rating("high", "positive"), "e2": Rating("low", "neutral")},
        "r2": {"e1": Rating("high", "positive"), "e2": Rating("mild", "negative")},
        "r3": {"e1": Rating("mild", "positive"), "e2": Rating("mild", "negative")},
    }
    authored = {
        "e1": {"intensity_band": "high", "valence": "positive"},
        "e2": {"intensity_band": "low", "valence": "neutral"},
    }
    summary, disputes = agreement(raters, authored)
    assert summary["consensus"]["e2"] == {"intensity_band": "mild", "valence": "negative"}
    assert [d["episode_id"] for d in disputes] == ["e2"]
    assert summary["pairs"]["r1 vs r3"]["band_within_one"] == 1.0
    assert summary["pairs"]["r1 vs r2"]["band_exact"] == 0.5
