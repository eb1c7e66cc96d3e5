"""Every script in scripts/ and benchmarks/ answers --help with its usage and does nothing else."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = sorted(
    p
    for folder in ("scripts", "benchmarks")
    for p in (ROOT / folder).glob("*.py")
    if 'if __name__ == "__main__":' in p.read_text(encoding="utf-8")
)


def test_the_scripts_are_found():
    names = {p.name for p in SCRIPTS}
    assert {"check_signatures.py", "site.py", "doc_outputs.py", "leaderboard.py", "new_benchmarks.py"} <= names


@pytest.mark.parametrize("script", SCRIPTS, ids=[p.relative_to(ROOT).as_posix() for p in SCRIPTS])
def test_help_prints_the_usage_and_exits_0(script, tmp_path):
    # run from an empty folder: a script that took --help for a path or started its work would write or fail there
    done = subprocess.run(
        [sys.executable, str(script), "--help"], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-500:]
    assert "usage" in done.stdout.lower()
    assert list(tmp_path.iterdir()) == []
