"""benchmarks/fast_tier_outliers.py: which fast-tier tests a junit file says belong in the slow tier."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
JUNIT = """<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest">
<testcase classname="tests.test_a" name="test_quick[1]" time="0.5"/>
<testcase classname="tests.test_a" name="test_quick[2]" time="0.7"/>
<testcase classname="tests.test_a" name="test_one_slow_case[1]" time="0.1"/>
<testcase classname="tests.test_a" name="test_one_slow_case[2]" time="6.25"/>
<testcase classname="tests.faults.test_b" name="test_slowest" time="9.0"/>
</testsuite></testsuites>"""


def outliers(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    """Run the script on the junit file above."""
    junit = tmp_path / "fast.xml"
    junit.write_text(JUNIT, encoding="utf-8")
    script = ROOT / "benchmarks" / "fast_tier_outliers.py"
    return subprocess.run([sys.executable, script, junit, *args], capture_output=True, text=True, check=False)


def test_a_function_is_listed_by_its_slowest_case_slowest_first(tmp_path):
    done = outliers(tmp_path)
    assert done.returncode == 1
    assert done.stdout.splitlines() == [
        "3 test functions, 17 s of test time in all",
        "    9.0 s  tests/faults/test_b.py::test_slowest",
        "    6.2 s  tests/test_a.py::test_one_slow_case",
    ]


def test_nothing_over_the_threshold_exits_0(tmp_path):
    done = outliers(tmp_path, "--over", "10")
    assert (done.returncode, done.stdout) == (0, "3 test functions, 17 s of test time in all\n")
