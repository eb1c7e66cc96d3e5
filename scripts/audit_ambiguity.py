"""Write lexical ambiguity candidates for blinded review (memrecall audit).

Usage: python scripts/audit_ambiguity.py [OPTIONS]   (with the project's virtual environment active)
"""

import sys

from memrecall.cli import main

main(["audit", *sys.argv[1:]], prog_name="audit_ambiguity.py")
