"""`python -m memrecall` runs the command line."""

from memrecall.cli import main

main()
