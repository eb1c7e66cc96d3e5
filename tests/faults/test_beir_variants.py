"""Generated variants of a BEIR folder: each fault is one line naming the file, the line and what is wrong.

The valid folder (the per-user sample) runs first, so every refusal below comes from the variant alone.
Each variant also checks that nothing was written.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import run

SAMPLE = Path(__file__).resolve().parents[2] / "examples" / "data" / "beir_memory"
FILES = ("corpus.jsonl", "queries.jsonl", "qrels/test.tsv")
Files = dict[str, list[str]]


def sample() -> Files:
    """The sample's files as lists of lines."""
    return {name: (SAMPLE / name).read_text(encoding="utf-8").splitlines() for name in FILES}


def edit_line(name: str, index: int, change: Callable[[dict], None]) -> Callable[[Files], None]:
    """A variant that changes one JSON line of a file (index 0 is line 1)."""

    def apply(files: Files) -> None:
        record = json.loads(files[name][index])
        change(record)
        files[name][index] = json.dumps(record, ensure_ascii=False)

    return apply


def set_line(name: str, index: int, text: str) -> Callable[[Files], None]:
    def apply(files: Files) -> None:
        files[name][index] = text

    return apply


def add_line(name: str, text: str) -> Callable[[Files], None]:
    def apply(files: Files) -> None:
        files[name].append(text)

    return apply


def keep(name: str, count: int) -> Callable[[Files], None]:
    def apply(files: Files) -> None:
        files[name] = files[name][:count]

    return apply


def prefix(name: str, text: str) -> Callable[[Files], None]:
    def apply(files: Files) -> None:
        files[name][0] = text + files[name][0]

    return apply


