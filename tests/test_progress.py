"""Progress outside a terminal: plain lines per phase and a count with its rate; `--quiet` silences them."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from tqdm import tqdm

from memrecall import progress
from memrecall.progress import PlainProgress, plural, progress_bar, rate

ROOT = Path(__file__).resolve().parents[1]


class FakeClock:
    """A clock that moves only when told to."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_phase_prints_its_start_its_counts_every_interval_and_its_end():
    clock, stream = FakeClock(), io.StringIO()
    with PlainProgress(2688, "encoding", "text", every=30, stream=stream, clock=clock) as bar:
        clock.now += 10
        bar.update(400)  # 10 s since the start line: not yet
        clock.now += 16.7
        bar.update(800)  # 26.7 s: not yet
        clock.now += 3.3
        bar.update(0)  # 30 s: a line
        clock.now += 29
        bar.update(1488)
        clock.now += 1
    assert stream.getvalue().splitlines() == [
        "encoding 2,688 texts",
        "encoding 2,688 texts: 1,200 done, 40/s",
        "encoding 2,688 texts: done in 60.0 s",
    ]


def test_the_heartbeat_writes_a_count_when_no_update_comes():
    clock, stream = FakeClock(), io.StringIO()
    bar = PlainProgress(9, "dense: ranking", "query", every=30, stream=stream, clock=clock)
    waits = iter([False, False, True])  # two intervals pass, then the phase ends
    bar._stop = type("Stop", (), {"wait": lambda self, seconds: next(waits), "set": lambda self: None})()
    clock.now += 30
    bar._heartbeat()
    assert stream.getvalue().splitlines() == ["dense: ranking 9 queries: 0 done, 30 s so far"]


def test_a_phase_that_raises_says_where_it_stopped():
    clock, stream = FakeClock(), io.StringIO()
    with pytest.raises(KeyError), PlainProgress(5, "sweep", "pair", every=0, stream=stream, clock=clock) as bar:
        bar.update(2)
        raise KeyError("x")
    assert stream.getvalue().splitlines()[-1] == "sweep 5 pairs: stopped after 2 in 0.0 s"


@pytest.mark.parametrize(
    ("done", "seconds", "shown"),
    [(1200, 26.7, "45/s"), (3, 120, "40 s each"), (0, 31, "31 s so far"), (5, 0, "0 s so far"), (1, 1, "1/s")],
)
def test_the_rate_reads_as_a_count_per_second_or_seconds_each(done, seconds, shown):
    assert rate(done, seconds) == shown


def test_units_pluralise():
    assert [plural(1, "query"), plural(2, "query"), plural(2688, "text"), plural(1, "pair")] == [
        "1 query",
        "2 queries",
        "2,688 texts",
        "1 pair",
    ]


def test_a_terminal_gets_a_bar_a_pipe_plain_lines_and_disabled_or_none_nothing(monkeypatch):
    monkeypatch.delenv(progress.SETTING, raising=False)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    bar = progress_bar(3, "x", True)
    assert isinstance(bar, tqdm) and not bar.disable
    bar.close()
    monkeypatch.setattr(sys.stderr, "isatty", lambda: False)
    assert isinstance(progress_bar(3, "x", True), PlainProgress)
    assert progress_bar(3, "x", True).every == 30.0
    assert progress_bar(3, "x", False).disable
    monkeypatch.setenv(progress.SETTING, "none")
    assert progress_bar(3, "x", True).disable
    monkeypatch.setenv(progress.SETTING, "0.5")
    assert progress_bar(3, "x", True).every == 0.5
    monkeypatch.setenv(progress.SETTING, "soon")
    assert progress_bar(3, "x", True).every == 30.0


def test_no_timer_thread_outlives_its_phase():
    before = threading.active_count()
    with PlainProgress(1, "x", every=30, stream=io.StringIO()) as bar:
        bar.update(1)
    assert threading.active_count() == before


