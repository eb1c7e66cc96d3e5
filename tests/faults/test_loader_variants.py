"""Generated variants: every loader against duplicate keys, wrong types and non-regular files.

Each loader is declared once (how to make a valid input, which command reads it, which object and
key to repeat, which fields to give a wrong type); the variants are generated from that. The
valid input itself is run too, so every refusal below is caused by the variant alone.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from conftest import MINI_RELEASE, run
from helpers import LME, LOCOMO
from variants import dumps_with_duplicate, with_value

SRC = Path(__file__).resolve().parents[2] / "src"


@dataclass(frozen=True)
class Loader:
    """One input format: its valid data, the command that reads it, and where variants go."""

    name: str
    jsonl: bool
    duplicate: tuple[tuple, str]
    typed: tuple[tuple[tuple, str, Any], ...]
    suffix: str = ".json"
    extra: tuple = field(default=())


LOADERS = (
    Loader(
        "epirec release",
        False,
        (("personas", 0, "episodes", 0), "text"),
        (
            (("personas", 0, "episodes", 0), "label_disputed", "false"),
            (("personas", 0, "episodes", 0), "label_disputed", None),
            (("personas", 0, "episodes", 0), "text", None),
        ),
    ),
    Loader(
        "longmemeval records",
        False,
        ((0, "haystack_sessions", 0, 0), "content"),
        (
            ((0, "haystack_sessions", 0, 0), "has_answer", "false"),
            ((0, "haystack_sessions", 0, 0), "has_answer", None),
            ((0,), "question", None),
        ),
    ),
    Loader(
        "locomo conversations",
        False,
        ((0, "conversation"), "session_1"),
        (((0, "qa", 0), "category", "2"), ((0, "qa", 0), "question", None)),
    ),
    Loader(
        "rankings jsonl",
        True,
        ((0,), "ranked_episode_ids"),
        (((0,), "probe_id", None), ((0,), "ranked_episode_ids", None)),
        ".jsonl",
    ),
    Loader(
        "official log",
        True,
        ((0, "retrieval_results"), "ranked_items"),
        (((0,), "question_id", None), ((0, "retrieval_results", "ranked_items", 0), "corpus_id", None)),
        ".jsonl",
    ),
    Loader(
        "per-query rows",
        True,
        ((0,), "first_target_rank"),
        (((0,), "first_target_rank", "1"), ((0, "hit"), "@1", "false"), ((0,), "text", None)),
        ".jsonl",
    ),
    Loader(
        "report",
        False,
        (("content",), "primary_metric"),
        ((("content", "task"), "queries", "24"), (("content", "task"), "queries", None)),
        extra=("--allow-unsigned",),
    ),
)


@pytest.fixture(scope="module")
def made(tmp_path_factory) -> dict[str, Path]:
    """Valid inputs memrecall wrote itself: rankings, an official log, a report and its per-query rows."""
    folder = tmp_path_factory.mktemp("made")
    common = ["--strategies", "hashing", "--quiet", "--output", folder / "report.json"]
    result = run(
        "baseline",
        "--data",
        MINI_RELEASE,
        *common,
        "--per-query",
        folder / "pq.jsonl",
        "--export-rankings",
        folder / "rk",
    )
    assert result.exit_code == 0, result.output
    result = run(
        "longmemeval",
        "--data",
        LME,
        "--modes",
        "fts5",
        "--quiet",
        "--output",
        folder / "lme.json",
        "--export-official-log",
        folder / "log.jsonl",
    )
    assert result.exit_code == 0, result.output
    return {
        "rankings jsonl": folder / "rk" / "hashing.jsonl",
        "official log": folder / "log.jsonl",
        "per-query rows": folder / "pq.jsonl",
        "report": folder / "report.json",
        "epirec release": MINI_RELEASE,
        "longmemeval records": LME,
        "locomo conversations": LOCOMO,
    }


def command(loader: Loader, path: Path, out: Path, made: dict[str, Path]) -> list:
    """The CLI arguments that read `path` as this loader's input, writing only under `out`."""
    return {
        "epirec release": [
            "baseline",
            "--data",
            path,
            "--strategies",
            "hashing",
            "--quiet",
            "--output",
            out / "r.json",
        ],
        "longmemeval records": [
            "longmemeval",
            "--data",
            path,
            "--modes",
            "fts5",
            "--quiet",
            "--output",
            out / "r.json",
        ],
        "locomo conversations": ["locomo", "--data", path, "--modes", "fts5", "--quiet", "--output", out / "r.json"],
        "rankings jsonl": ["evaluate", path, "--data", MINI_RELEASE, "--output", out / "r.json"],
        "official log": ["evaluate", path, "--benchmark", "longmemeval", "--data", LME, "--output", out / "r.json"],
        "per-query rows": [
            "report",
            made["report"],
            "--per-query",
            path,
            "--rankings",
            made["rankings jsonl"],
            "--data",
            MINI_RELEASE,
            "--out",
            out / "card",
        ],  # fmt: skip
        "report": ["report", path, "--out", out / "card", *loader.extra],
    }[loader.name]


