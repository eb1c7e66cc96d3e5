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
    from memrecall import evaluate_rankings, run_system
    from memrecall.benchmarks import get_benchmark
    from memrecall.data.rankings import rankings_rows
    from memrecall.io import write_jsonl
    from memrecall.systems.builtin.hashing import HashingRetriever

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", type=Path, default=Path("data/epirec_v1.json"))
    args = parser.parse_args()
    benchmark = get_benchmark("epirec")
    loaded = benchmark.load(args.data)
    result = run_system(HashingRetriever(), benchmark, loaded=loaded)
    rows = rankings_rows(loaded.task, result.rankings["hashing"], benchmark.row_keys)
    with tempfile.TemporaryDirectory() as folder:
        a, b = Path(folder) / "a.jsonl", Path(folder) / "b.jsonl"
        write_jsonl(a, rows)
        write_jsonl(b, [{**row, "ranked_episode_ids": row["ranked_episode_ids"][::-1]} for row in rows])
        for label, files in (("evaluate", [a]), ("compare (2 systems)", [a, b])):
            times = []
            for _ in range(5):
                started = time.perf_counter()
                evaluate_rankings(files, benchmark, loaded=loaded)
                times.append(time.perf_counter() - started)
            print(f"{label}: {len(loaded.task.queries)} rankings, 2000 resamples, all groups: best {min(times):.3f} s")


if __name__ == "__main__":
    main()
