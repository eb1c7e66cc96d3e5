"""The onnx encoder backend against torch, side by side in one run: cold baseline, throughput, imports, int8.

Usage:
  python benchmarks/generate_longmemeval.py --out /tmp/lme_synth_s.json
  python benchmarks/onnx_speed.py --lme /tmp/lme_synth_s.json [--rounds 3] [--questions 2] [--locomo FILE]

1. Cold `memrecall baseline --strategies recency,hashing,dense` (EpiRec v2), torch against onnx, each in a
   fresh process with an empty embedding cache, alternating for --rounds rounds. The onnx cache folder gets
   the one-time export copied in (the export itself is timed once, separately).
2. Import time of each path in a fresh process: onnxruntime + tokenizers + the onnx encoder module against
   sentence_transformers.
3. Cold encoding throughput on the first --questions questions of a generated LongMemEval file (every
   <= 160-word window of every session): torch, onnx fp32 and onnx int8 in turn, fresh cache each, as
   sessions/s, tokens/s and a share of the machine's FP32 peak, and the projected cold `_s` time.
4. Recall of dense with int8 against fp32 on EpiRec v2 and v1.0, LoCoMo session and turn, and the
   generated LongMemEval questions.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from longmemeval_scale import flops_per_token, peak_flops  # noqa: E402

S_SESSIONS = 24_000
BACKENDS = (("torch", "fp32"), ("onnx", "fp32"), ("onnx", "int8"))


def make_exports(folder: Path) -> float:
    """Export fp32 and quantize int8 into `folder`; the seconds it took."""
    from memrecall.encoding.encoders import export_for

    started = time.perf_counter()
    for precision in ("fp32", "int8"):
        export_for(folder, precision)
    return time.perf_counter() - started


def timed(command: list[str]) -> float:
    """Wall seconds of one fresh process."""
    started = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - started


def cold_baselines(data: Path, exports: Path, rounds: int) -> dict:
    """Wall times of cold baselines, torch and onnx alternating, empty vector cache each time."""
    times: dict[str, list[float]] = {"torch": [], "onnx": []}
    for number in range(rounds):
        order = ("torch", "onnx") if number % 2 == 0 else ("onnx", "torch")
        for backend in order:
            with tempfile.TemporaryDirectory() as work:
                cache = Path(work) / "cache"
                if backend == "onnx":
                    shutil.copytree(exports / "onnx", cache / "onnx")
                command = [sys.executable, "-m", "memrecall", "baseline", "--data", str(data), "--quiet"]
                command += ["--strategies", "recency,hashing,dense", "--cache-dir", str(cache)]
                command += ["--encoder-backend", backend, "--output", str(Path(work) / "out.json")]
                times[backend].append(timed(command))
    return times


def import_times(rounds: int) -> dict:
    """Seconds to import each path's engine in a fresh process (median of `rounds`)."""
    code = {
        "onnx": "import onnxruntime, tokenizers, memrecall.encoding.onnx_encoder",
        "torch": "import sentence_transformers",
    }
    out: dict[str, list[float]] = {name: [] for name in code}
    for _ in range(rounds):
        for name, statement in code.items():
            probe = f"import time; t = time.perf_counter(); {statement}; print(time.perf_counter() - t)"
            done = subprocess.run([sys.executable, "-c", probe], check=True, capture_output=True, text=True)
            out[name].append(float(done.stdout.strip().splitlines()[-1]))
    return out


