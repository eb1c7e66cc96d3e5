"""The report of `run`, `evaluate` and `compare`: named systems' results on one benchmark, paired against the first."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from memrecall.benchmarks import Benchmark, Loaded
from memrecall.data.model import Ranking
from memrecall.data.rankings import rankings_sha256
from memrecall.reports.comparability import manifest
from memrecall.reports.content import data_identity, environment, make_report, task_identity
from memrecall.scoring.paired import PERMUTATIONS, compare_to_first
from memrecall.scoring.policy import ScoringConfig, score_task


def systems_report(
    benchmark: Benchmark,
    loaded: Loaded,
    runs: Sequence[tuple[str, dict[str, Ranking]]],
    scoring: ScoringConfig,
    env: dict | None = None,
    gold_label_users: frozenset[str] = frozenset(),
    encoders: Mapping[str, dict] | None = None,
    identities: Mapping[str, dict] | None = None,
) -> dict:
    """Signed report: each system's results in order, and each later system minus the first when several.

    Systems in `gold_label_users` read authored labels (oracles): their entry says `uses_gold_labels: true`.
    A system in `encoders` ranked with memrecall's encoder: its entry names it (model, weights, backend).
    A system in `identities` carries the code that made its rankings (a plug-in run) or says they came from a
    rankings file; memrecall's own systems, run under their reserved names, carry none.
    """
    names = [name for name, _ in runs]
    if len(set(names)) != len(names):
        from memrecall.errors import ConfigError

        raise ConfigError(
            f"system names must differ: {', '.join(names)} (compare: --names A,B; evaluate: --name; API: names=)"
        )
    task = loaded.task
    content: dict = {
        "kind": "systems",
        "benchmark": benchmark.name,
        "dataset": loaded.dataset,
        "task": task_identity(task),
        "data": data_identity(task),
        "primary_metric": scoring.metrics[0],
        "headline_metrics": benchmark.headline(),
        "primary_stratum": benchmark.primary_stratum,
        "scoring": scoring.describe(),
        "system_order": names,
        "systems": {
            name: {
                "rankings_sha256": rankings_sha256(task, rankings, benchmark.row_keys),
                "results": score_task(task, rankings, scoring),
                **(benchmark.analyses(loaded, rankings) if benchmark.analyses else {}),
                **({"uses_gold_labels": True} if name in gold_label_users else {}),
                **({"encoder": encoders[name]} if encoders and encoders.get(name) else {}),
                **({"identity": identities[name]} if identities and identities.get(name) else {}),
            }
            for name, rankings in runs
        },
    }
    first = content["systems"][names[0]]["results"]
    content["comparability"] = manifest(content, first, None)
    if len(runs) > 1:
        content["comparisons"] = compare_to_first(task, runs, scoring, benchmark.primary_stratum)
        content["comparison_test"] = (
            f"each system minus the first: paired bootstrap CI; two-sided paired sign-flip randomisation test, "
            f"{PERMUTATIONS} permutations; p_holm is Holm-adjusted across the comparisons; "
            f"{scoring.resample_unit}-level: "
            + (
                "whole stores are resampled and flipped"
                if scoring.resample_unit == "store"
                else "queries are resampled"
            )
        )
    return make_report(content, environment({}, **(env or {})))
