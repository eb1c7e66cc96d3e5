"""The one benchmark registry: each dataset's loader, scoring policy and rankings row format, said once."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from memrecall.data.jsonfile import describe_file_type
from memrecall.data.model import Task
from memrecall.data.rankings import EPIREC_KEYS, GENERIC_KEYS
from memrecall.data.releases import DEFAULT_RELEASE, RELEASES, bundled_release
from memrecall.errors import UsageError
from memrecall.scoring.depth import check_measurable, scoring_depth
from memrecall.scoring.metrics import DEFAULT_RESAMPLES
from memrecall.scoring.policy import EPIREC_GROUPINGS, ScoringConfig

DEFAULT_KS = (1, 3, 5, 10)
REPO_ROOT = Path(__file__).resolve().parents[2]
EPIREC_DEFAULT = Path("data") / DEFAULT_RELEASE


@dataclass(frozen=True)
class Loaded:
    """A Task and the facts about its file that reports record under `dataset`."""

    task: Task
    dataset: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Benchmark:
    """A dataset by name: how to load it, how to score it, and how its rankings rows look."""

    name: str
    summary: str
    loader: Callable[[Path, Mapping[str, Any]], Loaded]
    metric_policy: Callable[[Sequence[int]], tuple[list[str], list[str]]]
    groupings: tuple[tuple[str, ...], ...]
    apart: tuple[tuple[str, ...], ...]
    primary_stratum: str | None
    row_keys: tuple[str, str, str]
    require_full_rankings: bool
    dense_policy: str
    ks: tuple[int, ...] = DEFAULT_KS
    default_data: Path | None = None
    count_without_targets_by: tuple[str, ...] = ()
    data_kind: str = "file"
    resample_unit: str = "query"  # "store" where stores hold many scored queries (EpiRec, LoCoMo)
    analyses: Callable[[Loaded, Mapping[str, Any]], dict] | None = None  # extra per-run results (BEAM's stale rate)

    def load(self, path: Path, **options: Any) -> Loaded:
        """The Task of a dataset file (loader options such as max_instances pass through).

        A file the loader refuses that looks like another format is named as that format, with the command for it.
        Every task then passes memrecall.data.task_rules (something to score, every text encodable as UTF-8).
        """
        from memrecall.data.formats import wrong_format_hint
        from memrecall.data.task_rules import check_task
        from memrecall.errors import DatasetError

        try:
            loaded = self.loader(Path(path), options)
        except DatasetError as exc:
            if self.data_kind != "file" or Path(path).is_dir():
                raise
            hint = wrong_format_hint(Path(path), self.name.split("-")[0])
            if hint is None:
                raise
            raise DatasetError(str(path), "", hint) from exc
        check_task(loaded.task, str(path))
        return loaded

    def headline(self, ks: Sequence[int] | None = None) -> list[str]:
        """The metrics shown as the headline, primary first."""
        return self.metric_policy(tuple(ks or self.ks))[0]

    def scoring(
        self,
        ks: Sequence[int] | None = None,
        seed: int = 0,
        resamples: int = DEFAULT_RESAMPLES,
        metrics: Sequence[str] = (),
        resample_unit: str | None = None,
    ) -> ScoringConfig:
        """The benchmark's single scoring policy: headline metrics first, then the rest, then `metrics` asked for.

        `resample_unit` overrides the benchmark's resample unit (a replay passes the one its report recorded).
        """
        headline, others = self.metric_policy(tuple(ks or self.ks))
        names = tuple(dict.fromkeys([*headline, *others]))
        depth, counted = scoring_depth(names, self.require_full_rankings), self.count_without_targets_by
        policy = ScoringConfig(names, self.groupings, self.apart, seed, resamples, count_without_targets_by=counted)
        unit = resample_unit or self.resample_unit
        scoring = replace(policy, depth=depth, resample_unit=unit).with_requested(metrics)
        check_measurable(scoring.metrics, depth, self.name)
        return scoring

    def resolve_data(self, data: Path | None) -> Path:
        """`data`, else the default (the working directory's copy first, then the one installed with memrecall)."""
        if data is None:
            if self.default_data is None:
                raise UsageError(f"--data is required for {self.name}")
            local = Path.cwd() / self.default_data
            data = local if local.exists() else bundled_release(self.default_data.name)
        if not Path(data).exists():
            raise UsageError(f"--data {data} does not exist")
        if self.data_kind == "folder":
            if not Path(data).is_dir():
                raise UsageError(f"--data {data} is a file; {self.name} reads a folder ({self.summary})")
            return Path(data)
        kind = describe_file_type(Path(data).stat().st_mode)
        if kind is not None:
            raise UsageError(f"--data {data} is {kind}, not a regular file; memrecall reads only regular files")
        return Path(data)


def _epirec_loader(path: Path, options: Mapping[str, Any]) -> Loaded:
    from memrecall.data.loaders.epirec import load_epirec

    return Loaded(load_epirec(path))


def _epirec_metrics(ks: Sequence[int]) -> tuple[list[str], list[str]]:
    return ["recall@3"], ["recall@1", "mrr"]


def _longmemeval_loader(protocol: str) -> Callable[[Path, Mapping[str, Any]], Loaded]:
    def load(path: Path, options: Mapping[str, Any]) -> Loaded:
        from memrecall.data.loaders.longmemeval import every_session_is_gold, load_longmemeval

        limit = options.get("max_instances")
        granularity = options.get("granularity", "session")
        task = load_longmemeval(path, protocol, limit, granularity)
        dataset = {"family": "longmemeval", "protocol": protocol, "granularity": granularity, "file": path.name}
        dataset.update(max_instances=limit, oracle_split=every_session_is_gold(task) and granularity == "session")
        return Loaded(task, dataset)

    return load


def _longmemeval_metrics(protocol: str) -> Callable[[Sequence[int]], tuple[list[str], list[str]]]:
    def policy(ks: Sequence[int]) -> tuple[list[str], list[str]]:
        if protocol == "official":
            headline = [f"recall_all@{k}" for k in ks] + [f"ndcg_lme@{ks[-1]}"]
        else:
            headline = [f"recall@{k}" for k in ks]
        others = [f"recall@{k}" for k in ks] + [f"recall_all@{k}" for k in ks] + [f"ndcg@{k}" for k in ks]
        return headline, others + [f"ndcg_lme@{k}" for k in ks] + [f"mrr@{ks[-1]}"]  # scored to depth ks[-1]

    return policy


def _locomo_loader(granularity: str) -> Callable[[Path, Mapping[str, Any]], Loaded]:
    def load(path: Path, options: Mapping[str, Any]) -> Loaded:
        from memrecall.data.loaders.locomo import load_locomo

        category5 = options.get("category5") or "apart"
        loaded = load_locomo(path, granularity, category5)
        gold = {}
        if (options.get("gold") or "official") == "audited":
            from memrecall.data.loaders.locomo_audit import audited

            loaded, gold = audited(loaded, path, options.get("gold_file"))
        dataset = {"family": "locomo", "granularity": granularity, "file": path.name}
        dataset.update(evidence_issue_counts=loaded.issue_counts(), evidence_issues=loaded.evidence_issues)
        # recorded only when chosen, so the reports of the default population and gold are unchanged
        dataset |= ({"category5": category5} if category5 != "apart" else {}) | ({"gold": gold} if gold else {})
        return Loaded(loaded.task, dataset)

    return load


def _locomo_metrics(ks: Sequence[int]) -> tuple[list[str], list[str]]:
    others = [f"recall_all@{k}" for k in ks] + [f"ndcg@{k}" for k in ks]
    return [f"recall@{k}" for k in ks], [*others, f"mrr@{ks[-1]}"]  # mrr scored to depth ks[-1], so named with it


def _beir_loader(path: Path, options: Mapping[str, Any]) -> Loaded:
    from memrecall.data.loaders.beir import load_beir

    return Loaded(*load_beir(path))


def _beir_metrics(ks: Sequence[int]) -> tuple[list[str], list[str]]:
    """Headline nDCG at the deepest cut-off (BEIR's and MTEB's headline) and recall@k (any target in the top k)."""
    headline = [f"ndcg@{ks[-1]}"] + [f"recall@{k}" for k in ks]
    return headline, [f"recall_all@{k}" for k in ks] + [f"ndcg@{k}" for k in ks] + [f"mrr@{ks[-1]}"]


def _longmemeval(protocol: str, summary: str) -> Benchmark:
    return Benchmark(
        name="longmemeval" if protocol == "perseus" else "longmemeval-official",
        summary=summary,
        loader=_longmemeval_loader(protocol),
        metric_policy=_longmemeval_metrics(protocol),
        groupings=((), ("question_type",)),
        apart=(("abstention",),),
        primary_stratum="question_type",
        row_keys=GENERIC_KEYS,
        require_full_rankings=False,
        dense_policy="windows",
        count_without_targets_by=("abstention",),
    )


def _locomo(granularity: str, summary: str) -> Benchmark:
    return Benchmark(
        name="locomo" if granularity == "session" else "locomo-turn",
        summary=summary,
        loader=_locomo_loader(granularity),
        metric_policy=_locomo_metrics,
        groupings=((), ("category",)),
        apart=(("category",),),
        primary_stratum="category",
        row_keys=GENERIC_KEYS,
        require_full_rankings=False,
        resample_unit="store",
        dense_policy="windows",
    )


def _realtalk(granularity: str) -> Benchmark:
    def load(path: Path, options: Mapping[str, Any]) -> Loaded:
        from memrecall.data.loaders.realtalk import load_realtalk

        loaded = load_realtalk(path, granularity)
        return Loaded(loaded.task, {"family": "realtalk", "granularity": granularity} | loaded.facts())

    return Benchmark(
        name="realtalk" if granularity == "session" else "realtalk-turn",
        summary=f"REALTALK: 10 real 21-day chats between people (Chat_*.json); one document per {granularity}",
        loader=load,
        metric_policy=_locomo_metrics,
        groupings=((), ("category",)),
        apart=(),
        primary_stratum="category",
        row_keys=GENERIC_KEYS,
        require_full_rankings=False,
        dense_policy="windows",
        count_without_targets_by=("category",),
        data_kind="folder",
        resample_unit="store",
    )


def _locomo_plus(granularity: str, layout: str) -> Benchmark:
    def load(path: Path, options: Mapping[str, Any]) -> Loaded:
        from memrecall.data.loaders.locomo_plus import load_locomo_plus

        return Loaded(*load_locomo_plus(path, options.get("locomo"), granularity, layout))

    name = "locomo-plus" + ("-all" if layout == "all" else "") + ("-turn" if granularity == "turn" else "")
    where = (
        "each cue in its own copy of a LoCoMo conversation" if layout == "one" else "all of a conversation's cues in it"
    )
    return Benchmark(
        name=name,
        summary=f"Locomo-Plus: 401 implicit cue/trigger pairs, {where}; one document per {granularity}",
        loader=load,
        metric_policy=_locomo_metrics,
        groupings=((), ("relation_type",), ("time_gap",)),
        apart=(),
        primary_stratum="relation_type",
        row_keys=GENERIC_KEYS,
        require_full_rankings=False,
        dense_policy="windows",
        resample_unit="store",
    )


def _beam_stale(loaded: Loaded, rankings: Mapping[str, Any]) -> dict:
    from memrecall.data.loaders.beam import stale_above_updated

    return {"knowledge_update": stale_above_updated(loaded.task, rankings, loaded.dataset["knowledge_update_stale"])}


def _beam(granularity: str) -> Benchmark:
    def load(path: Path, options: Mapping[str, Any]) -> Loaded:
        from memrecall.data.loaders.beam import load_beam

        return Loaded(*load_beam(path, granularity))

    unit = "message" if granularity == "message" else "user+assistant turn pair"
    return Benchmark(
        name="beam" if granularity == "message" else "beam-pairs",
        summary=f"BEAM tier folder (1/, 2/, ...: chat.json, probing_questions.json); one document per {unit}",
        loader=load,
        metric_policy=_locomo_metrics,
        groupings=((), ("ability",)),
        apart=(),
        primary_stratum="ability",
        row_keys=GENERIC_KEYS,
        require_full_rankings=False,
        dense_policy="windows",
        count_without_targets_by=("ability",),
        data_kind="folder",
        resample_unit="store",
        analyses=_beam_stale,
    )


BENCHMARKS: dict[str, Benchmark] = {
    b.name: b
    for b in (
        Benchmark(
            name="epirec",
            summary="EpiRec: personas of 14 episodes each, factual and reflective probes; full rankings required",
            loader=_epirec_loader,
            metric_policy=_epirec_metrics,
            groupings=EPIREC_GROUPINGS,
            apart=(),
            primary_stratum="probe_type",
            row_keys=EPIREC_KEYS,
            require_full_rankings=True,
            dense_policy="truncate",
            ks=(1, 3),
            default_data=EPIREC_DEFAULT,
            resample_unit="store",
        ),
        _longmemeval("perseus", "LongMemEval sessions, Perseus protocol: headline recall@k (any gold)"),
        _longmemeval("official", "LongMemEval sessions, official protocol: headline recall_all@k and ndcg_lme"),
        _locomo("session", "LoCoMo, one document per session; category 5 reported apart"),
        _locomo("turn", "LoCoMo, one document per dialogue turn; category 5 reported apart"),
        Benchmark(
            name="beir",
            summary="a BEIR folder (corpus.jsonl, queries.jsonl, qrels/test.tsv); one store per store_id when given",
            loader=_beir_loader,
            metric_policy=_beir_metrics,
            groupings=((),),
            apart=(),
            primary_stratum=None,
            row_keys=GENERIC_KEYS,
            require_full_rankings=False,
            dense_policy="windows",
            data_kind="folder",
        ),
        _realtalk("session"),
        _realtalk("turn"),
        _locomo_plus("session", "one"),
        _locomo_plus("turn", "one"),
        _locomo_plus("session", "all"),
        _locomo_plus("turn", "all"),
        _beam("message"),
        _beam("pair"),
    )
}


# epirec-v1, epirec-v2, epirec-v3: EpiRec with one bundled release as its default data (reports say "epirec")
RELEASE_ALIASES: dict[str, Path] = {
    release.removesuffix(".json").replace("_", "-"): Path("data") / release for release in RELEASES
}


def get_benchmark(name: str) -> Benchmark:
    """The built-in, aliased or installed (entry point `memrecall.benchmarks`) benchmark called `name`."""
    from memrecall.data.registered import installed_entries, load_entry

    entries = installed_entries([*BENCHMARKS, *RELEASE_ALIASES])  # a clash with a built-in name is refused first
    if name in BENCHMARKS:
        return BENCHMARKS[name]
    if name in RELEASE_ALIASES:
        return replace(BENCHMARKS["epirec"], default_data=RELEASE_ALIASES[name])
    if name not in entries:
        known = ", ".join([*BENCHMARKS, *RELEASE_ALIASES, *sorted(entries)])
        raise UsageError(f"unknown benchmark {name!r}; choose from {known}")
    return load_entry(entries[name], Benchmark)