def throughput(lme: Path, questions: int, exports: Path) -> dict:
    """Cold encoding of the first questions' windows with each backend in turn."""
    from memrecall.benchmarks import get_benchmark
    from memrecall.encoding.backends import EncoderBackend
    from memrecall.encoding.embeddings import Encoder, resolve_model
    from memrecall.encoding.onnx_encoder import FolderTokenizer
    from memrecall.systems.builtin.windowed import split_windows

    task = get_benchmark("longmemeval").load(lme, max_instances=questions).task
    stores = list(task.stores.values())
    windows = [w for store in stores for d in store for w in split_windows(d.text)]
    source = resolve_model()
    tokens = sum(FolderTokenizer(source.location).token_counts(windows))
    sessions = sum(len(s) for s in stores)
    peak, how = peak_flops()
    out = {"sessions": sessions, "windows": len(windows), "tokens": tokens, "peak": how, "runs": {}}
    for name, precision in BACKENDS:
        with tempfile.TemporaryDirectory() as cache:
            shutil.copytree(exports / "onnx", Path(cache) / "onnx")
            encoder = Encoder(source, Path(cache), backend=EncoderBackend(name, precision))
            encoder.load()
            started = time.perf_counter()
            encoder.encode(windows)
            seconds = time.perf_counter() - started
        out["runs"][f"{name} {precision}"] = {
            "seconds": seconds,
            "sessions_per_s": sessions / seconds,
            "tokens_per_s": tokens / seconds,
            "share_of_fp32_peak": tokens / seconds * flops_per_token() / peak,
            "projected_cold_s_hours": S_SESSIONS / (sessions / seconds) / 3600,
        }
    return out


def recall_deltas(lme: Path, questions: int, locomo: Path | None, exports: Path) -> dict:
    """Dense recall@k (overall) of onnx fp32 and int8 on every benchmark reachable here."""
    from memrecall.benchmarks import get_benchmark
    from memrecall.running.baseline import BaselineOptions, run_baseline
    from memrecall.running.harness import HarnessOptions, run_harness
    from memrecall.scoring.policy import ScoringConfig

    out: dict = {}
    with tempfile.TemporaryDirectory() as cache:
        shutil.copytree(exports / "onnx", Path(cache) / "onnx")
        for release in ("data/epirec_v2.json", "data/epirec_v1.json"):
            for precision in ("fp32", "int8"):
                options = BaselineOptions(
                    Path(release),
                    ["dense"],
                    cache=Path(cache),
                    backend="onnx",
                    precision=precision,
                    scoring=ScoringConfig(resamples=100),
                )
                overall = run_baseline(options).report["content"]["systems"]["dense"]["results"]["overall"]
                out.setdefault(release, {})[precision] = _recalls(overall)
        harnesses = [("longmemeval", lme, "session", {"max_instances": questions})]
        if locomo is not None and locomo.exists():
            harnesses += [("locomo", locomo, "session", {}), ("locomo-turn", locomo, "turn", {})]
        for name, path, granularity, extra in harnesses:
            benchmark = get_benchmark(name)
            loaded = benchmark.load(path, **extra)
            for precision in ("fp32", "int8"):
                options = HarnessOptions(
                    modes=["dense"], cache=Path(cache), resamples=100, backend="onnx", precision=precision
                )
                overall = run_harness(benchmark, loaded, options).report["content"]["systems"]["dense"]["results"]
                out.setdefault(f"{name} {granularity}", {})[precision] = _recalls(overall["overall"])
    return out


def _recalls(overall: dict) -> dict:
    """The recall@k values of an `overall` results block."""
    return {m: v["value"] for m, v in overall.items() if m.startswith("recall") and isinstance(v, dict)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lme", type=Path, required=True, help="a generated LongMemEval file")
    parser.add_argument(
        "--locomo", type=Path, default=Path(__file__).resolve().parents[2] / "shared/data/locomo10.json"
    )
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--questions", type=int, default=2)
    parser.add_argument("--skip", default="", help="comma-separated steps to skip: cold,imports,throughput,recall")
    args = parser.parse_args()
    skip = set(args.skip.split(","))
    results: dict = {}
    with tempfile.TemporaryDirectory() as exports:
        results["export_seconds"] = make_exports(Path(exports))
        if "cold" not in skip:
            cold = cold_baselines(Path("data/epirec_v2.json"), Path(exports), args.rounds)
            results["cold_baseline"] = {
                **cold,
                "median_ratio_onnx_to_torch": statistics.median(cold["onnx"]) / statistics.median(cold["torch"]),
            }
        if "imports" not in skip:
            results["import_seconds"] = import_times(args.rounds)
        if "throughput" not in skip:
            results["throughput"] = throughput(args.lme, args.questions, Path(exports))
        if "recall" not in skip:
            results["recall"] = recall_deltas(args.lme, args.questions, args.locomo, Path(exports))
    print(json.dumps(results, indent=2, sort_keys=True))


if __name__ == "__main__":
    main()
