"""Promise: every reader decodes through one rule: UTF-16/UTF-32 is named ("save it as UTF-8"), CSV may carry
a UTF-8 byte-order mark (spreadsheets save one), and the CLI turns each into one line."""

import json

import pytest
from conftest import MINI_RELEASE, run
from helpers import assert_one_line_error

from memrecall.corpus.labels import read_ratings
from memrecall.data.jsonfile import iter_jsonl, read_csv_rows, read_json, read_regular_text
from memrecall.data.loaders.beir_qrels import read_utf8_text
from memrecall.data.rankings import read_rankings_file
from memrecall.errors import MemrecallError
from memrecall.reports.query_scores import read_scores
from memrecall.scoring.per_query import read_per_query

ROW = {"persona_id": "t01", "probe_id": "p", "ranked_episode_ids": ["e"]}
# Every reader of user files, each with a valid text it would read.
READERS = {
    "read_json": (read_json, json.dumps(ROW)),
    "iter_jsonl": (lambda p: list(iter_jsonl(p)), json.dumps(ROW) + "\n"),
    "read_regular_text": (read_regular_text, "text\n"),
    "read_rankings_file": (read_rankings_file, json.dumps(ROW) + "\n"),
    "read_per_query": (read_per_query, json.dumps(ROW) + "\n"),
    "read_scores": (read_scores, json.dumps({"query_id": "q", "values": {}}) + "\n"),
    "beir read_utf8_text": (read_utf8_text, '{"_id": "d"}\n'),
    "read_csv_rows": (read_csv_rows, "episode_id,intensity_band,valence\ne1,high,positive\n"),
    "read_ratings": (lambda p: read_ratings(p, ["e1"]), "episode_id,intensity_band,valence\ne1,high,positive\n"),
}
WIDE = {"utf-16": "UTF-16", "utf-16-be-bom": "UTF-16", "utf-32": "UTF-32"}


def _encode(text: str, encoding: str) -> bytes:
    """The text in a wide encoding with its byte-order mark (Python's utf-16-be writes none, so add it)."""
    return b"\xfe\xff" + text.encode("utf-16-be") if encoding == "utf-16-be-bom" else text.encode(encoding)


@pytest.mark.parametrize("reader", sorted(READERS))
@pytest.mark.parametrize("encoding", sorted(WIDE))
def test_a_wide_encoding_is_named(reader, encoding, tmp_path):
    read, text = READERS[reader]
    path = tmp_path / "input.txt"
    path.write_bytes(_encode(text, encoding))
    with pytest.raises(MemrecallError) as caught:
        read(path)
    assert f"{path}: is {WIDE[encoding]}; save it as UTF-8" in str(caught.value)


@pytest.mark.parametrize("reader", ["read_csv_rows", "read_ratings"])
def test_csv_reads_the_same_with_or_without_a_utf8_bom(reader, tmp_path):
    read, text = READERS[reader]
    plain, marked = tmp_path / "plain.csv", tmp_path / "marked.csv"
    plain.write_text(text, encoding="utf-8")
    marked.write_text(text, encoding="utf-8-sig")
    assert marked.read_bytes().startswith(b"\xef\xbb\xbf")
    assert read(marked) == read(plain)


def test_csv_header_keeps_its_first_column_name_under_a_bom(tmp_path):
    path = tmp_path / "s.csv"
    path.write_bytes(b"\xef\xbb\xbfepisode_id,valence\r\ne1,positive\r\n")
    assert read_csv_rows(path) == [{"episode_id": "e1", "valence": "positive"}]


def test_json_readers_still_refuse_a_utf8_bom(tmp_path):
    path = tmp_path / "run.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(ROW).encode() + b"\n")
    result = run("evaluate", path, "--data", MINI_RELEASE, "--output", tmp_path / "r.json")
    assert_one_line_error(result, "starts with a UTF-8 byte-order mark")


# Commands reading a file named on the command line, with the argument list around it.
COMMANDS = {
    "evaluate": lambda f, t: ["evaluate", f, "--data", MINI_RELEASE, "--output", t / "r.json"],
    "compare": lambda f, t: ["compare", f, f, "--data", MINI_RELEASE, "--output", t / "r.json"],
    "report": lambda f, t: ["report", f, "--out", t / "card"],
    "verify": lambda f, t: ["verify", f],
}


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_utf16_input_is_one_line_naming_it(command, tmp_path):
    path = tmp_path / "input.json"
    path.write_bytes(json.dumps(ROW).encode("utf-16"))
    result = run(*COMMANDS[command](path, tmp_path))
    assert_one_line_error(result, f"{path}: is UTF-16; save it as UTF-8")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["input.json"]
