"""systems/services/process.descendants: every process below a service's, which stop() waits out."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

from memrecall.systems.services.process import descendants


def test_descendants_are_the_children_and_grandchildren_and_nothing_else():
    shell = subprocess.Popen(["sh", "-c", "sh -c 'sleep 30 & wait' & sleep 30 & wait"])
    try:
        below: list[int] = []
        for _ in range(200):  # until the inner shell, its sleep and the outer sleep are running
            below = descendants(shell.pid)
            if len(below) == 3:
                break
            time.sleep(0.05)
        names = sorted(Path(f"/proc/{pid}/comm").read_text().strip() for pid in below)
        assert names == ["sh", "sleep", "sleep"]
        assert shell.pid not in below
    finally:
        for pid in [*descendants(shell.pid), shell.pid]:
            subprocess.run(["kill", "-9", str(pid)], check=False)
        shell.wait()


def test_a_process_with_no_children_has_no_descendants():
    sleeper = subprocess.Popen(["sleep", "30"])
    try:
        assert descendants(sleeper.pid) == []
    finally:
        sleeper.kill()
        sleeper.wait()
