"""memrecall: does your agent memory recall the right memory?"""

__version__ = "0.1.0"

from memrecall.api import Result, evaluate_rankings, run_system  # noqa: E402

__all__ = ["Result", "__version__", "evaluate_rankings", "run_system"]
