"""Render the overview figures and report card of a report (memrecall report), by default site/baselines.json (v3).

Usage: python scripts/plot_overview.py [REPORT] [--out DIR] [--per-query FILE] [--allow-unsigned]
"""

import sys
from pathlib import Path

from memrecall.cli import main
from memrecall.cli.report import report_arguments

BASELINES = str(Path(__file__).resolve().parents[1] / "site" / "baselines.json")
main(report_arguments(sys.argv[1:], BASELINES, "results/overview"), prog_name="plot_overview.py")
