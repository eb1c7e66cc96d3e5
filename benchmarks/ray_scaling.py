"""Encoding throughput with --executor local and ray (1 and 2 workers), and Ray's fixed start-up cost.

Usage: python benchmarks/ray_scaling.py [--questions 5] [--out /tmp/ray_scaling.json]

Generates an _s-shaped file (48 sessions per question), then runs `memrecall longmemeval --modes
dense` on its first questions with a cold embedding cache, once per executor, as separate
processes. Reports wall time, texts encoded (session windows and questions) and sessions per second,
and checks that every executor wrote byte-identical rankings. The Ray overhead is the wall-time
difference of an fts5 run on the small fixture with and without Ray.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def timed(args: list[str]) -> float:
    """Wall seconds of one memrecall process."""
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "memrecall", *args, "--quiet"], check=True, cwd=ROOT, stdout=subprocess.DEVNULL
    )
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--questions", type=int, default=5)
    parser.add_argument("--out", type=Path, default=Path("/tmp/ray_scaling.json"))
    args = parser.parse_args()
    results: dict = {"questions": args.questions, "runs": {}}
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        data = tmp / "lme_s.json"
        subprocess.run(
            [
                sys.executable,
                str(ROOT / "benchmarks" / "generate_longmemeval.py"),
                "--out",
                str(data),
                "--questions",
                str(args.questions),
            ],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        rankings = {}
        for label, extra in (
            ("local", []),
            ("ray, 1 worker", ["--executor", "ray", "--workers", "1"]),
            ("ray, 2 workers", ["--executor", "ray", "--workers", "2"]),
        ):
            name = label.replace(", ", "-").replace(" ", "")
            out = tmp / f"{name}.json"
            seconds = timed(
                [
                    "longmemeval",
                    "--data",
                    str(data),
                    "--modes",
                    "dense",
                    "--cache-dir",
                    str(tmp / name),
                    "--output",
                    str(out),
                    "--export-rankings",
                    str(tmp / f"{name}.jsonl"),
                    *extra,
                ]
            )
            env = json.loads(out.read_text())["env"]
            sessions = args.questions * 48
            results["runs"][label] = {
                "wall_seconds": round(seconds, 1),
                "texts_encoded": env["texts_encoded"],
                "sessions_per_second": round(sessions / seconds, 2),
            }
            rankings[label] = (tmp / f"{name}.jsonl").read_bytes()
            print(label, results["runs"][label], flush=True)
        results["rankings_identical"] = len(set(rankings.values())) == 1
        fixture = ROOT / "tests" / "fixtures" / "lme_format_mini.json"
        local = min(
            timed(["longmemeval", "--data", str(fixture), "--modes", "fts5", "--output", str(tmp / "a.json")])
            for _ in range(2)
        )
        ray = min(
            timed(
                [
                    "longmemeval",
                    "--data",
                    str(fixture),
                    "--modes",
                    "fts5",
                    "--output",
                    str(tmp / "b.json"),
                    "--executor",
                    "ray",
                    "--workers",
                    "2",
                ]
            )
            for _ in range(2)
        )
        results["ray_overhead_seconds"] = round(ray - local, 1)
        results["fixture_seconds"] = {"local": round(local, 1), "ray": round(ray, 1)}
    args.out.write_text(json.dumps(results, indent=2) + "\n")
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
