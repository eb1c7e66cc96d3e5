"""What the trust boundary costs: built-in `dense` (in-process, real ids) against the same code as an isolated
plug-in (a spawned worker, opaque ids, plain lists back), side by side in one run, warm embedding cache.

Usage:
  python benchmarks/isolation_overhead.py [--rounds 3] [--locomo ../shared/data/locomo10.json]

Each round runs `memrecall run BENCHMARK --system dense` and `--system benchmarks.dense_plugin:Dense...`
in fresh processes, alternating, from one scratch folder whose default cache both share (filled by a first,
untimed run; with --cold, emptied before every timed run, so each encodes everything, the untimed run
only warming the operating system's caches). The two reports must
hold the same rankings (rankings_sha256) and the same results.
Prints a Markdown table: median wall seconds of each, the overhead, and the isolated run's own breakdown.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def timed_run(folder: Path, benchmark: str, data: Path, spec: str, output: Path) -> tuple[float, dict]:
    """Wall seconds of one fresh `memrecall run`, and its report."""
    command = [sys.executable, "-m", "memrecall", "run", benchmark, "--system", spec, "--data", str(data)]
    command += ["--quiet", "--resamples", "200", "--output", str(output)]
    if spec != "dense":
        command += ["--name", "dense-plugin"]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    started = time.perf_counter()
    subprocess.run(command, cwd=folder, env=env, check=True, capture_output=True)
    return time.perf_counter() - started, json.loads(output.read_text(encoding="utf-8"))


def measure(benchmark: str, data: Path, plugin: str, rounds: int, cold: bool = False) -> dict:
    """Median wall time of built-in and plug-in dense on one benchmark, and the check that they agree.

    Warm: both share a cache filled by a first, untimed run. Cold: every run starts from an empty cache.
    """
    with tempfile.TemporaryDirectory(prefix="memrecall-isolation-") as scratch:
        folder = Path(scratch)
        timed_run(folder, benchmark, data, "dense", folder / "warm.json")  # fills the shared cache (warm), or
        # (cold) takes the operating system's one-time costs (page cache, compiled files) out of the first round
        times: dict[str, list[float]] = {"dense": [], plugin: []}
        reports = {}
        for _ in range(rounds):
            for spec in ("dense", plugin):
                if cold:
                    shutil.rmtree(folder / ".memrecall_cache", ignore_errors=True)
                seconds, reports[spec] = timed_run(folder, benchmark, data, spec, folder / "r.json")
                times[spec].append(seconds)
    builtin = next(iter(reports["dense"]["content"]["systems"].values()))
    isolated = next(iter(reports[plugin]["content"]["systems"].values()))
    if (builtin["rankings_sha256"], builtin["results"]) != (isolated["rankings_sha256"], isolated["results"]):
        raise SystemExit(f"{benchmark}: the plug-in's rankings differ from the built-in's")
    cost = reports[plugin]["env"]["cost"]["dense-plugin"]
    inside = reports["dense"]["env"]["cost"]["dense"]
    return {
        "benchmark": benchmark,
        "builtin": statistics.median(times["dense"]),
        "isolated": statistics.median(times[plugin]),
        "rounds": {k: [round(v, 2) for v in vs] for k, vs in times.items()},
        "isolated_prepare": cost["prepare_seconds"],
        "builtin_prepare": inside["prepare_seconds"],
        "isolated_total": cost["total_seconds"],
        "builtin_total": inside["total_seconds"],
        "queries": cost["queries"],
    }


def main() -> None:
    """Measure EpiRec v2 and, when its file is given, LoCoMo turn; print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--locomo", type=Path, default=ROOT.parent / "shared" / "data" / "locomo10.json")
    parser.add_argument("--cold", action="store_true", help="Every run from an empty embedding cache.")
    args = parser.parse_args()
    cases = [("epirec", ROOT / "data" / "epirec_v2.json", "benchmarks.dense_plugin:DenseTruncate")]
    if args.locomo.is_file():
        cases.append(("locomo-turn", args.locomo.resolve(), "benchmarks.dense_plugin:DenseWindows"))
    print(
        "| benchmark | queries | built-in dense, s | plug-in dense, s | overhead | in-run total, built-in / plug-in |"
    )
    print("|---|---|---|---|---|---|")
    for benchmark, data, plugin in cases:
        m = measure(benchmark, data, plugin, args.rounds, args.cold)
        overhead = 100.0 * (m["isolated"] - m["builtin"]) / m["builtin"]
        print(
            f"| {benchmark} | {m['queries']} | {m['builtin']:.2f} | {m['isolated']:.2f} | {overhead:+.1f} % | "
            f"{m['builtin_total']:.2f} / {m['isolated_total']:.2f} s |"
        )
        print(json.dumps(m, sort_keys=True), file=sys.stderr)


if __name__ == "__main__":
    main()
