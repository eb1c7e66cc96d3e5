"""Time the five-strategy baseline on the EpiRec release with a cold and a warm embedding cache.

Usage: python benchmarks/baseline_speed.py [--data data/epirec_v1.json]
Prints wall times and the encoder's sentences per second; figures go into benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def timed(command: list[str], env: dict) -> float:
    """Wall seconds of one command run as a fresh process (so model loading is counted)."""
    started = time.perf_counter()
    subprocess.run(command, check=True, env=env, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started


def encoder_throughput(data: Path) -> tuple[int, float]:
    """Sentences per second encoding every distinct episode and probe text once, cold."""
    from memrecall.data.loaders.epirec import load_epirec
    from memrecall.encoding.embeddings import Encoder, resolve_model

    task = load_epirec(data)
    texts = sorted({d.text for s in task.stores.values() for d in s} | {q.text for q in task.queries})
    with tempfile.TemporaryDirectory() as cache:
        encoder = Encoder(resolve_model(), Path(cache))
        encoder._load()
        started = time.perf_counter()
        encoder.encode(texts)
        return len(texts), len(texts) / (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", type=Path, default=Path("data/epirec_v1.json"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        env = {**os.environ, "MEMRECALL_CACHE": str(Path(folder) / "cache")}
        command = [
            sys.executable,
            "-m",
            "memrecall",
            "baseline",
            "--data",
            str(args.data),
            "--quiet",
            "--output",
            str(Path(folder) / "report.json"),
        ]
        cold = timed(command, env)
        warm = min(timed(command, env) for _ in range(3))
    count, rate = encoder_throughput(args.data)
    print(f"cpu cores: {os.cpu_count()}")
    print(f"five-strategy baseline, cold embedding cache: {cold:.1f} s")
    print(f"five-strategy baseline, warm embedding cache (best of 3): {warm:.1f} s")
    print(f"encoder: {count} distinct texts at {rate:.0f} sentences/s (model load excluded)")


if __name__ == "__main__":
    main()
