"""Replay: score a report's rankings files again, by the same code that made it, and rebuild its content."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from memrecall.benchmarks import Benchmark, Loaded, get_benchmark
from memrecall.data.granularity import unit_view
from memrecall.data.measured import measured_view, recorded_unmeasured
from memrecall.errors import ConfigError, UsageError, short
from memrecall.reports.rankings_files import checked_runs, match_rankings
from memrecall.reports.system_report import systems_report
from memrecall.scoring.options import parse_metric_list

# parts of an entry that follow from the rankings; every other key of an entry (encoder, identity, flags) is a claim
DERIVED = (
    "results",
    "rankings_sha256",
    "token_efficiency",
    "recall_curve",
    "coverage",
    "sufficiency",
    "turn_to_session_results",
)


def dataset_options(bench: Benchmark, content: dict) -> dict:
    """The loader options a report recorded under `dataset` (LongMemEval's max_instances and granularity, LoCoMo's
    category5), to load its data the way it was loaded."""
    dataset = content.get("dataset") or {}
    kept = ("max_instances", "granularity") if bench.name.startswith("longm") else ("category5",)
    return {k: dataset[k] for k in kept if k in dataset}


def load_for(bench: Benchmark, content: dict, data: Path | None) -> Loaded:
    """The benchmark's task from `data` (or its default), refused unless its sha256 is the report's."""
    recorded = content["task"].get("source_sha256")
    if data is None and bench.default_data is None:
        described = content.get("dataset", {})
        file = described.get("file") or (
            f"the folder {described['folder']}" if "folder" in described else "the dataset file"
        )
        raise UsageError(f"--data is required to replay a {bench.name} report (made from {short(file)})")
    path = bench.resolve_data(data)
    dataset = content.get("dataset") or {}
    loaded = bench.load(path, **dataset_options(bench, content))
    if loaded.task.source_sha256 != recorded:
        raise ConfigError(
            f"{path}: sha256 {loaded.task.source_sha256[:12]}..., but the report was made from data with sha256 "
            f"{short(str(recorded))[:12]}...; give the report's data with --data"
        )
    task, facts = unit_view(loaded.task, loaded.dataset, dataset.get("unit"))
    return Loaded(*measured_view(task, facts, recorded_unmeasured(dataset)))


def replayed_runs(report: dict, rankings: Sequence[str | Path], data: str | Path | None = None) -> tuple:
    """(benchmark, loaded task, [(name, rankings)]) of a report's rankings files, one per system."""
    content = report["content"]
    if content.get("kind") != "systems" or not isinstance(content.get("benchmark"), str):
        raise UsageError(
            f"replay covers reports of systems on a benchmark, not {short(repr(content.get('kind')))}; "
            "score the exported rankings with `memrecall evaluate` instead"
        )
    bench = get_benchmark(content["benchmark"])
    names = list(content["system_order"])
    loaded = load_for(bench, content, Path(data) if data is not None else None)
    runs, _, _ = checked_runs(match_rankings(rankings, names), names, bench, loaded)
    return bench, loaded, runs


def replay_content(report: dict, rankings: Sequence[str | Path], data: str | Path | None = None) -> dict:
    """The content `rankings` give when scored again the way this report was (any command's report).

    The extras a preset asked for are asked for again: diagnostics at the recorded cut-offs and depth, the
    ablations, and the dense policy the manifest records.
    """
    content = report["content"]
    bootstrap = content["scoring"]["bootstrap"]
    seed, resamples, unit = bootstrap["seed"], bootstrap["resamples"], bootstrap.get("unit", "query")
    requested = _requested(content["scoring"])
    bench, loaded, runs = replayed_runs(report, rankings, data)
    diagnostics = content.get("diagnostics")
    ks = diagnostics["ks"] if isinstance(diagnostics, dict) and diagnostics.get("ks") else None
    claimed = {name: entry.get("encoder") for name, entry in content.get("systems", {}).items()}
    scoring = bench.scoring(ks, seed=seed, resamples=resamples, metrics=requested, resample_unit=unit)
    policy = (content.get("comparability") or {}).get("dense_policy")
    # the encoder claims go in before the manifest is made, which names the first system's
    replayed = systems_report(
        bench,
        loaded,
        runs,
        scoring,
        encoders=claimed,
        ks=ks,
        diagnostics=diagnostics,
        ablations="ablations" in content,
        dense_policy=policy,
    )["content"]
    return _keep_claims(replayed, content, "systems", DERIVED)


def _requested(scoring: dict) -> tuple[str, ...]:
    """The metrics a report's --metrics asked for (none for a report made without it)."""
    names = scoring.get("requested_metrics", [])
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise ConfigError("content.scoring.requested_metrics must be a list of metric names")
    return parse_metric_list(names) if names else ()


def _claims(entry: Any, derived: Sequence[str]) -> dict:
    """The keys of an entry that do not follow from the rankings (a config, a declared flag)."""
    return {k: v for k, v in entry.items() if k not in derived} if isinstance(entry, dict) else {}


def _keep_claims(replayed: dict, recorded: dict, items: str, derived: Sequence[str]) -> dict:
    """The replayed content with each entry's claims carried over from the recorded report."""
    out = dict(replayed)
    out[items] = {
        name: {**_claims(recorded.get(items, {}).get(name), derived), **entry}
        for name, entry in replayed[items].items()
    }
    return out


def first_difference(recorded: Any, replayed: Any, where: str = "content") -> str | None:
    """The first place (in sorted key order) where two JSON values differ, as `path: a in the report, b replayed`."""
    if isinstance(recorded, dict) and isinstance(replayed, dict):
        for key in sorted(set(recorded) | set(replayed)):
            if key not in replayed:
                return f"{where}.{key}: in the report, absent from the replay"
            if key not in recorded:
                return f"{where}.{key}: absent from the report, in the replay"
            found = first_difference(recorded[key], replayed[key], f"{where}.{key}")
            if found:
                return found
        return None
    if isinstance(recorded, list) and isinstance(replayed, list):
        if len(recorded) != len(replayed):
            return f"{where}: {len(recorded)} items in the report, {len(replayed)} replayed"
        for index, (a, b) in enumerate(zip(recorded, replayed, strict=True)):
            named = f" {short(str(a['system']), 40)}" if isinstance(a, dict) and "system" in a else ""
            found = first_difference(a, b, f"{where}[{index}{named}]")
            if found:
                return found
        return None
    if recorded != replayed or type(recorded) is not type(replayed):
        return f"{where}: {short(repr(recorded), 40)} in the report, {short(repr(replayed), 40)} replayed"
    return None
