"""What the trust boundary costs: built-in `dense` (in-process, real ids) against the same code as a plug-in
(a spawned worker, opaque ids, plain lists back), run unsandboxed (`--sandbox none`) and inside bubblewrap
(`--sandbox bwrap`, the default), side by side, warm or cold embedding cache.

Usage:
  python benchmarks/isolation_overhead.py [--rounds 3] [--locomo ../shared/data/locomo10.json] [--cold]
      [--only locomo-turn]
  python benchmarks/isolation_overhead.py --startup 10

Run --startup under `setsid` (its own session and scheduler autogroup, which bubblewrap's --new-session
gives a sandboxed worker too). --startup N times only what the sandbox adds to every run, N rounds
alternating: a worker started,
`benchmarks.dense_plugin:DenseWindows` imported and built (its encoder is loaded on first use, so this is
the import of memrecall's dense stack, numpy and the plug-in), its declarations read, and the worker ended,
with and without bubblewrap.

Each round runs `memrecall run BENCHMARK --system dense`, then `--system benchmarks.dense_plugin:Dense...`
with `--sandbox none` and with `--sandbox bwrap`, each a fresh process, from one scratch folder. The built-in
reads the scorer's cache (--cache-dir); the plug-ins read their own (MEMRECALL_CACHE, passed with --pass-env):
a sandboxed worker never sees the scorer's cache, so warm, it is given its own pre-filled cache read-only
(--allow-read), as a user would. A first, untimed round fills both caches (warm) or, with --cold, only warms
the operating system's caches, and every timed run then starts from empty caches (the sandboxed plug-in then
encodes into its private scratch folder). The reports must hold the same rankings (rankings_sha256) and the
same results. Prints a Markdown table: median wall seconds of each, and the two overheads.
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
ARMS = ("dense", "none", "bwrap")


def timed_run(folder: Path, benchmark: str, data: Path, spec: str, arm: str, cold: bool) -> tuple[float, dict]:
    """Wall seconds of one fresh `memrecall run` of one arm, and its report."""
    output = folder / f"{arm}.json"
    command = [sys.executable, "-m", "memrecall", "run", benchmark, "--data", str(data), "--quiet"]
    command += ["--resamples", "200", "--output", str(output), "--cache-dir", str(folder / "scorer-cache")]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    env.pop("MEMRECALL_CACHE", None)
    if arm == "dense":
        command += ["--system", "dense"]
    else:
        command += ["--system", spec, "--name", "dense-plugin", "--sandbox", arm]
        if not (cold and arm == "bwrap"):  # cold and sandboxed: it encodes into its private scratch folder
            env["MEMRECALL_CACHE"] = str(folder / "plugin-cache")
            command += ["--pass-env", "MEMRECALL_CACHE"]
            command += ["--allow-read", str(folder / "plugin-cache")] if arm == "bwrap" else []
    started = time.perf_counter()
    # its own session, so its own scheduler autogroup, as bubblewrap's --new-session gives a sandboxed worker:
    # on a loaded machine, a worker in a fresh autogroup otherwise gets far more CPU than one that shares
    subprocess.run(command, cwd=folder, env=env, check=True, capture_output=True, start_new_session=True)
    return time.perf_counter() - started, json.loads(output.read_text(encoding="utf-8"))


def measure(benchmark: str, data: Path, plugin: str, rounds: int, cold: bool = False) -> dict:
    """Median wall time of each arm on one benchmark, and the check that they agree."""
    with tempfile.TemporaryDirectory(prefix="memrecall-isolation-") as scratch:
        folder = Path(scratch)
        (folder / "plugin-cache").mkdir()
        for arm in ("dense", "none"):  # fills both caches (warm), or takes the one-time costs out (cold)
            timed_run(folder, benchmark, data, plugin, arm, False)
        times: dict[str, list[float]] = {arm: [] for arm in ARMS}
        reports = {}
        for _ in range(rounds):
            for arm in ARMS:
                if cold:
                    for cache in ("scorer-cache", "plugin-cache"):
                        shutil.rmtree(folder / cache, ignore_errors=True)
                        (folder / cache).mkdir()
                times[arm].append(timed_run(folder, benchmark, data, plugin, arm, cold)[0])
                reports[arm] = json.loads((folder / f"{arm}.json").read_text(encoding="utf-8"))
    entries = {arm: next(iter(r["content"]["systems"].values())) for arm, r in reports.items()}
    if len({(e["rankings_sha256"], json.dumps(e["results"], sort_keys=True)) for e in entries.values()}) != 1:
        raise SystemExit(f"{benchmark}: the arms' rankings differ")
    if entries["bwrap"]["identity"]["isolation"] != "sandbox":
        raise SystemExit(f"{benchmark}: the bwrap arm did not run sandboxed")
    return {
        "benchmark": benchmark,
        "cache": "cold" if cold else "warm",
        **{arm: statistics.median(times[arm]) for arm in ARMS},
        "rounds": {k: [round(v, 2) for v in vs] for k, vs in times.items()},
        "queries": reports["bwrap"]["env"]["cost"]["dense-plugin"]["queries"],
        "cache_vectors_checked": reports["dense"]["env"].get("cache_vectors_checked"),
    }


def startup(rounds: int) -> dict:
    """Median seconds to start a worker, load the plug-in and end it, unsandboxed and sandboxed."""
    sys.path[:] = [str(ROOT), *(p for p in sys.path if p != str(ROOT / "benchmarks"))]
    os.chdir(tempfile.mkdtemp(prefix="memrecall-startup-"))  # as `run` starts workers: from a scratch folder
    from memrecall.running.boundary.identity import code_manifest
    from memrecall.running.boundary.isolated import Plugin

    spec = "benchmarks.dense_plugin:DenseWindows"
    code = code_manifest(spec)
    times: dict[str, list[float]] = {"none": [], "bwrap": []}
    for _ in range(rounds + 1):  # the first round is untimed: it warms the operating system's caches
        for arm, isolation in (("none", "process"), ("bwrap", "sandbox")):
            plugin = Plugin(spec, "dense-plugin", isolation, code=code)
            started = time.perf_counter()
            worker = plugin.worker("dense-plugin")
            worker.call("load", "import and construction", **plugin.load_payload(sys.path, os.getcwd()))
            worker.finish()
            times[arm].append(time.perf_counter() - started)
    return {arm: statistics.median(values[1:]) for arm, values in times.items()} | {"rounds": times}


def main() -> None:
    """Measure EpiRec v2 and, when its file is given, LoCoMo turn; print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--locomo", type=Path, default=ROOT.parent / "shared" / "data" / "locomo10.json")
    parser.add_argument("--cold", action="store_true", help="Every run from empty embedding caches.")
    parser.add_argument("--only", default=None, help="Measure one benchmark (epirec or locomo-turn).")
    parser.add_argument("--startup", type=int, default=0, help="Time only a worker's start and end, N rounds.")
    args = parser.parse_args()
    if args.startup:
        m = startup(args.startup)
        print(
            f"worker start, plug-in load and end: {m['none']:.3f} s unsandboxed, {m['bwrap']:.3f} s sandboxed "
            f"({m['bwrap'] - m['none']:+.3f} s)"
        )
        print(json.dumps(m["rounds"]), file=sys.stderr)
        return
    cases = [("epirec", ROOT / "data" / "epirec_v2.json", "benchmarks.dense_plugin:DenseTruncate")]
    if args.locomo.is_file():
        cases.append(("locomo-turn", args.locomo.resolve(), "benchmarks.dense_plugin:DenseWindows"))
    cases = [c for c in cases if args.only in (None, c[0])]
    print("| benchmark | cache | queries | built-in dense | plug-in, no sandbox | plug-in, sandbox | sandbox cost |")
    print("|---|---|---|---|---|---|---|")
    for benchmark, data, plugin in cases:
        m = measure(benchmark, data, plugin, args.rounds, args.cold)
        overhead = 100.0 * (m["bwrap"] - m["none"]) / m["none"]
        print(
            f"| {benchmark} | {m['cache']} | {m['queries']} | {m['dense']:.2f} s | {m['none']:.2f} s | "
            f"{m['bwrap']:.2f} s | {overhead:+.1f} % ({m['bwrap'] - m['none']:+.2f} s) |"
        )
        print(json.dumps(m, sort_keys=True), file=sys.stderr)


if __name__ == "__main__":
    main()
