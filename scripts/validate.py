"""Check schemas, spec rules, the releases, SHA256SUMS and croissant.json (memrecall validate).

Usage: python scripts/validate.py [OPTIONS]   (with the project's virtual environment active)
"""

import sys

from memrecall.cli import main

main(["validate", *sys.argv[1:]], prog_name="validate.py")
