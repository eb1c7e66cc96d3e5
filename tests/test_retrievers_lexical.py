import numpy as np
import pytest
from conftest import doc, query

from memrecall.systems.builtin.fts5 import Fts5Retriever, fts5_match_expression
from memrecall.systems.builtin.hashing import HashingRetriever, hashed_vector
from memrecall.systems.builtin.recency import RecencyRetriever


def test_hashed_vector_of_one_token_is_a_signed_unit_at_its_md5_bucket():
    # md5("cat") = d077...fcd8: bucket 0xd8 = 216; bit 8 of the digest is 0, so the sign is +1
    vector = hashed_vector("Cat")
    assert vector[216] == 1.0
    assert np.count_nonzero(vector) == 1


def test_hashed_vector_counts_repeats_and_is_normalised():
    vector = hashed_vector("cat cat dog")
    # dog: bucket 5, sign +1; cat twice at 216
    assert vector[216] == pytest.approx(2 / np.sqrt(5))
    assert vector[5] == pytest.approx(1 / np.sqrt(5))
    assert np.linalg.norm(vector) == pytest.approx(1.0)


def test_hashed_vector_of_text_without_tokens_is_zero():
    assert not hashed_vector("... !!").any()


def test_hashing_ranks_by_cosine_with_store_order_on_ties():
    retriever = HashingRetriever()
    retriever.index([doc("a", "the dog"), doc("b", "a cat sat"), doc("c", "the dog")])
    ranking = retriever.rank(query("dog"))
    assert ranking.doc_ids[:2] == ("a", "c")
    assert ranking.doc_ids[2] == "b"
    assert ranking.scores[0] == pytest.approx(1 / np.sqrt(2))


def test_recency_puts_newest_first_whatever_the_query():
    retriever = RecencyRetriever()
    retriever.index([doc("old", "x", 1), doc("new", "y", 9), doc("mid", "z", 5)])
    assert retriever.rank(query("anything")).doc_ids == ("new", "mid", "old")


def test_fts5_match_expression_quotes_every_distinct_token():
    assert fts5_match_expression('Say "hi" -- NOT well-known, hi!') == '"say" OR "hi" OR "not" OR "well" OR "known"'
    assert fts5_match_expression("don't") == '"don" OR "t"'
    assert fts5_match_expression("   ?! ") == ""


@pytest.fixture
def fts5():
    retriever = Fts5Retriever()
    retriever.index(
        [
            doc("a", "We baked bread at the café in Zürich."),
            doc("b", "A well-known bakery sold rye bread and bread rolls."),
            doc("c", "Nothing here about food."),
        ]
    )
    return retriever


@pytest.mark.parametrize("text", ['"bread', "bread AND OR NOT (", "rye*", "NEAR(bread rye)", "col:bread"])
def test_fts5_never_raises_on_operator_characters(fts5, text):
    ranking = fts5.rank(query(text))
    assert sorted(ranking.doc_ids) == ["a", "b", "c"]


def test_fts5_ranks_the_document_with_more_matches_first(fts5):
    ranking = fts5.rank(query("rye bread"))
    assert ranking.doc_ids == ("b", "a", "c")
    assert ranking.scores[0] > ranking.scores[1] > 0.0
    assert ranking.scores[2] == 0.0


def test_fts5_handles_hyphens_apostrophes_and_non_ascii(fts5):
    assert fts5.rank(query("well-known")).doc_ids[0] == "b"
    assert fts5.rank(query("bakery's")).doc_ids[0] == "b"
    assert fts5.rank(query("zürich")).doc_ids[0] == "a"
    assert fts5.rank(query("cafe")).doc_ids[0] == "a"  # unicode61 folds diacritics


def test_fts5_empty_query_keeps_store_order_with_zero_scores(fts5):
    ranking = fts5.rank(query(""))
    assert ranking.doc_ids == ("a", "b", "c")
    assert ranking.scores == (0.0, 0.0, 0.0)


def test_fts5_reindex_replaces_the_previous_store(fts5):
    fts5.index([doc("z", "only this one")])
    assert fts5.rank(query("bread")).doc_ids == ("z",)
