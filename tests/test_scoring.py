from datetime import UTC, datetime

from memrecall.data.model import JudgedQuery, LabelledDocument, Ranking, Task
from memrecall.scoring.policy import ScoringConfig, score_task

WHEN = datetime(2025, 1, 1, tzinfo=UTC)


def make_task():
    store = tuple(LabelledDocument(d, d, WHEN) for d in ("a", "b", "c"))
    queries = (
        JudgedQuery("q1", "s", "x", WHEN, frozenset({"a"}), {"kind": "k1"}),
        JudgedQuery("q2", "s", "x", WHEN, frozenset({"b"}), {"kind": "k2"}),
        JudgedQuery(
            "q3", "s", "x", WHEN, frozenset({"c"}), {"kind": "k2", "in_headline": "no", "left_out_because": "abs"}
        ),
        JudgedQuery("q4", "s", "x", WHEN, frozenset(), {"kind": "k1"}),
    )
    return Task("t", "1", "0" * 64, {"s": store}, queries)


def test_headline_excludes_marked_queries_and_apart_rows_cover_all():
    ranking = Ranking("", ("a", "b", "c"), (3.0, 2.0, 1.0))
    rankings = {q: ranking for q in ("q1", "q2", "q3", "q4")}
    config = ScoringConfig(
        metrics=("recall@1", "mrr"), groupings=((), ("kind",)), apart_groupings=(("kind",),), resamples=100
    )
    results = score_task(make_task(), rankings, config)
    assert results["n_queries"] == 4 and results["n_without_targets"] == 1
    assert results["left_out_of_headline"] == {"abs": 1}
    assert results["overall"]["n"] == 2
    assert results["overall"]["mrr"]["value"] == (1 + 1 / 2) / 2
    assert results["by_kind"]["k2"]["n"] == 1
    assert results["apart_by_kind"]["k2"]["n"] == 2
    assert results["apart_by_kind"]["k2"]["mrr"]["value"] == (1 / 2 + 1 / 3) / 2