def read(loader: Loader, made: dict[str, Path]) -> Any:
    """The valid input, parsed (a list of line objects for JSON lines)."""
    text = made[loader.name].read_text(encoding="utf-8")
    return [json.loads(line) for line in text.split("\n") if line] if loader.jsonl else json.loads(text)


def write(loader: Loader, folder: Path, text_or_data: Any) -> Path:
    """The variant file: JSON text as given, or data serialised (one line per object for JSON lines)."""
    path = folder / f"variant{loader.suffix}"
    if isinstance(text_or_data, str):
        path.write_text(text_or_data, encoding="utf-8")
    elif loader.jsonl:
        path.write_text("".join(json.dumps(row) + "\n" for row in text_or_data), encoding="utf-8")
    else:
        path.write_text(json.dumps(text_or_data), encoding="utf-8")
    return path


def assert_refused(result, expected: list[str], out: Path) -> None:
    """Exit 1, one error line holding every expected text, no traceback, and nothing under `out`."""
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output and result.exception is None or isinstance(result.exception, SystemExit)
    errors = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, result.output
    for text in expected:
        assert text in result.output, (text, result.output)
    assert not out.exists(), list(out.rglob("*"))


@pytest.mark.parametrize("loader", LOADERS, ids=lambda loader: loader.name)
def test_the_valid_input_of_every_loader_is_accepted(loader, made, tmp_path):
    path = write(loader, tmp_path, read(loader, made))
    result = run(*command(loader, path, tmp_path / "out", made))
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize("loader", LOADERS, ids=lambda loader: loader.name)
def test_a_repeated_key_is_refused_by_every_loader(loader, made, tmp_path):
    data = read(loader, made)
    target, key = loader.duplicate
    if loader.jsonl:
        lines = [json.dumps(row) for row in data]
        lines[target[0]] = dumps_with_duplicate(data[target[0]], target[1:], key)
        text = "\n".join(lines) + "\n"
    else:
        text = dumps_with_duplicate(data, target, key)
    result = run(*command(loader, write(loader, tmp_path, text), tmp_path / "out", made))
    assert_refused(result, [f"duplicate key {key!r}"], tmp_path / "out")


TYPED = [(loader, target, key, value) for loader in LOADERS for target, key, value in loader.typed]


@pytest.mark.parametrize(
    ("loader", "target", "key", "value"),
    TYPED,
    ids=[f"{c[0].name}-{c[2]}-{json.dumps(c[3])}" for c in TYPED],
)
def test_a_wrong_type_is_refused_by_every_loader(loader, target, key, value, made, tmp_path):
    data = read(loader, made)
    if loader.jsonl:
        data[target[0]] = with_value(data[target[0]], target[1:], key, value)
    else:
        data = with_value(data, target, key, value)
    result = run(*command(loader, write(loader, tmp_path, data), tmp_path / "out", made))
    got = "got null" if value is None else f"got a string {value!r}"
    assert_refused(result, [key, got], tmp_path / "out")


def run_subprocess(args: list, cwd: Path) -> subprocess.CompletedProcess:
    """memrecall in a child process with a hard timeout: a read that blocks fails the test, never hangs it."""
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    command_line = [sys.executable, "-m", "memrecall", *map(str, args)]
    return subprocess.run(
        command_line, cwd=cwd, env=env, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL
    )


@pytest.mark.parametrize("kind", ["fifo", "device"])
@pytest.mark.parametrize("loader", LOADERS, ids=lambda loader: loader.name)
def test_a_fifo_or_a_device_is_refused_at_once_by_every_loader(loader, kind, made, tmp_path):
    if kind == "fifo":
        special = tmp_path / f"input{loader.suffix}"
        os.mkfifo(special)  # no writer ever opens it: reading it would block forever
        described = "is a FIFO (named pipe), not a regular file"
    else:
        special = Path("/dev/zero")  # endless bytes: reading it would never finish
        described = "is a character device, not a regular file"
    done = run_subprocess(command(loader, special, tmp_path / "out", made), tmp_path)
    assert done.returncode in (1, 2), done.stderr
    assert "Traceback" not in done.stderr
    assert described in done.stderr and str(special) in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("loader", LOADERS, ids=lambda loader: loader.name)
def test_a_folder_given_as_the_input_is_refused_by_every_loader(loader, made, tmp_path):
    folder = tmp_path / "a-folder"
    folder.mkdir()
    result = run(*command(loader, folder, tmp_path / "out", made))
    assert result.exit_code in (1, 2), result.output
    assert "Traceback" not in result.output
    assert "is a directory" in result.output or "is a folder, not a regular file" in result.output, result.output
    assert not (tmp_path / "out").exists()
