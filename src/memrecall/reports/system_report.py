"""The one report builder: every command's report (run, evaluate, compare, baseline, longmemeval, locomo, sweep).

Named systems' results on one benchmark, paired against the first when several. The presets add optional,
derived extras, which a replay recomputes from the rankings: `diagnostics` (coverage, recall curve, token
efficiency, sufficiency, turn -> session results) in each system's entry, and `ablations` (baseline's removal
comparisons) as a top-level section.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from memrecall.benchmarks import Benchmark, Loaded
from memrecall.data.model import Ranking, Task
from memrecall.data.rankings import rankings_sha256
from memrecall.reports.comparability import manifest
from memrecall.reports.content import data_identity, environment, make_report, task_identity
from memrecall.scoring.paired import PERMUTATIONS, compare_systems, compare_to_first
from memrecall.scoring.policy import ScoringConfig, score_task

# (system, its ablation, what the ablation removes): reported as paired comparisons when both ran
ABLATIONS = (
    ("time-decay", "dense", "time decay"),
    ("salience-oracle", "dense", "oracle salience"),
    ("salience-vader", "dense", "estimated salience"),
    ("gated", "salience-vader", "the gate"),
    ("gated", "dense", "gated salience"),
)


def ablation_comparisons(task: Task, rankings: Mapping[str, Mapping[str, Ranking]], scoring: ScoringConfig) -> list:
    """Each system against its removal ablation, paired, by the scoring's groups; only pairs that both ran."""
    return [
        {
            "system": full,
            "ablation": reduced,
            "removes": removed,
            "by_group": compare_systems(task, rankings[full], rankings[reduced], scoring),
        }
        for full, reduced, removed in ABLATIONS
        if full in rankings and reduced in rankings
    ]


def diagnostics_entry(
    benchmark: Benchmark, loaded: Loaded, rankings: Mapping[str, Ranking], scoring: ScoringConfig, options: Mapping
) -> dict:
    """A system's harness diagnostics: token efficiency and recall curve, coverage and sufficiency to
    `coverage_depth` when asked, and a turn run scored again at session level."""
    from memrecall.data.granularity import turns_to_sessions
    from memrecall.scoring.diagnostics import coverage, recall_curve, token_efficiency
    from memrecall.scoring.sufficiency import sufficiency

    task, ks, stratum = loaded.task, list(options["ks"]), benchmark.primary_stratum
    every_gold = benchmark.headline(ks)[0].startswith("recall_all")
    entry = {
        "token_efficiency": token_efficiency(task, rankings, ks),
        "recall_curve": recall_curve(task, rankings, stratum, every_gold=every_gold),
    }
    depth = options.get("coverage_depth")
    if depth:
        entry["coverage"] = coverage(task, rankings, depth)
        entry["sufficiency"] = sufficiency(task, rankings, depth, stratum)
    if loaded.dataset.get("granularity") == "turn" and loaded.dataset.get("unit") is None:
        session_task, session_rankings = turns_to_sessions(task, rankings)
        entry["turn_to_session_results"] = score_task(session_task, session_rankings, scoring)
    return entry


def systems_report(
    benchmark: Benchmark,
    loaded: Loaded,
    runs: Sequence[tuple[str, dict[str, Ranking]]],
    scoring: ScoringConfig,
    env: dict | None = None,
    gold_label_users: frozenset[str] = frozenset(),
    encoders: Mapping[str, dict] | None = None,
    identities: Mapping[str, dict] | None = None,
    *,
    ks: Sequence[int] | None = None,
    diagnostics: Mapping | None = None,
    ablations: bool = False,
    dense_policy: str | None = None,
) -> dict:
    """Signed report: each system's results in order, and each later system minus the first when several.

    Systems in `gold_label_users` read authored labels (oracles): their entry says `uses_gold_labels: true`.
    A system in `encoders` ranked with memrecall's encoder: its entry names it (model, weights, backend).
    A system in `identities` carries the code that made its rankings (a plug-in run) or says they came from a
    rankings file; memrecall's own systems, run under their reserved names, carry none.
    `ks` are the headline cut-offs (the benchmark's when None); `diagnostics` ({"ks", "coverage_depth"}) adds
    each system's harness diagnostics; `ablations` adds baseline's removal comparisons where both sides ran;
    `dense_policy` is recorded in the comparability manifest when a dense system ran.
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
        "headline_metrics": benchmark.headline(ks),
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
                **(diagnostics_entry(benchmark, loaded, rankings, scoring, diagnostics) if diagnostics else {}),
            }
            for name, rankings in runs
        },
    }
    if diagnostics:
        content["diagnostics"] = {"ks": list(diagnostics["ks"]), "coverage_depth": diagnostics.get("coverage_depth")}
    first = content["systems"][names[0]]["results"]
    content["comparability"] = manifest(content, first, dense_policy)
    if ablations:
        found = ablation_comparisons(task, dict(runs), scoring)
        if found:
            content["ablations"] = found
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
