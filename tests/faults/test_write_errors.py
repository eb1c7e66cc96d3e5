"""Promise: a failed write (full disk, size limit, /dev/full, closed pipe) is one line, exit 1, nothing left."""

from __future__ import annotations

import errno
import os
import resource
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import MINI_RELEASE, run
from helpers import export_hashing

SRC = Path(__file__).resolve().parents[2] / "src"
BASELINE = ["baseline", "--data", MINI_RELEASE, "--strategies", "hashing", "--quiet"]


def child(args: list, cwd: Path, **options) -> subprocess.CompletedProcess:
    """memrecall in a child process, with a timeout so that nothing can hang the suite."""
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    command = [sys.executable, "-m", "memrecall", *map(str, args)]
    return subprocess.run(command, cwd=cwd, env=env, timeout=300, stdin=subprocess.DEVNULL, **options)


def leftovers(folder: Path) -> list[Path]:
    """Everything under `folder`: files, staged temp files and folders alike."""
    return sorted(folder.rglob("*"))


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EFBIG])
def test_a_failing_rename_is_one_line_and_leaves_no_file_and_no_new_folder(code, tmp_path, monkeypatch):
    import memrecall.io as io

    def full(source, target):
        raise OSError(code, os.strerror(code))

    monkeypatch.setattr(io.os, "replace", full)
    out = tmp_path / "out"
    result = run(*BASELINE, "--output", out / "r.json", "--per-query", out / "pq.jsonl", "--report-dir", out / "card")
    assert result.exit_code == 1, result.output
    assert f"({errno.errorcode[code]})" in result.output and "Traceback" not in result.output
    assert [line for line in result.output.splitlines() if line.startswith("error:")] == [
        f"error: cannot write {out / 'r.json'}: {os.strerror(code)} ({errno.errorcode[code]}); "
        "no output was left behind"
    ]
    assert leftovers(tmp_path) == []


def test_a_failing_write_of_a_figure_leaves_no_staged_file_and_no_card_folder(tmp_path, monkeypatch):
    import memrecall.io as io

    real = io.os.fdopen

    class Full:
        def __init__(self, handle):
            self.handle = handle

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.handle.close()

        def write(self, data):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    def fdopen(fd, mode="r", *args, **options):
        handle = real(fd, mode, *args, **options)
        return Full(handle) if "w" in mode else handle

    monkeypatch.setattr(io.os, "fdopen", fdopen)
    result = run(*BASELINE, "--output", tmp_path / "r.json", "--report-dir", tmp_path / "deep" / "card")
    assert result.exit_code == 1, result.output
    assert "No space left on device (ENOSPC); no output was left behind" in result.output
    assert leftovers(tmp_path) == []


def test_sigterm_during_card_rendering_leaves_no_report_folder(tmp_path, monkeypatch):
    import memrecall.reports.cards.card as card
    from memrecall.io import atomic_write_bytes

    def terminated(report, out):
        atomic_write_bytes(out / "first.png", b"half a card")  # the folder now exists
        os.kill(os.getpid(), signal.SIGTERM)
        raise AssertionError("SIGTERM did not stop the command")

    monkeypatch.setattr(card, "epirec_figures", terminated)
    result = run(*BASELINE, "--output", tmp_path / "r.json", "--report-dir", tmp_path / "reports" / "card")
    assert result.exit_code == 130 and "interrupted" in result.output
    assert leftovers(tmp_path) == []


def test_stdout_to_dev_full_is_one_line_and_leaves_nothing(tmp_path):
    rankings = export_hashing(tmp_path / "in")
    with open("/dev/full", "w") as full:
        done = child(
            ["evaluate", rankings, "--data", MINI_RELEASE, "--output", tmp_path / "out" / "r.json"],
            tmp_path,
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
        )
    assert done.returncode == 1, done.stderr
    assert done.stderr.splitlines() == [
        "error: cannot write standard output: No space left on device (ENOSPC); no output was left behind"
    ]
    assert not (tmp_path / "out").exists()


def test_a_closed_pipe_on_stdout_is_one_line_and_leaves_nothing(tmp_path):
    rankings = export_hashing(tmp_path / "in")
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    command = [sys.executable, "-m", "memrecall", "evaluate", str(rankings), "--data", str(MINI_RELEASE)]
    process = subprocess.Popen(
        [*command, "--output", str(tmp_path / "out" / "r.json")],
        cwd=tmp_path,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    process.stdout.close()  # the reader is gone before anything is printed, as with `| head -0`
    _, stderr = process.communicate(timeout=300)
    assert process.returncode == 1, stderr
    assert stderr.splitlines() == [
        "error: cannot write standard output: Broken pipe (EPIPE); no output was left behind"
    ]
    assert not (tmp_path / "out").exists()


def test_a_file_size_limit_is_one_line_and_leaves_nothing(tmp_path):
    def limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (2000, 2000))

    done = child(
        [*BASELINE, "--output", tmp_path / "out" / "r.json"],
        tmp_path,
        preexec_fn=limit,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 1, done.stderr
    assert done.stderr.splitlines() == [
        f"error: cannot write {tmp_path / 'out' / 'r.json'}: File too large (EFBIG); no output was left behind"
    ]
    assert leftovers(tmp_path) == []
