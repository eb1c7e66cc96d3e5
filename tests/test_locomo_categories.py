"""The LoCoMo category names rest on the release's own evidence (docs/locomo.md): each name's shape holds."""

from __future__ import annotations

import json

import pytest
from conftest import FIXTURES, LOCOMO_MISSING, SHARED_DATA

from memrecall.data.loaders.locomo import CATEGORIES, category_label
from memrecall.data.loaders.locomo_categories import category_evidence, evidence_table, question_shape

RELEASE = SHARED_DATA / "locomo10.json"


@pytest.fixture(scope="module")
def evidence():
    if not RELEASE.exists():
        pytest.skip(LOCOMO_MISSING)
    return category_evidence(json.loads(RELEASE.read_text(encoding="utf-8")))


def test_the_release_supports_each_name(evidence):
    assert {c: row["questions"] for c, row in evidence.items()} == {1: 282, 2: 321, 3: 96, 4: 841, 5: 446}
    assert evidence[1]["multi_evidence"] > 0.9 and evidence[1]["multi_session"] > 0.9  # multi-hop
    assert evidence[2]["asks_when"] > 0.7 and evidence[2]["date_answer"] > 0.7  # temporal
    assert evidence[3]["asks_would"] > max(evidence[c]["asks_would"] for c in (1, 2, 4, 5))  # open-domain
    assert evidence[4]["multi_evidence"] < 0.1 and evidence[4]["multi_session"] < 0.01  # single-hop
    assert evidence[5]["adversarial_answer"] == 1.0  # adversarial: every record has an `adversarial_answer`
    assert all(evidence[c]["adversarial_answer"] == 0 for c in (1, 2, 3, 4))


def test_the_docs_table_is_the_release_table(evidence):
    table = evidence_table(json.loads(RELEASE.read_text(encoding="utf-8")))
    assert table in (FIXTURES.parents[1] / "docs" / "locomo.md").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("record", "shape"),
    [
        ({"question": "When did A go?", "answer": "7 May 2023", "evidence": ["D1:2"]}, {"asks_when", "date_answer"}),
        ({"question": "What do both like?", "answer": "tea", "evidence": ["D1:2", "D3:4"]}, {"multi_evidence", "multi_session"}),  # noqa: E501
        ({"question": "Would A likely move?", "answer": "yes", "evidence": ["D2:1", "D2:5"]}, {"asks_would", "multi_evidence"}),  # noqa: E501
        ({"question": "What did B buy?", "adversarial_answer": "a car", "evidence": ["D4:1"]}, {"adversarial_answer"}),
        ({"question": "What did B buy?", "answer": "a car", "evidence": []}, set()),
    ],
)  # fmt: skip
def test_each_shape_is_read_from_the_record(record, shape):
    assert {name for name, held in question_shape(record).items() if held} == shape


def test_every_label_carries_its_raw_number():
    assert [category_label(c) for c in sorted(CATEGORIES)] == [
        "1-multi-hop", "2-temporal", "3-open-domain", "4-single-hop", "5-adversarial",
    ]  # fmt: skip
    assert category_label(9) == "9-unknown"
