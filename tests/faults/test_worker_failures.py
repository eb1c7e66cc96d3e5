"""A plug-in's worker that raises, crashes, is killed, hangs or prints to stdout: one line, exit 1, nothing written."""

from __future__ import annotations

import textwrap

import pytest
from conftest import MINI_RELEASE, run

BROKEN = '''
import os
import signal
import sys
import time


class Broken:
    """Ranks in store order, except at the step and in the way FAIL_AT names."""

    how = None
    step = "rank"

    def __init__(self):
        self.fail("init")

    def fail(self, step):
        if step != self.step:
            return
        if self.how == "raise":
            raise ValueError("the plug-in gave up")
        if self.how == "exit":
            sys.exit(4)
        if self.how == "crash":
            os._exit(3)
        if self.how == "kill":
            os.kill(os.getpid(), signal.SIGKILL)
        if self.how == "hang":
            time.sleep(120)
        if self.how == "print":
            print("debugging output")

    def index(self, documents):
        self.fail("index")
        self.ids = [d.id for d in documents]

    def rank(self, query):
        self.fail("rank")
        return list(self.ids)


def make(how, step):
    return type(f"{how}_{step}", (Broken,), {"how": how, "step": step})

{classes}
'''
CASES = {
    "raise": "ValueError: the plug-in gave up",
    "exit": "sys.exit(4)",
    "crash": "the worker process exited with code 3 during ",
    "kill": "the worker process was killed by SIGKILL during ",
    "hang": "no answer within 2 s during ",
    "print": "printed to stdout during ",
}
STEPS = {"init": "import and construction", "index": "index() and rank() on store ", "rank": "index() and rank()"}


@pytest.fixture
def broken(tmp_path, monkeypatch):
    """A module with one class per (failure, step)."""
    classes = "\n".join(f"{h}_{s} = make({h!r}, {s!r})" for h in CASES for s in STEPS)
    (tmp_path / "broken.py").write_text(textwrap.dedent(BROKEN).replace("{classes}", classes), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


@pytest.mark.parametrize("step", sorted(STEPS))
@pytest.mark.parametrize("how", sorted(CASES))
def test_a_failing_worker_is_one_line_and_nothing_is_written(broken, how, step):
    output = broken / "out" / "report.json"
    args = ["run", "epirec", "--system", f"broken:{how}_{step}", "--data", MINI_RELEASE, "--quiet"]
    result = run(*args, "--output", output, "--per-query", broken / "out" / "pq.jsonl", "--worker-timeout", "2")
    assert result.exit_code == 1, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1, lines
    named = (
        (f"error: system {how}_{step}: ",) if step != "init" else ("error: system broken:", "error: --system broken:")
    )
    assert lines[0].startswith(named), lines
    assert CASES[how] in lines[0]
    if how not in ("raise", "exit"):
        assert STEPS[step] in lines[0]
    if how == "raise" and step != "init":
        assert "broken.py:" in lines[0]  # the plug-in's own file and line
    if step != "init" and how != "raise" and how != "exit":
        assert "store 't01'" in lines[0]  # the real store id, never the opaque token
    assert not (broken / "out").exists()
    assert {p.name for p in broken.iterdir()} <= {"__pycache__", "broken.py"}
