"""Measure memory products on the full LoCoMo release under the standard definitions and under their claims' own.

    .venv/bin/python scripts/measure_claims.py --locomo ../shared/data/locomo10.json [--systems taosmd,engram]

Each product ranks every LoCoMo question once, at turn level, over whole stores (so every ranking reaches k
distinct sessions). The same rankings are then scored four ways: by turn or by session (`--unit session`:
the first k distinct sessions), with category 5 (adversarial) apart or in the headline (`--category5`).
Each product also runs on the leaderboard's generated LongMemEval file (scripts/leaderboard.py's seeded
generator arguments). The figures go to site/claims.json (merged by system, sorted keys), which
docs/claims.md's table is rendered from (`--render` only rewrites that table).
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
CLAIMS_JSON = ROOT / "site" / "claims.json"
CLAIMS_DOC = ROOT / "docs" / "claims.md"
PRODUCTS = "taosmd,taosmd-api,dory,dory-seeds,mneme,fluctlightdb,fluctlightdb-index,engram,midas,midas-hashing,dense"
DEFINITIONS = {  # name -> (unit, category5)
    "turn": (None, "apart"),
    "session": ("session", "apart"),
    "turn, category 5 in": (None, "headline"),
    "session, category 5 in": ("session", "headline"),
}
METRICS = ("recall@5", "recall@10", "frac_recall@5")
LONGMEMEVAL_ARGS = ("--questions", "50", "--sessions", "10", "--turns", "4", "--assistant-words", "80", "--seed", "7")
MARK = "<!-- claims-table -->"


def scored(result) -> dict:
    """The headline values (with 95% CI) and the counts of one scored result."""
    overall = result.metrics["overall"]
    values = {m: [round(overall[m][k], 4) for k in ("value", "ci_low", "ci_high")] for m in METRICS if m in overall}
    return {"questions": overall["n"], **values}


def on_locomo(system: str, path: Path) -> dict:
    """One whole-store turn-level run of `system`, scored under every definition."""
    from memrecall.api import evaluate_rankings, run_system
    from memrecall.benchmarks import Loaded, get_benchmark
    from memrecall.data.measured import measured_view, recorded_unmeasured

    bench = get_benchmark("locomo-turn")
    started = time.perf_counter()
    result = run_system(system, bench, data=path, full_rankings=True, metrics=["frac_recall@5"])
    seconds = time.perf_counter() - started
    content, env, name = result.report["content"], result.report["env"], next(iter(result.rankings))
    unmeasured = recorded_unmeasured(content["dataset"])
    out = {
        "seconds": round(seconds),
        "query_latency_ms_p50": env["cost"][name]["query_latency_ms"]["p50"],
        "not_measurable": len(unmeasured),
        "counts": env["system_configs"][name].get("counts", {}),
        "definitions": {},
    }
    rows = result.rows()
    for name, (unit, category5) in DEFINITIONS.items():
        loaded = bench.load(path, category5=category5)
        loaded = Loaded(*measured_view(loaded.task, loaded.dataset, unmeasured))
        again = evaluate_rankings(rows, bench, loaded=loaded, unit=unit, metrics=["frac_recall@5"], names=[system])
        out["definitions"][name] = scored(again)
    return out


def on_longmemeval(system: str, folder: Path) -> dict:
    """The system on the leaderboard's generated LongMemEval file (session level, the benchmark's default)."""
    from memrecall.api import run_system

    path = folder / "longmemeval_generated.json"
    if not path.exists():
        generator = ROOT / "benchmarks" / "generate_longmemeval.py"
        subprocess.run([sys.executable, str(generator), "--out", str(path), *LONGMEMEVAL_ARGS], cwd=ROOT, check=True)
    return scored(run_system(system, "longmemeval", data=path, metrics=["frac_recall@5"]))


def cell(values: list[float] | None) -> str:
    """`.634` for a value, `-` when missing."""
    return "-" if not values else f"{values[0]:.3f}".lstrip("0")


def table(claims: dict) -> str:
    """docs/claims.md's table: R@5 / R@10 per definition on LoCoMo, then R@5 on the generated LongMemEval file."""
    heads = [f"LoCoMo {name} R@5 / R@10" for name in DEFINITIONS]
    lines = [
        "| system | " + " | ".join(heads) + " | LoCoMo frac_recall@5, category 5 in | LongMemEval (generated) R@5 | "
        "not measurable | s/run |",
        "|---" * (len(heads) + 5) + "|",
    ]
    for system in sorted(claims):
        entry = claims[system]["locomo"]
        chosen = [entry["definitions"][name] for name in DEFINITIONS]  # the headings' order, not the file's
        cells = [f"{cell(d.get('recall@5'))} / {cell(d.get('recall@10'))}" for d in chosen]
        frac = cell(entry["definitions"]["turn, category 5 in"].get("frac_recall@5"))
        lme = cell(claims[system]["longmemeval"].get("recall@5"))
        lines.append(
            f"| {system} | "
            + " | ".join([*cells, frac, lme, str(entry["not_measurable"]), str(entry["seconds"])])
            + " |"
        )
    return "\n".join(lines)


def render(claims: dict) -> None:
    """Rewrite the table between the two MARK lines of docs/claims.md."""
    text = CLAIMS_DOC.read_text(encoding="utf-8")
    before, _, rest = text.partition(MARK + "\n")
    _, _, after = rest.partition(MARK + "\n")
    CLAIMS_DOC.write_text(f"{before}{MARK}\n{table(claims)}\n{MARK}\n{after}", encoding="utf-8")


def main() -> None:
    """Measure the chosen systems (merging into site/claims.json), then render docs/claims.md's table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--locomo", type=Path, default=ROOT.parent / "shared" / "data" / "locomo10.json")
    parser.add_argument("--systems", default=PRODUCTS)
    parser.add_argument("--render", action="store_true", help="only rewrite docs/claims.md's table")
    args = parser.parse_args()
    claims = json.loads(CLAIMS_JSON.read_text()) if CLAIMS_JSON.exists() else {}
    if not args.render:
        with tempfile.TemporaryDirectory() as scratch:
            for system in args.systems.split(","):
                print(f"measure_claims: {system}", file=sys.stderr, flush=True)
                claims[system] = {
                    "locomo": on_locomo(system, args.locomo),
                    "longmemeval": on_longmemeval(system, Path(scratch)),
                }
                CLAIMS_JSON.write_text(json.dumps(claims, indent=1, sort_keys=True) + "\n")
    render(claims)


if __name__ == "__main__":
    main()
