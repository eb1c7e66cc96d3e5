"""EpiRec v3's registered analyses after the freeze (docs/epirec_v3_plan.md section 7), in one command.

`python scripts/epirec_v3_analyses.py [--output site/epirec_v3_analyses.json]` runs `memrecall baseline` (the
built-in strategies and the memory models) on v3 and on v2, then writes:

- `v2_subset`: for each strategy, how many of v3's p01..p12 rankings differ from its v2 rankings (section 2);
- `by_part`: recall@3 per probe type on v3, on the v2 subset (p01..p12) and on the new part (p13..p48), with
  95 % CIs resampling whole stores and resampling queries (2000 resamples, seed 0);
- `confirmatory`: reflective_implicit recall@3 of gated, langchain-ensemble, salience-vader and hybrid, each
  minus dense, paired, with sign-flip p Holm-adjusted over the four (section 7), flipping whole stores and
  flipping queries (langchain-ensemble through `memrecall run`, the rest from the baselines);
- `power`: `memrecall power` on those five rankings (the detectable paired difference of implicit recall@3 at
  alpha .05 and power .8, from the observed discordance; query level, as docs/power.md says);
- `gradient`: for hashing, dense, fts5 and hybrid, whether recall@3 factual > explicit > implicit holds on each
  part, and the blind readers' recall per type beside it (human_validation/blind_review_v3.csv).
Nothing here reads the text for tuning: the release is frozen, and the figures are reported whatever they are.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BUILTINS = "recency,hashing,dense,fts5,hybrid"
MEMORY_MODELS = "time-decay,salience-oracle,salience-vader,gated"
GRADIENT = ("hashing", "dense", "fts5", "hybrid")
CONFIRMATORY = ("gated", "langchain-ensemble", "salience-vader", "hybrid")
TYPES = ("factual", "reflective_explicit", "reflective_implicit")
PARTS = {"v3": lambda pid: True, "v2_subset": lambda pid: int(pid[1:]) <= 12, "new_part": lambda pid: int(pid[1:]) > 12}


def memrecall(*args: str) -> None:
    """Run one memrecall command from the checkout; its own one-line error and exit 1 when it fails."""
    done = subprocess.run([sys.executable, "-m", "memrecall", *args], cwd=ROOT, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"memrecall {args[0]} failed: {done.stderr.strip().splitlines()[-1:]}")


def export(release: str, strategies: str, folder: Path) -> None:
    """`memrecall baseline --export-rankings` for one release into `folder`."""
    memrecall("baseline", "--data", f"data/{release}", "--strategies", strategies, "--export-rankings-dir", str(folder),
              "--output", str(folder / "report.json"), "--quiet")  # fmt: skip


def run_adapter(name: str, folder: Path) -> Path:
    """`memrecall run epirec --system NAME` on v3, its rankings exported; the rankings file."""
    rankings = folder / f"{name}.jsonl"
    memrecall("run", "epirec", "--system", name, "--data", "data/epirec_v3.json", "--export-rankings", str(rankings),
              "--output", str(folder / f"{name}.report.json"), "--quiet")  # fmt: skip
    return rankings


def rows(path: Path) -> dict[str, list[str]]:
    """probe id -> ranked episode ids of one exported rankings file."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return {r["probe_id"]: r["ranked_episode_ids"] for r in map(json.loads, lines)}


def as_rankings(task, ranked: dict[str, list[str]]) -> dict:
    """Exported rows as the scorer's rankings (scores descending in rank order; recall reads only the order)."""
    from memrecall.data.model import Ranking

    return {q.id: Ranking(q.id, tuple(ranked[q.id]), tuple(range(len(ranked[q.id]), 0, -1))) for q in task.queries}


def confirmatory(task, ranked: dict[str, dict[str, list[str]]]) -> dict:
    """The registered test at both resampling levels: difference, its CI and Holm-adjusted p per pair."""
    from memrecall.benchmarks import get_benchmark
    from memrecall.scoring.paired import compare_to_first

    runs = [(name, as_rankings(task, ranked[name])) for name in ("dense", *CONFIRMATORY)]
    out = {}
    for unit in ("store", "query"):
        config = get_benchmark("epirec").scoring(resample_unit=unit)
        compared = compare_to_first(task, runs, config, "probe_type")
        out[unit] = {
            c["system"]: {k: round(v, 6) for k, v in c["by_group"]["reflective_implicit"]["recall@3"].items()}
            for c in compared
        }
    return out


