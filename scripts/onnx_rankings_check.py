"""Regenerate every committed report with torch and with onnx fp32 and compare rankings.

Usage: `python scripts/onnx_rankings_check.py [LOCOMO_FILE]` (default ../shared/data/locomo10.json).

For each report scripts/check_signatures.py checks, both backends write the report and its rankings into a
temporary folder (one embedding cache per backend, shared by the reports). Printed per report: the queries
ranked differently per strategy or mode, and whether the onnx report's content equals the committed one once
the encoder identity's backend and precision are set aside (the only part an onnx default would change).
Then, for dense on every benchmark with a difference, in this process: how many queries rank differently
and how many of those are not ties in torch's scores (a swapped pair more than 1e-5 apart).
Exit 1 when any ranking differs.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
from check_signatures import LOCOMO, LOCOMO_REPORTS, REPORTS  # noqa: E402


def without_backend(value):
    """Content with `backend` and `precision` removed from every encoder identity."""
    if isinstance(value, dict):
        skip = ("backend", "precision") if "weights_sha256" in value else ()
        return {k: without_backend(v) for k, v in value.items() if k not in skip}
    if isinstance(value, list):
        return [without_backend(v) for v in value]
    return value


def regenerate(args: list[str], backend: str, folder: Path, cache: Path) -> tuple[dict, dict[str, list]]:
    """One report and its rankings (file name -> rows) from one backend."""
    folder.mkdir(parents=True)
    rankings = folder / "rankings" if args[0] == "baseline" else folder / "rankings.jsonl"
    command = [sys.executable, "-m", "memrecall", *args, "--quiet", "--output", str(folder / "report.json")]
    command += ["--cache-dir", str(cache), "--encoder-backend", backend, "--export-rankings", str(rankings)]
    subprocess.run(command, cwd=ROOT, check=True, capture_output=True, text=True)
    files = sorted(folder.rglob("*.jsonl"))
    rows = {f.name: [json.loads(line) for line in f.read_text(encoding="utf-8").splitlines()] for f in files}
    return json.loads((folder / "report.json").read_text(encoding="utf-8")), rows


TIE_CHECKS = {"site/locomo_session.json": "locomo", "site/locomo_turn.json": "locomo-turn"}


def tie_check(benchmark_name: str, data: Path) -> str:
    """Dense on every query with each backend: queries ranked differently, and those not by ties."""
    from memrecall.benchmarks import get_benchmark
    from memrecall.encoding.backends import EncoderBackend
    from memrecall.encoding.embeddings import Encoder, resolve_model
    from memrecall.running.agreement import TIE, dense_rankings, untied_differences

    benchmark = get_benchmark(benchmark_name)
    task = benchmark.load(data).task
    with tempfile.TemporaryDirectory() as cache:
        runs = [
            dense_rankings(
                Encoder(resolve_model(), Path(cache), backend=EncoderBackend(name)), task, benchmark.dense_policy
            )
            for name in ("torch", "onnx")
        ]
    different, untied = untied_differences(*runs)
    queries = f"{different} of {len(runs[0])} queries ranked differently"
    return f"dense on {benchmark_name}: {queries}, {len(untied)} not by ties within {TIE} {untied[:5]}"


def main() -> int:
    """Compare rankings and content of each committed report under both backends."""
    import argparse

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("locomo", nargs="?", type=Path, default=LOCOMO, help=f"locomo10.json [default: {LOCOMO}]")
    locomo = parser.parse_args().locomo  # a worktree's ../shared may be elsewhere
    locomo_reports = [(name, [str(locomo) if a == str(LOCOMO) else a for a in args]) for name, args in LOCOMO_REPORTS]
    reports = REPORTS + (locomo_reports if locomo.exists() else [])
    if not locomo.exists():
        print(f"{locomo} is not present; LoCoMo reports not checked", file=sys.stderr)
    differing = 0
    with tempfile.TemporaryDirectory() as temp:
        for committed, args in reports:
            name = Path(committed).stem
            torch_report, torch_rows = regenerate(args, "torch", Path(temp) / "torch" / name, Path(temp) / "c-torch")
            onnx_report, onnx_rows = regenerate(args, "onnx", Path(temp) / "onnx" / name, Path(temp) / "c-onnx")
            counts = {
                file: sum(a != b for a, b in zip(rows, onnx_rows[file], strict=True))
                for file, rows in torch_rows.items()
            }
            differing += sum(counts.values())
            reference = json.loads((ROOT / committed).read_text(encoding="utf-8"))["content"]
            same_content = without_backend(onnx_report["content"]) == reference
            torch_same = torch_report["content"] == reference
            queries = {file: len(rows) for file, rows in torch_rows.items()}
            print(
                f"{committed}: queries ranked differently {counts} of {queries}; onnx content equals committed "
                f"apart from backend: {same_content}; torch content equals committed: {torch_same}",
                flush=True,
            )
            if sum(counts.values()) and committed in TIE_CHECKS:
                print(tie_check(TIE_CHECKS[committed], locomo), flush=True)
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main())
