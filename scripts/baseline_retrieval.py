"""Run the reference retrievers on the bundled EpiRec release (memrecall baseline).

Usage: python scripts/baseline_retrieval.py [OPTIONS]   (with the project's virtual environment active)
"""

import sys

from memrecall.cli import main

main(["baseline", *sys.argv[1:]], prog_name="baseline_retrieval.py")
