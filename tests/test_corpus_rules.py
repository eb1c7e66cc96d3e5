import pytest

from memrecall.corpus import rules


def test_tokens_strip_outer_apostrophes_and_possessives():
    assert rules.tokens("Mom's 'cat' didn't eat 3.5 kg") == ["mom", "cat", "didn't", "eat", "3", "5", "kg"]


def test_content_stems_drop_stop_words_and_use_snowball():
    assert rules.content_stems("The lakes were shimmering at sunset") == {"lake", "shimmer", "sunset"}


def test_shared_stems_compare_inflections():
    assert rules.shared_stems("Those shimmering lakes", "A lake shimmered.") == ["lake", "shimmer"]
    assert rules.shared_stems("The water in the evening", "A lake at sunset.") == []


@pytest.mark.parametrize(
    "text, found",
    [
        ("I was anxious", ["anxious"]),
        ("anxiety crept in", ["anxiety"]),
        ("she smiled happily", ["happily"]),
        ("a proudly kept garden", ["proudly"]),
        ("that evening by the water", []),
    ],
)
def test_emotion_words_match_by_stem_including_ly_adverbs(text, found):
    assert rules.emotion_words(text) == found


@pytest.mark.parametrize(
    "text, count",
    [
        ("One sentence only", 1),
        ("One. Two! Three?", 3),
        ("Paid 3.5 euros. Done.", 2),
        ("Wait... what?!", 2),
        ("", 0),
    ],
)
def test_sentence_count(text, count):
    assert rules.sentence_count(text) == count


def test_word_count_is_whitespace_split():
    assert rules.word_count("  two-part  words, here ") == 3


def test_parse_timestamp_requires_an_offset():
    assert rules.parse_timestamp("2025-06-01T10:00:00+09:00") is not None
    assert rules.parse_timestamp("2025-06-01T10:00:00") is None
    assert rules.parse_timestamp("June 1") is None
