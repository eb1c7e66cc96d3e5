"""Render the overview figures and report card of a report (memrecall report), by default the v2 baselines.

Usage: python scripts/plot_overview.py [REPORT] [--out DIR]
"""

import sys

from memrecall.cli import main

main(["report", *(sys.argv[1:] or ["docs/baselines.json", "--out", "results/overview"])], prog_name="plot_overview.py")
