"""Rebuild the releases, or with --check confirm they are current (memrecall build [--check]).

Usage: python scripts/build.py [OPTIONS]   (with the project's virtual environment active)
"""

import sys

from memrecall.cli import main

main(["build", *sys.argv[1:]], prog_name="build.py")
