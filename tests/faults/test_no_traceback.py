"""Promise: bad paths, options and files give one clear line and exit 1 (2 for usage), never a traceback."""

import json
import sqlite3

import pytest
from conftest import MINI_RELEASE, run
from helpers import LME, LOCOMO, assert_one_line_error, export_hashing, mutated_json


def test_output_naming_a_folder(tmp_path):
    rankings = export_hashing(tmp_path)
    result = run("evaluate", rankings, "--data", MINI_RELEASE, "--output", tmp_path)
    assert_one_line_error(result, f"--output {tmp_path} is a folder; give a file path")
    result = run("locomo", "--data", LOCOMO, "--modes", "fts5", "--quiet", "--output", tmp_path)
    assert_one_line_error(result, f"--output {tmp_path} is a folder; give a file path")


def test_cache_dir_naming_a_file(tmp_path):
    blocker = tmp_path / "cache"
    blocker.write_text("x")
    result = run(
        "baseline",
        "--data",
        MINI_RELEASE,
        "--strategies",
        "dense",
        "--quiet",
        "--output",
        tmp_path / "r.json",
        "--cache-dir",
        blocker,
    )
    assert_one_line_error(result, f"--cache-dir {blocker} is a file; give a folder path")


def test_a_folder_that_cannot_be_written(tmp_path, monkeypatch):
    import memrecall.outputs as outputs

    locked = tmp_path / "locked"
    locked.mkdir()
    real = outputs.os.access
    monkeypatch.setattr(outputs.os, "access", lambda p, mode: False if str(p) == str(locked) else real(p, mode))
    rankings = export_hashing(tmp_path)
    result = run("evaluate", rankings, "--data", MINI_RELEASE, "--output", locked / "r.json")
    assert_one_line_error(result, f"{locked} is not writable")


@pytest.mark.parametrize("content", [b"SQLite format 3\x00" + b"\x07" * 200, b"garbage, not a database at all"])
def test_a_damaged_embedding_cache_is_set_aside_and_rebuilt(tmp_path, content):
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / "vectors-v2.sqlite").write_bytes(content)
    result = run(
        "baseline",
        "--data",
        MINI_RELEASE,
        "--strategies",
        "dense",
        "--quiet",
        "--output",
        tmp_path / "r.json",
        "--cache-dir",
        cache,
    )
    assert result.exit_code == 0, result.output
    assert "was damaged" in result.output and "set aside as vectors-v2.sqlite.damaged-1" in result.output
    assert (cache / "vectors-v2.sqlite.damaged-1").read_bytes() == content


def test_a_cache_blob_of_the_wrong_length_is_encoded_again(tmp_path):
    args = ["baseline", "--data", MINI_RELEASE, "--strategies", "dense", "--quiet", "--cache-dir", tmp_path / "c"]
    assert run(*args, "--output", tmp_path / "a.json").exit_code == 0
    db = sqlite3.connect(tmp_path / "c" / "vectors-v2.sqlite")
    with db:
        db.execute("UPDATE vectors SET vector = substr(vector, 1, 100) WHERE rowid = 1")
    db.close()
    result = run(*args, "--output", tmp_path / "b.json")
    assert result.exit_code == 0 and "1 damaged vector(s)" in result.output


