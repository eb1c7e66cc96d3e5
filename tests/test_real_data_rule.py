"""A test that skips for want of ../shared/data skips on a user's machine and fails in CI, in every form it takes."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
NEEDS = """
import pytest
from conftest import LOCOMO_MISSING, LONGMEMEVAL_MISSING, shared_file

def test_through_shared_file():
    shared_file("realtalk", "Chat_1.json")

@pytest.mark.skipif(True, reason=LOCOMO_MISSING)
def test_through_skipif():
    pass

def test_through_a_skip_call():
    pytest.skip(LONGMEMEVAL_MISSING)

def test_an_unrelated_skip():
    pytest.skip("not on this platform")
"""


def _outcomes(tmp_path: Path, require: bool) -> tuple[int, str]:
    """The exit code and summary line of the four tests above, run where ../shared/data does not exist."""
    tests = tmp_path / "repo" / "tests"
    tests.mkdir(parents=True, exist_ok=True)
    for name in ("conftest.py", "network_guard.py"):
        shutil.copyfile(HERE / name, tests / name)
    (tests / "test_needs.py").write_text(NEEDS)
    env = {k: v for k, v in os.environ.items() if k not in ("MEMRECALL_REQUIRE_SHARED_DATA", "PYTEST_ADDOPTS")}
    if require:
        env["MEMRECALL_REQUIRE_SHARED_DATA"] = "1"
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", str(tests / "test_needs.py")]
    done = subprocess.run(command, cwd=tmp_path / "repo", env=env, capture_output=True, text=True, timeout=300)
    return done.returncode, done.stdout.strip().splitlines()[-1]


def test_on_a_users_machine_each_form_skips(tmp_path):
    code, summary = _outcomes(tmp_path, require=False)
    assert code == 0 and summary.startswith("4 skipped"), summary


def test_in_ci_each_form_fails_and_an_unrelated_skip_stays_a_skip(tmp_path):
    code, summary = _outcomes(tmp_path, require=True)
    # a skipif is decided in setup, so pytest counts that one as an error
    assert code == 1 and summary.startswith("2 failed, 1 skipped, 1 error"), summary


@pytest.mark.realdata
def test_the_real_data_is_beside_the_checkout_in_ci():
    from conftest import shared_file

    assert shared_file("locomo10.json").stat().st_size > 1_000_000
