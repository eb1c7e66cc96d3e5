"""dense, fts5 and hybrid on REALTALK, Locomo-Plus and BEAM-128K: results, cold dense time and peak memory.

Usage:
  python benchmarks/new_benchmarks.py --shared ../shared/data [--only realtalk,beam] [--out results/new_benchmarks.json]

Each benchmark runs as fresh `memrecall run BENCHMARK --system <mode>` processes: dense first, then fts5, then
hybrid on the cache dense filled. Dense starts from an empty embedding cache (cold: interpreter, torch, model
load, encoding every window, scoring), except where CACHE_OF shares one: the all-cues layouts of Locomo-Plus hold
the same texts as the one-cue layouts, so their dense runs are warm. Wall time, CPU time (user + system) and
peak RSS come from GNU time; on a shared machine CPU time is the steadier figure. The results are each report's
overall headline (recall@1, @5, @10 and MRR, read down to rank 10), n scored, and for BEAM the knowledge-update
count of questions whose stale message outranks the updated one.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RUNS = {
    "realtalk": "realtalk",
    "realtalk-turn": "realtalk",
    "locomo-plus": "locomo_plus/locomo_plus.json",
    "locomo-plus-turn": "locomo_plus/locomo_plus.json",
    "locomo-plus-all": "locomo_plus/locomo_plus.json",
    "locomo-plus-all-turn": "locomo_plus/locomo_plus.json",
    "beam": "beam_128k",
    "beam-pairs": "beam_128k",
}
CACHE_OF = {"locomo-plus-all": "locomo-plus", "locomo-plus-all-turn": "locomo-plus-turn"}
MODES = ("dense", "fts5", "hybrid")
SHOWN = ("recall@1", "recall@5", "recall@10", "mrr")


def timed(args: list[str], env: dict) -> tuple[float, float, int]:
    """Wall seconds, CPU seconds (user + system) and peak RSS (MB) of one `memrecall` process, from GNU time."""
    with tempfile.NamedTemporaryFile("r") as stats:
        started = time.perf_counter()
        command = ["/usr/bin/time", "-f", "%U %S %M", "-o", stats.name, sys.executable, "-m", "memrecall", *args]
        subprocess.run([*command, "--quiet"], check=True, env=env, stdout=subprocess.DEVNULL)
        wall = time.perf_counter() - started
        user, system, peak = stats.read().strip().splitlines()[-1].split()
    return wall, float(user) + float(system), int(peak) // 1024


def measure(name: str, data: Path, work: Path) -> dict:
    """One benchmark's three modes: wall and CPU seconds, peak RSS (MB) and overall results of each."""
    cache = work / f"cache-{CACHE_OF.get(name, name)}"
    env = {**os.environ, "MEMRECALL_CACHE": str(cache)}
    cold = not cache.exists()
    out: dict = {"benchmark": name}
    for mode in MODES:
        report = work / f"{name}.{mode}.json"
        args = ["run", name, "--system", mode, "--data", str(data), "--cache-dir", str(cache), "--output", str(report)]
        seconds, cpu, peak = timed(args, env)
        entry = json.loads(report.read_text())["content"]["systems"][mode]
        overall = entry["results"]["overall"]
        row = {"wall_s": round(seconds, 1), "cpu_s": round(cpu, 1), "peak_rss_mb": peak, "n": overall["n"]}
        row |= {"cold": cold} if mode == "dense" else {}
        row |= {m: round(overall[m]["value"], 3) for m in SHOWN}
        if "knowledge_update" in entry:
            row["knowledge_update"] = entry["knowledge_update"]
        out[mode] = row
        print(json.dumps({name: {mode: row}}), flush=True)
    return out


def main() -> None:
    """Run the chosen benchmarks and write every row as one JSON file."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, required=True, help="the folder holding the benchmarks' files")
    parser.add_argument("--only", default=",".join(RUNS), help="comma-separated benchmark names")
    parser.add_argument("--out", type=Path, default=Path("results/new_benchmarks.json"))
    args = parser.parse_args()
    names = [n for n in args.only.split(",") if n]
    unknown = [n for n in names if n not in RUNS]
    if unknown:
        sys.exit(f"unknown benchmark {unknown[0]}; choose from {', '.join(RUNS)}")
    with tempfile.TemporaryDirectory() as work:
        rows = [measure(n, args.shared / RUNS[n], Path(work)) for n in names]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(rows, indent=2) + "\n")


if __name__ == "__main__":
    main()