def run_in_a_pipe(*args: str, setting: str | None) -> subprocess.CompletedProcess:
    """`memrecall ARGS` with stdout and stderr both pipes, as in a CI log."""
    env = {k: v for k, v in os.environ.items() if k != progress.SETTING}
    env.update({progress.SETTING: setting} if setting is not None else {})
    command = [sys.executable, "-m", "memrecall", *args]
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)


def test_run_in_a_pipe_prints_each_phase_and_its_counts(tmp_path):
    args = ("run", "beir", "--data", "examples/data/beir_memory", "--system", "fts5", "--output", str(tmp_path / "r"))
    done = run_in_a_pipe(*args, setting="0")  # a line at every update
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    assert "fts5: ranking 9 queries" in lines
    counts = [line for line in lines if line.startswith("fts5: ranking 9 queries: ") and " done, " in line]
    assert [c.split(": ")[2].split(" done")[0] for c in counts] == ["3", "6", "9"]  # one per store of the sample
    assert any(line.startswith("fts5: ranking 9 queries: done in ") for line in lines)
    default = run_in_a_pipe(*args, setting=None)  # every 30 s: the phase's start and end lines at least
    assert "fts5: ranking 9 queries" in default.stderr.splitlines()
    quiet = run_in_a_pipe(*args, "--quiet", setting="0")
    assert quiet.returncode == 0 and "ranking" not in quiet.stderr


def test_sweep_in_a_pipe_counts_its_pairs(tmp_path):
    args = ("sweep", "--systems", "recency,fts5", "--benchmarks", "beir", "--data", "beir=examples/data/beir_tiny")
    done = run_in_a_pipe(*args, "--out", str(tmp_path / "s"), setting="0")
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    assert lines[0] == "sweep 2 pairs"
    counts = [line.split(" done, ")[0] for line in lines if line.startswith("sweep ") and " done, " in line]
    assert counts == ["sweep 2 pairs: 1", "sweep 2 pairs: 2"]
    assert lines[-1].startswith("sweep 2 pairs: done in ")
    for system in ("recency", "fts5"):  # each pair's own progress, led by its name, between the sweep's counts
        ours = [line for line in lines if line.startswith(f"beir / {system}: ")]
        assert ours[0] == f"beir / {system}: loading {ROOT / 'examples/data/beir_tiny'}...", ours
        assert f"beir / {system}: {system}: ranking 5 queries" in ours
        assert ours[-1].startswith(f"beir / {system}: {system}: ranking 5 queries: done in "), ours
    quiet = run_in_a_pipe(*args, "--out", str(tmp_path / "q"), "--quiet", setting="0")
    assert quiet.returncode == 0 and "ranking" not in quiet.stderr and " / " not in quiet.stderr


@pytest.mark.slow
def test_leaderboard_in_a_pipe_counts_the_reports_it_checks_and_the_tables_it_tests(tmp_path):
    import shutil

    source = ROOT / "site" / "leaderboard" / "entries" / "epirec-v3"
    folder = tmp_path / "entries" / "epirec-v3"
    folder.mkdir(parents=True)
    for system in ("dense", "fts5", "recency"):
        for suffix in ("report.json.gz", "rankings.jsonl.gz", "scores.jsonl.gz"):
            shutil.copyfile(source / f"{system}.{suffix}", folder / f"{system}.{suffix}")
    done = run_in_a_pipe("leaderboard", str(tmp_path / "entries"), "--out", str(tmp_path / "site"), setting="0")
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    assert lines[0] == "leaderboard: checking 3 reports"
    assert [line.split(" done, ")[0] for line in lines if " done, " in line] == [
        "leaderboard: checking 3 reports: 1",
        "leaderboard: checking 3 reports: 2",
        "leaderboard: checking 3 reports: 3",
        "leaderboard: testing rows 1 table: 1",
    ]
    args = ("leaderboard", str(tmp_path / "entries"), "--out", str(tmp_path / "q"), "--quiet")
    quiet = run_in_a_pipe(*args, setting="0")
    assert quiet.returncode == 0 and quiet.stderr == ""
