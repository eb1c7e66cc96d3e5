"""Every LoCoMo leaderboard row on official and on audited gold, and the difference: a Markdown table.

Usage:
  python scripts/locomo_audited_delta.py --data ../shared/data/locomo10.json [--entries site/leaderboard/entries]

Each system's committed rankings (site/leaderboard/entries/locomo*/<system>.rankings.jsonl.gz) are scored twice
with memrecall's own scoring: on the evidence as released (`--gold official`) and on the evidence the
dial481/locomo-audit corrected (`--gold audited`, errors.json read from locomo_audit/ beside --data). The audited
headline holds one question fewer (conv-47:qa11, whose audited evidence is empty).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from memrecall.api import evaluate_rankings
from memrecall.benchmarks import get_benchmark

METRICS = ("recall@5", "recall@10")


def overall(benchmark: str, rankings: Path, loaded) -> dict[str, float]:
    """The overall headline values of one rankings file on one loaded task."""
    result = evaluate_rankings(rankings, benchmark, loaded=loaded, names=["system"], resamples=100)
    values = result.metrics["overall"]
    return {m: values[m]["value"] for m in METRICS} | {"n": values["n"]}


def main() -> None:
    """Print the table, one row per benchmark and system."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--entries", type=Path, default=Path("site/leaderboard/entries"))
    args = parser.parse_args()
    print(
        "| benchmark | system | n official / audited | "
        + " | ".join(f"{m} official | {m} audited | difference" for m in METRICS)
        + " |"
    )
    print("|---|---|---|" + "---|---|---|" * len(METRICS))
    for name in ("locomo", "locomo-turn"):
        benchmark = get_benchmark(name)
        official = benchmark.load(args.data)
        audited = benchmark.load(args.data, gold="audited")
        for rankings in sorted((args.entries / name).glob("*.rankings.jsonl.gz")):
            system = rankings.name.removesuffix(".rankings.jsonl.gz")
            before, after = overall(name, rankings, official), overall(name, rankings, audited)
            cells = " | ".join(f"{before[m]:.3f} | {after[m]:.3f} | {after[m] - before[m]:+.3f}" for m in METRICS)
            print(f"| {name} | {system} | {before['n']} / {after['n']} | {cells} |")


if __name__ == "__main__":
    main()
