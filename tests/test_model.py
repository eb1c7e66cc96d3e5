import pytest

from memrecall.data.model import Ranking, rank_by_score


def test_rank_by_score_orders_by_score_then_store_position():
    ranking = rank_by_score("q", ["a", "b", "c", "d"], [0.5, 0.9, 0.5, 0.1])
    assert ranking.doc_ids == ("b", "a", "c", "d")
    assert ranking.scores == (0.9, 0.5, 0.5, 0.1)


def test_ranking_rejects_repeated_ids_and_length_mismatch():
    with pytest.raises(ValueError, match="repeated"):
        Ranking("q", ("a", "a"), (1.0, 0.5))
    with pytest.raises(ValueError, match="2 ids but 1 scores"):
        Ranking("q", ("a", "b"), (1.0,))


def test_atomic_writes_leave_the_usual_file_mode(tmp_path):
    import os

    from memrecall.io import atomic_write_text

    path = tmp_path / "out.txt"
    atomic_write_text(path, "x\n")
    umask = os.umask(0)
    os.umask(umask)
    assert path.stat().st_mode & 0o777 == 0o666 & ~umask
    assert path.read_bytes() == b"x\n"
    assert [p.name for p in tmp_path.iterdir()] == ["out.txt"]  # no temp file left behind