def measured_power(folder: Path, paths: dict[str, Path]) -> dict:
    """`memrecall compare` then `memrecall power --difference 0.05` on dense and the four; implicit rows only."""
    files = [str(paths[name]) for name in ("dense", *CONFIRMATORY)]
    report, table = folder / "compare.json", folder / "power.json"
    memrecall("compare", *files, "--data", "data/epirec_v3.json", "--output", str(report))
    rankings = [arg for path in files for arg in ("--rankings", path)]
    memrecall("power", str(report), *rankings, "--data", "data/epirec_v3.json", "--difference", "0.05",
              "--output", str(table))  # fmt: skip
    measured = json.loads(table.read_text(encoding="utf-8"))
    return {
        c["system"]: {k: v if not isinstance(v, float) else round(v, 6) for k, v in
                      c["by_group"]["reflective_implicit"]["recall@3"].items()}
        for c in measured["comparisons"]
    }  # fmt: skip


def part_scores(task, ranked: dict[str, list[str]], part: str, unit: str) -> dict:
    """recall@3 with its CI per probe type, over the stores of one part, resampling `unit`."""
    from memrecall.benchmarks import get_benchmark
    from memrecall.scoring.policy import score_task

    keep = PARTS[part]
    stores = {s: docs for s, docs in task.stores.items() if keep(s)}
    sub = replace(task, stores=stores, queries=tuple(q for q in task.queries if q.store_id in stores))
    rankings = as_rankings(sub, ranked)
    config = replace(get_benchmark("epirec").scoring(resample_unit=unit), groupings=(("probe_type",),))
    by_type = score_task(sub, rankings, config)["by_probe_type"]
    return {t: {k: round(v, 6) for k, v in by_type[t]["recall@3"].items() if k != "stores_within_k"} for t in TYPES}


def reader_recall() -> dict:
    """The blind readers' recall per probe type, round 1 and final (memrecall.corpus.blind_review score)."""
    from memrecall.corpus.blind_review import read_rows
    from memrecall.corpus.blind_review import reader_recall as recall

    read = read_rows(ROOT / "human_validation" / "blind_review_v3.csv")
    return {"new_part_round_1": recall(read, False), "new_part_final": recall(read, True)}


def main(output: Path) -> int:
    """Run the baselines, compute the analyses and write them as sorted JSON."""
    sys.path.insert(0, str(ROOT / "src"))
    from memrecall.data.loaders.epirec import load_epirec

    task = load_epirec(ROOT / "data" / "epirec_v3.json")
    out: dict = {"v2_subset": {}, "by_part": {}, "gradient": {}, "confirmatory": {}}
    with tempfile.TemporaryDirectory() as folder:
        base = Path(folder)
        for release in ("epirec_v3.json", "epirec_v2.json"):
            for kind, strategies in (("builtins", BUILTINS), ("memory", MEMORY_MODELS)):
                export(release, strategies, base / release / kind)
        for kind, strategies in (("builtins", BUILTINS), ("memory", MEMORY_MODELS)):
            for name in strategies.split(","):
                v3 = rows(base / "epirec_v3.json" / kind / f"{name}.jsonl")
                v2 = rows(base / "epirec_v2.json" / kind / f"{name}.jsonl")
                differ = sorted(p for p in v2 if v3[p] != v2[p])
                out["v2_subset"][name] = {"probes": len(v2), "rankings_that_differ": differ}
                out["by_part"][name] = {
                    part: {unit: part_scores(task, v3, part, unit) for unit in ("store", "query")} for part in PARTS
                }
        paths = {n: base / "epirec_v3.json" / k / f"{n}.jsonl" for k in ("builtins", "memory") for n in
                 (BUILTINS if k == "builtins" else MEMORY_MODELS).split(",")}  # fmt: skip
        paths["langchain-ensemble"] = run_adapter("langchain-ensemble", base)
        out["confirmatory"] = confirmatory(task, {name: rows(path) for name, path in paths.items()})
        out["power"] = measured_power(base, paths)
    for name in GRADIENT:
        out["gradient"][name] = {}
        for part in PARTS:
            values = [out["by_part"][name][part]["store"][t]["value"] for t in TYPES]
            out["gradient"][name][part] = values[0] > values[1] > values[2]
    out["readers"] = reader_recall()
    output.write_text(json.dumps(out, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {output}")
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", type=Path, default=ROOT / "site" / "epirec_v3_analyses.json")
    sys.exit(main(parser.parse_args().output))
