"""Time scoring 504 EpiRec rankings with 2000 bootstrap resamples over every group.

Usage: python benchmarks/evaluate_speed.py [--data data/epirec_v1.json]
Times the library call (load, strict checks, scoring, signing), best of 5, excluding interpreter start.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path


def main() -> None:
    from memrecall.baseline import epirec_rankings_rows
    from memrecall.datasets.epirec import load_epirec
    from memrecall.evaluate import EvaluateOptions, evaluate_rankings
    from memrecall.io import write_jsonl
    from memrecall.retrievers.hashing import HashingRetriever
    from memrecall.runner import run_task

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", type=Path, default=Path("data/epirec_v1.json"))
    args = parser.parse_args()
    task = load_epirec(args.data)
    with tempfile.TemporaryDirectory() as folder:
        a, b = Path(folder) / "a.jsonl", Path(folder) / "b.jsonl"
        write_jsonl(a, epirec_rankings_rows(task, run_task(task, HashingRetriever())))
        write_jsonl(b, [{**row, "ranked_episode_ids": row["ranked_episode_ids"][::-1]}
                        for row in epirec_rankings_rows(task, run_task(task, HashingRetriever()))])
        for label, compare in (("evaluate", None), ("evaluate --compare", b)):
            times = []
            for _ in range(5):
                started = time.perf_counter()
                evaluate_rankings(EvaluateOptions(a, "epirec", args.data, compare))
                times.append(time.perf_counter() - started)
            print(f"{label}: {len(task.queries)} rankings, 2000 resamples, all groups: best {min(times):.3f} s")


if __name__ == "__main__":
    main()