def test_a_cache_locked_too_long_is_one_error(tmp_path, monkeypatch):
    import memrecall.encoding.vector_cache as vector_cache

    monkeypatch.setattr(vector_cache, "LOCK_TIMEOUT_SECONDS", 0.2)
    (tmp_path / "c").mkdir()
    holder = sqlite3.connect(tmp_path / "c" / "vectors-v2.sqlite", isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        result = run(
            "baseline",
            "--data",
            MINI_RELEASE,
            "--strategies",
            "dense",
            "--quiet",
            "--output",
            tmp_path / "r.json",
            "--cache-dir",
            tmp_path / "c",
        )
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert_one_line_error(result, "is locked by another process")


def test_a_read_only_cache_is_read_but_not_written(tmp_path):
    import numpy as np

    from memrecall.encoding.vector_cache import VectorCache

    cache = VectorCache(tmp_path)
    cache.put_many("m", {"k": np.ones(3, dtype=np.float32)})
    cache._connection = cache._recover(sqlite3.OperationalError("attempt to write a readonly database"))
    assert cache.read_only
    cache.put_many("m", {"j": np.ones(3, dtype=np.float32)})
    assert set(cache.get_many("m", ["k", "j"])) == {"k"}


@pytest.mark.parametrize("option, value", [("--seed", "-1"), ("--resamples", "1000000000")])
def test_out_of_range_options_are_usage_errors(tmp_path, option, value):
    result = run(
        "baseline",
        "--data",
        MINI_RELEASE,
        "--strategies",
        "hashing",
        "--quiet",
        "--output",
        tmp_path / "r.json",
        option,
        value,
    )
    assert result.exit_code == 2 and "Invalid value" in result.output and "Traceback" not in result.output


def _first(data):
    return data[0]


@pytest.mark.parametrize(
    "change, expected",
    [
        (
            lambda d: _first(d).__setitem__("answer_session_ids", [["e_cat"]]),
            "answer_session_ids: expected an array of session id strings",
        ),
        (
            lambda d: _first(d)["haystack_session_ids"].__setitem__(0, ["d_garden"]),
            "haystack_session_ids: ids must be distinct strings",
        ),
        (
            lambda d: _first(d).update(
                haystack_session_ids=[], haystack_dates=[], haystack_sessions=[], answer_session_ids=[]
            ),
            "the haystack is empty",
        ),
    ],
)
def test_malformed_longmemeval(tmp_path, change, expected):
    bad = mutated_json(LME, tmp_path / "lme.json", change)
    result = run("longmemeval", "--data", bad, "--modes", "dense", "--quiet", "--output", tmp_path / "r.json")
    assert_one_line_error(result, expected)


@pytest.mark.parametrize(
    "change, expected",
    [
        (lambda d: _first(d).__setitem__("qa", 5), "conv-a: qa: expected an array of questions, got int"),
        (lambda d: _first(d)["qa"][0].__setitem__("category", [4]), "conv-a: qa[0].category: expected an integer"),
        (
            lambda d: _first(d)["conversation"].__setitem__("session_1", 7),
            "conv-a: session_1: expected an array of turns, got int",
        ),
    ],
)
def test_malformed_locomo(tmp_path, change, expected):
    bad = mutated_json(LOCOMO, tmp_path / "locomo.json", change)
    result = run("locomo", "--data", bad, "--modes", "fts5", "--quiet", "--output", tmp_path / "r.json")
    assert_one_line_error(result, expected)


@pytest.fixture
def checkout(tmp_path):
    from corpus_factory import persona, write_checkout

    root = write_checkout(tmp_path / "co", [persona(1), persona(2)])
    assert run("build", "--root", root).exit_code == 0
    return root


def test_validate_a_non_utf8_checksums_file(checkout):
    (checkout / "data" / "SHA256SUMS").write_bytes(b"\xc3\x28 not utf-8")
    result = run("validate", "--root", checkout)
    assert_one_line_error(result, "data/SHA256SUMS: cannot read file: not UTF-8 text")


@pytest.mark.parametrize("name", ["epirec_v1.json", "SHA256SUMS"])
def test_validate_a_release_or_checksums_that_is_a_folder(checkout, name):
    path = checkout / "data" / name
    path.unlink()
    path.mkdir()
    result = run("validate", "--root", checkout)
    assert_one_line_error(result, f"data/{name}")


def test_validate_a_croissant_distribution_of_the_wrong_type(checkout):
    path = checkout / "data" / "croissant.json"
    metadata = json.loads(path.read_text())
    metadata["distribution"] = 5
    path.write_text(json.dumps(metadata))
    result = run("validate", "--root", checkout)
    assert_one_line_error(result, "data/croissant.json: distribution: expected an array of FileObjects, got int")


@pytest.mark.parametrize(
    "drop, expected", [("task", "content.task is missing or incomplete"), ("system_order", "do not match")]
)
def test_report_without_task_or_strategy_order(tmp_path, drop, expected):
    result = run(
        "baseline", "--data", MINI_RELEASE, "--strategies", "hashing", "--quiet", "--output", tmp_path / "r.json"
    )
    assert result.exit_code == 0
    report = json.loads((tmp_path / "r.json").read_text())
    del report["content"][drop]
    (tmp_path / "r.json").write_text(json.dumps(report))
    assert_one_line_error(run("report", tmp_path / "r.json", "--allow-unsigned"), expected)


def test_labels_with_a_non_utf8_rating_file(checkout, tmp_path):
    sheet = tmp_path / "s.csv"
    assert run("labels", "sample", "--root", checkout, "--size", "4", "--output", sheet).exit_code == 0
    (tmp_path / "a.csv").write_bytes("episode_id,intensity_band,valence\n".encode("utf-16"))
    (tmp_path / "b.csv").write_bytes(b"episode_id,intensity_band,valence\n")
    result = run(
        "labels",
        "agree",
        "--root",
        checkout,
        tmp_path / "a.csv",
        tmp_path / "b.csv",
        "--sample",
        sheet,
        "--out-dir",
        tmp_path / "out",
    )
    assert_one_line_error(result, "a.csv: is UTF-16; save it as UTF-8")


def test_a_huge_unknown_id_is_echoed_cut_short(tmp_path):
    rankings = export_hashing(tmp_path)
    rows = [json.loads(line) for line in rankings.read_text().splitlines()]
    rows[0]["ranked_episode_ids"][0] = "x" * 1_000_000
    rows[1]["probe_id"] = "y" * 1_000_000
    big = tmp_path / "big.jsonl"
    big.write_text("".join(json.dumps(r) + "\n" for r in rows))
    result = run("evaluate", big, "--data", MINI_RELEASE, "--output", tmp_path / "r.json")
    assert_one_line_error(result, "(1000002 characters)")  # the id quoted with repr, then cut
    assert len(result.output) < 3000


def test_a_cache_that_is_not_there_is_created_only_when_a_vector_is_stored(tmp_path):
    import numpy as np

    from memrecall.encoding.vector_cache import VectorCache

    cache = VectorCache(tmp_path / "cache")
    assert cache.get_many("m", ["k"]) == {}
    assert not (tmp_path / "cache").exists()
    cache.put_many("m", {"k": np.ones(3, dtype=np.float32)})
    assert set(VectorCache(tmp_path / "cache").get_many("m", ["k"])) == {"k"}