C, Q, R = FILES
VARIANTS = {
    # corpus.jsonl
    "duplicate doc id": (
        edit_line(C, 1, lambda r: r.update(_id="ana-01")),
        C,
        "line 2: duplicate _id 'ana-01' (first on line 1)",
    ),
    "doc without text": (edit_line(C, 2, lambda r: r.pop("text")), C, "line 3: missing field 'text'"),
    "doc without id": (edit_line(C, 0, lambda r: r.pop("_id")), C, "line 1: missing field '_id'"),
    "doc text a number": (
        edit_line(C, 0, lambda r: r.update(text=7)),
        C,
        "line 1: text must be a string, got a number",
    ),
    "doc id empty": (edit_line(C, 4, lambda r: r.update(_id="")), C, "line 5: _id '' is empty or has spaces around it"),
    "doc id padded": (edit_line(C, 4, lambda r: r.update(_id=" a ")), C, "line 5: _id ' a ' is empty or has spaces"),
    "doc unknown field": (edit_line(C, 3, lambda r: r.update(store="ana")), C, "line 4: unexpected field 'store'"),
    "doc bad time": (
        edit_line(C, 5, lambda r: r.update(timestamp="April 1")),
        C,
        "line 6: timestamp 'April 1' is not an ISO 8601",
    ),
    "doc time a number": (
        edit_line(C, 5, lambda r: r.update(timestamp=1)),
        C,
        "line 6: timestamp must be an ISO 8601 string",
    ),
    "doc store_id a number": (edit_line(C, 5, lambda r: r.update(store_id=3)), C, "line 6: store_id must be a string"),
    "doc not JSON": (
        set_line(C, 6, '{"_id": "x",'),
        C,
        "line 7 column 13 (byte 1056): invalid JSON: Expecting property name enclosed in double quotes; "
        "the text ends inside a value; it looks truncated",
    ),
    "doc an array": (set_line(C, 6, "[1, 2]"), C, "line 7: expected a JSON object, got an array"),
    "doc repeats a key": (
        set_line(C, 0, '{"_id": "a", "text": "x", "text": "y", "store_id": "ana"}'),
        C,
        "line 1: duplicate key 'text'",
    ),
    "corpus BOM": (prefix(C, "\ufeff"), C, "line 1: starts with a byte order mark (BOM)"),
    "corpus empty": (keep(C, 0), C, "holds no lines; expected one JSON object per line"),
    "one doc lacks store_id": (edit_line(C, 7, lambda r: r.pop("store_id")), C, "line 8: has no store_id but"),
    # queries.jsonl
    "duplicate query id": (
        edit_line(Q, 2, lambda r: r.update(_id="ana-q1")),
        Q,
        "line 3: duplicate _id 'ana-q1' (first on line 1)",
    ),
    "query asks an unknown store": (
        edit_line(Q, 4, lambda r: r.update(store_id="Ben")),
        Q,
        "line 5: query 'ben-q2' asks store_id 'Ben', which has no documents",
    ),
    "query lacks store_id": (edit_line(Q, 0, lambda r: r.pop("store_id")), Q, "line 1: has no store_id but"),
    "query bad time": (
        edit_line(Q, 8, lambda r: r.update(time="2025-13-01")),
        Q,
        "line 9: time '2025-13-01' is not an ISO 8601",
    ),
    "query text null": (edit_line(Q, 8, lambda r: r.update(text=None)), Q, "line 9: text must be a string, got null"),
    "queries empty": (keep(Q, 0), Q, "holds no lines"),
    # qrels/test.tsv
    "qrels without header": (
        lambda f: f[R].pop(0),
        R,
        "line 1: expected the header 'query-id<TAB>corpus-id<TAB>score'",
    ),
    "qrels header with spaces": (set_line(R, 0, "query-id corpus-id score"), R, "line 1: expected the header"),
    "qrels two columns": (
        set_line(R, 3, "ana-q2\tana-04"),
        R,
        "line 4: expected 3 tab-separated columns (query-id, corpus-id, score), got 2",
    ),
    "qrels four columns": (set_line(R, 3, "ana-q2\t0\tana-04\t1"), R, "line 4: expected 3 tab-separated columns"),
    "qrels fractional score": (
        set_line(R, 2, "ana-q1\tana-01\t1.5"),
        R,
        "line 3: score must be a whole number >= 0, got '1.5'",
    ),
    "qrels negative score": (
        set_line(R, 2, "ana-q1\tana-01\t-1"),
        R,
        "line 3: score must be a whole number >= 0, got '-1'",
    ),
    "qrels word score": (set_line(R, 2, "ana-q1\tana-01\thigh"), R, "line 3: score must be a whole number"),
    "qrels unknown query": (add_line(R, "zz-q9\tana-01\t1"), R, "line 18: query-id 'zz-q9' is not in queries.jsonl"),
    "qrels near-miss query": (
        add_line(R, "ANA-Q3\tana-01\t1"),
        R,
        "line 18: query-id 'ANA-Q3' is not in queries.jsonl (differs from 'ana-q3' only in case",
    ),
    "qrels unknown doc": (add_line(R, "ana-q3\tana-99\t1"), R, "line 18: corpus-id 'ana-99' is not in corpus.jsonl"),
    "qrels judged twice": (
        add_line(R, "ana-q1\tana-01\t0"),
        R,
        "line 18: query-id 'ana-q1' and corpus-id 'ana-01' are judged twice (first on line 2)",
    ),
    "qrels doc of another user": (
        add_line(R, "ana-q3\tben-02\t1"),
        R,
        "line 18: corpus-id 'ben-02' is in store 'ben' but query 'ana-q3' asks store 'ana'",
    ),
    "qrels header only": (keep(R, 1), R, "holds no judgements after its header"),
    "qrels empty": (keep(R, 0), R, "is empty; expected the header"),
    "qrels BOM": (prefix(R, "\ufeff"), R, "line 1: starts with a byte order mark (BOM)"),
    "qrels padded id": (
        add_line(R, "ana-q3 \tana-01\t1"),
        R,
        "line 18: query-id 'ana-q3 ' is empty or has spaces around it",
    ),
}


def write(folder: Path, files: Files) -> Path:
    """The files under `folder`, each line ending in a newline."""
    for name, lines in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return folder


