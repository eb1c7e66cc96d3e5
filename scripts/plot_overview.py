"""Render the overview figures and report card of a report (memrecall report), by default the v2 baselines.

Usage: python scripts/plot_overview.py [REPORT] [--out DIR] [--per-query FILE] [--allow-unsigned]
"""

import argparse
import sys
from pathlib import Path

from memrecall.cli import main

ROOT = Path(__file__).resolve().parents[1]


def report_arguments(argv: list[str]) -> list[str]:
    """`memrecall report` arguments: REPORT defaults to docs/baselines.json, --out to results/overview."""
    parser = argparse.ArgumentParser(prog="plot_overview.py", add_help=False)
    parser.add_argument("report", nargs="?", default=str(ROOT / "docs" / "baselines.json"))
    parser.add_argument("--out", default="results/overview")
    known, rest = parser.parse_known_args(argv)
    return ["report", known.report, "--out", known.out, *rest]


if __name__ == "__main__":
    if {"-h", "--help"} & set(sys.argv[1:]):
        print(__doc__.strip())
        sys.exit(0)
    main(report_arguments(sys.argv[1:]), prog_name="plot_overview.py")
