"""LongMemEval at _s scale: speed and peak memory per mode, cold encoding throughput, windows vs truncation.

Usage:
  python benchmarks/generate_longmemeval.py --out /tmp/lme_synth_s.json
  python benchmarks/longmemeval_scale.py --data /tmp/lme_synth_s.json [--cold-questions 4] [--policy-questions 40]

1. fts5 over every question, as a fresh `memrecall longmemeval` process (wall time, peak RSS).
2. dense and hybrid with a warm cache: the cache is pre-filled with seeded random unit vectors under
   exactly the keys the encoder would use, so this measures the harness's warm path (cache reads,
   window max-sim, fusion, scoring) at full scale without hours of CPU encoding. Retrieval numbers
   from this step are meaningless and are not reported.
3. Cold encoding throughput with the real MiniLM on the first few questions' session windows, beside
   the encoder's theoretical CPU limit (FLOPs per token against the machine's peak).
4. Windows (best window of <= 160 words) vs plain truncation (the encoder's first 256 wordpieces), with
   real encodings, on the first questions: recall@1/5/10 of dense.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

LAYERS, HIDDEN, FFN, SEQUENCE = 6, 384, 1536, 256


def run_cli(args: list[str], env: dict) -> tuple[float, int]:
    """Wall seconds and peak RSS (MB) of one `memrecall` process, via GNU time when present."""
    command = [sys.executable, "-m", "memrecall", *args, "--quiet"]
    timer = shutil.which("time") or "/usr/bin/time"
    if os.path.exists(timer):
        with tempfile.NamedTemporaryFile("r") as stats:
            started = time.perf_counter()
            subprocess.run(
                [timer, "-f", "%M", "-o", stats.name, *command], check=True, env=env, stdout=subprocess.DEVNULL
            )
            elapsed = time.perf_counter() - started
            return elapsed, int(stats.read().strip().splitlines()[-1]) // 1024
    started = time.perf_counter()
    subprocess.run(command, check=True, env=env, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started, -1


def prefill_random(task, cache: Path) -> int:
    """Seeded random unit vectors for every window and query, under the encoder's own cache keys."""
    from memrecall.encoding.embeddings import Encoder, resolve_model, text_sha256
    from memrecall.encoding.vector_cache import VectorCache
    from memrecall.systems.builtin.windowed import split_windows

    key = Encoder(resolve_model(), cache).cache_key
    texts = {w for store in task.stores.values() for d in store for w in split_windows(d.text)}
    texts |= {d.text for store in task.stores.values() for d in store} | {q.text for q in task.queries}
    store, batch = VectorCache(cache), {}
    for text in texts:
        digest = text_sha256(text)
        vector = np.random.default_rng(int(digest[:16], 16)).standard_normal(HIDDEN).astype(np.float32)
        batch[digest] = vector / np.linalg.norm(vector)
        if len(batch) >= 20000:
            store.put_many(key, batch)
            batch = {}
    store.put_many(key, batch)
    return len(texts)


def flops_per_token() -> float:
    """Forward FLOPs per token of a MiniLM-L6 layer stack at a 256-token sequence (2 FLOPs per MAC)."""
    projections = 4 * HIDDEN * HIDDEN + 2 * HIDDEN * FFN
    attention = 2 * SEQUENCE * HIDDEN
    return 2.0 * LAYERS * (projections + attention)


def peak_flops() -> tuple[float, str]:
    """Peak FP32 FLOP/s: cores x clock x 32 (two 256-bit FMA pipes; AVX-512 runs as 2 x 256 on Zen 4)."""
    cores = os.cpu_count() or 1
    mhz = 0.0
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("cpu MHz"):
                mhz = float(line.split(":")[1])
                break
    except OSError:
        pass
    return cores * mhz * 1e6 * 32, f"{cores} cores x {mhz / 1000:.2f} GHz x 32 FP32 FLOP/cycle"