def run_beir(folder: Path, out: Path):
    return run("run", "beir", "--data", folder, "--system", "recency", "--quiet", "--resamples", "100", "--output", out)


def assert_one_line(result, expected: str) -> None:
    assert result.exit_code == 1, result.output
    assert expected in result.output, result.output
    assert result.output.strip().count("\n") == 0 and "Traceback" not in result.output, result.output


def test_the_unchanged_sample_runs(tmp_path):
    result = run_beir(write(tmp_path / "ok", sample()), tmp_path / "r.json")
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_each_fault_is_one_line_naming_file_and_line(tmp_path, variant):
    change, name, expected = VARIANTS[variant]
    files = sample()
    change(files)
    folder = write(tmp_path / "logs", files)
    result = run_beir(folder, tmp_path / "r.json")
    assert_one_line(result, f"{folder / name}: {expected}")
    assert not (tmp_path / "r.json").exists()


@pytest.mark.parametrize("name", FILES)
def test_a_missing_file_is_named(tmp_path, name):
    folder = write(tmp_path / "logs", sample())
    (folder / name).unlink()
    assert_one_line(run_beir(folder, tmp_path / "r.json"), f"{folder / name}: is missing; a BEIR folder holds")


def test_an_empty_folder_names_the_first_file_it_lacks(tmp_path):
    (tmp_path / "logs").mkdir()
    assert_one_line(
        run_beir(tmp_path / "logs", tmp_path / "r.json"), f"{tmp_path / 'logs' / 'corpus.jsonl'}: is missing"
    )


def test_a_folder_where_a_file_should_be_and_bytes_that_are_not_utf8(tmp_path):
    folder = write(tmp_path / "logs", sample())
    (folder / "qrels" / "test.tsv").unlink()
    (folder / "qrels" / "test.tsv").mkdir()
    assert_one_line(run_beir(folder, tmp_path / "r.json"), "test.tsv: is a folder, not a regular file")
    folder = write(tmp_path / "latin1", sample())
    (folder / "queries.jsonl").write_bytes('{"_id": "q", "text": "caf\u00e9"}\n'.encode("latin-1"))
    assert_one_line(run_beir(folder, tmp_path / "r.json"), "queries.jsonl: not UTF-8 text")


def test_without_store_ids_anywhere_it_is_one_store(tmp_path):
    files = sample()
    for name in (C, Q):
        for index, line in enumerate(files[name]):
            record = json.loads(line)
            record.pop("store_id")
            files[name][index] = json.dumps(record)
    result = run_beir(write(tmp_path / "one", files), tmp_path / "r.json")
    assert result.exit_code == 0, result.output
    content = json.loads((tmp_path / "r.json").read_text())["content"]
    assert content["dataset"]["stores"] == "one" and content["task"]["queries"] == 9


@pytest.mark.parametrize("name", FILES)
def test_a_fifo_in_place_of_a_file_is_refused_without_blocking(tmp_path, name):
    import os

    folder = write(tmp_path / "logs", sample())
    (folder / name).unlink()
    os.mkfifo(folder / name)
    result = run_beir(folder, tmp_path / "r.json")
    assert_one_line(result, f"{folder / name}: is a FIFO (named pipe), not a regular file")


def test_the_errors_your_own_data_md_quotes_are_what_the_variants_print(tmp_path):
    page = (SAMPLE.parents[2] / "docs" / "your-own-data.md").read_text(encoding="utf-8")
    quoted = re.findall(r"^error: /tmp/my-logs/(\S+): (.*)$", page, re.M)
    assert len(quoted) == 2
    for name, message in quoted:
        label = next(k for k, (_, n, expected) in VARIANTS.items() if n == name and message.startswith(expected))
        change, _, _ = VARIANTS[label]
        files = sample()
        change(files)
        folder = write(tmp_path / label.replace(" ", "-"), files)
        result = run_beir(folder, tmp_path / "r.json")
        assert result.output.strip() == f"error: {folder / name}: {message}"
