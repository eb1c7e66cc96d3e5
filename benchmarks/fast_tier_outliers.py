"""List the fast tier's test functions that take long enough to need `@pytest.mark.slow`, from pytest's junit XML.

    bash benchmarks/test_tiers.sh fast          (writes benchmarks/out/test_tiers_fast.xml)
    python benchmarks/fast_tier_outliers.py benchmarks/out/test_tiers_fast.xml [--over 4]

A junit file of `pytest -m "not slow"` holds only unmarked tests, so every function listed here (its slowest case,
setup included, at or over --over seconds) belongs in the slow tier. Prints the tier's summed test time too.
"""

from __future__ import annotations

import argparse
import re
import sys
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path


def function_times(junit: Path) -> tuple[dict[str, float], dict[str, float]]:
    """(slowest case, summed cases) in seconds per test function `tests/FILE.py::NAME`."""
    slowest: dict[str, float] = defaultdict(float)
    summed: dict[str, float] = defaultdict(float)
    for case in ET.parse(junit).iter("testcase"):
        module, name = case.get("classname") or "", case.get("name") or ""
        if not module or not name:
            continue
        key = module.replace(".", "/") + ".py::" + re.sub(r"\[.*$", "", name)
        seconds = float(case.get("time") or 0)
        slowest[key] = max(slowest[key], seconds)
        summed[key] += seconds
    return slowest, summed


def main() -> int:
    """Print the outliers, slowest first; exit 1 when there is any."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("junit", type=Path)
    parser.add_argument("--over", type=float, default=4.0, help="seconds of a function's slowest case [default: 4]")
    args = parser.parse_args()
    slowest, summed = function_times(args.junit)
    outliers = sorted((key for key, seconds in slowest.items() if seconds >= args.over), key=lambda k: -slowest[k])
    print(f"{len(summed)} test functions, {sum(summed.values()):.0f} s of test time in all")
    for key in outliers:
        print(f"{slowest[key]:7.1f} s  {key}")
    return 1 if outliers else 0


if __name__ == "__main__":
    sys.exit(main())