def cold_throughput(task, questions: int) -> dict:
    """Encode the first questions' session windows with the real model in a fresh cache."""
    from memrecall.encoding.embeddings import Encoder, resolve_model
    from memrecall.systems.builtin.windowed import split_windows

    stores = list(task.stores.values())[:questions]
    windows = [w for store in stores for d in store for w in split_windows(d.text)]
    with tempfile.TemporaryDirectory() as cache:
        encoder = Encoder(resolve_model(), Path(cache))
        model = encoder._load()
        tokens = sum(len(ids) for ids in model.tokenizer(windows, truncation=True, max_length=SEQUENCE)["input_ids"])
        started = time.perf_counter()
        encoder.encode(windows)
        elapsed = time.perf_counter() - started
    sessions = sum(len(s) for s in stores)
    return {
        "sessions": sessions,
        "windows": len(windows),
        "tokens": tokens,
        "seconds": elapsed,
        "sessions_per_s": sessions / elapsed,
        "tokens_per_s": tokens / elapsed,
    }


def policy_comparison(data: Path, questions: int) -> dict:
    """Dense recall with windows vs truncation on the first questions, real encodings."""
    from memrecall.benchmarks import get_benchmark
    from memrecall.running.harness import HarnessOptions, run_harness

    benchmark = get_benchmark("longmemeval")
    loaded = benchmark.load(data, max_instances=questions)
    out = {}
    with tempfile.TemporaryDirectory() as cache:
        for policy in ("windows", "truncate"):
            options = HarnessOptions(modes=["dense"], dense_policy=policy, cache=Path(cache), resamples=200)
            overall = run_harness(benchmark, loaded, options).report["content"]["systems"]["dense"]["results"][
                "overall"
            ]
            out[policy] = {m: overall[m]["value"] for m in ("recall@1", "recall@5", "recall@10")}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--cold-questions", type=int, default=4)
    parser.add_argument("--policy-questions", type=int, default=40)
    args = parser.parse_args()
    from memrecall.data.loaders.longmemeval import load_longmemeval

    size = args.data.stat().st_size / 1e6
    digest = hashlib.sha256(args.data.read_bytes()).hexdigest()[:12]
    print(f"data: {args.data} ({size:.0f} MB, sha256 {digest}...)")
    with tempfile.TemporaryDirectory() as folder:
        env = {**os.environ, "MEMRECALL_CACHE": str(Path(folder) / "cache")}
        seconds, rss = run_cli(
            ["longmemeval", "--data", str(args.data), "--modes", "fts5", "--output", str(Path(folder) / "fts5.json")],
            env,
        )
        print(f"fts5, all questions: {seconds:.1f} s, peak RSS {rss} MB")
        task = load_longmemeval(args.data, "perseus")
        print(f"questions {len(task.queries)}, sessions {sum(len(s) for s in task.stores.values())}")
        started = time.perf_counter()
        filled = prefill_random(task, Path(folder) / "cache")
        print(f"pre-filled {filled} random vectors in {time.perf_counter() - started:.0f} s")
        del task
        for mode in ("dense", "hybrid"):
            seconds, rss = run_cli(
                [
                    "longmemeval",
                    "--data",
                    str(args.data),
                    "--modes",
                    mode,
                    "--output",
                    str(Path(folder) / f"{mode}.json"),
                ],
                env,
            )
            print(f"{mode}, all questions, warm cache: {seconds:.1f} s, peak RSS {rss} MB")
    cold = cold_throughput(load_longmemeval(args.data, "perseus", args.cold_questions), args.cold_questions)
    peak, how = peak_flops()
    limit = peak / flops_per_token()
    print(
        f"cold encoding: {cold['sessions']} sessions ({cold['windows']} windows, {cold['tokens']} tokens) in "
        f"{cold['seconds']:.1f} s = {cold['sessions_per_s']:.2f} sessions/s, {cold['tokens_per_s']:.0f} tokens/s"
    )
    print(
        f"theoretical limit: {flops_per_token() / 1e6:.1f} MFLOP/token; peak {peak / 1e9:.0f} GFLOP/s ({how}) "
        f"-> {limit:.0f} tokens/s; measured is {cold['tokens_per_s'] / limit:.0%} of it"
    )
    for policy, values in policy_comparison(args.data, args.policy_questions).items():
        print(
            f"dense {policy} on the first {args.policy_questions} questions: "
            + ", ".join(f"{k} {v:.3f}" for k, v in values.items())
        )


if __name__ == "__main__":
    main()
