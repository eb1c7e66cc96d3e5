"""Score an external system's rankings strictly (memrecall evaluate).

Usage: python scripts/evaluate_rankings.py --rankings FILE [--output FILE] [other evaluate options]
"""

import sys

from memrecall.cli import main

main(["evaluate", *[arg for arg in sys.argv[1:] if arg != "--rankings"]], prog_name="evaluate_rankings.py")
