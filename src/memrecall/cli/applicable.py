"""Every refusal of a combination of options, benchmarks and systems, in one table, made before any input is read
(`compare` reads only its RUNS files' first bytes, to know whether it compares reports or rankings files).

Each row names the commands it applies to, the option it refuses, when, the one line it prints, the exit code,
and an example (arguments after the command) that triggers it; tests/faults/test_inapplicable_options.py runs
every row's example. `cli.options.Command` applies the table to every command before the command starts.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import click
from click.core import ParameterSource

from memrecall.errors import ConfigError, UsageError, comma_list

EXIT_USAGE = 2
ERRORS = {EXIT_USAGE: UsageError, 1: ConfigError}  # a row's exit code -> the error that exits with it
RELEASE, REPORTS, RANKINGS = "{release}", ("{report_a}", "{report_b}"), ("{rankings_a}", "{rankings_b}")
LOCOMO, LONGMEMEVAL = "{locomo}", "{longmemeval}"


class Facts:
    """What a row's condition may look at: the parsed options, which the user gave, and derived facts."""

    def __init__(self, ctx: click.Context) -> None:
        self.params: dict[str, Any] = ctx.params
        self._ctx = ctx

    def __getitem__(self, name: str) -> Any:
        return self.params.get(name)

    def given(self, name: str) -> bool:
        """The user gave the option (command line or environment), not its default."""
        source = self._ctx.get_parameter_source(name)
        return source in (ParameterSource.COMMANDLINE, ParameterSource.ENVIRONMENT)

    @functools.cached_property
    def compare_mode(self) -> str:
        """`compare`: "reports" or "rankings" when every RUNS file holds one (read from the files' start), else
        "mixed" (which `compare` refuses itself, naming the odd file)."""
        from memrecall.data.formats import input_kind

        reports = [input_kind(path) == "report" for path in self["runs"]]
        return "reports" if all(reports) else "rankings" if not any(reports) else "mixed"

    @functools.cached_property
    def benchmark(self) -> str:
        """The benchmark's registered name (BENCHMARK or --benchmark; epirec when neither)."""
        from memrecall.benchmarks import get_benchmark

        return get_benchmark(self["benchmark_name"] or "epirec").name

    @functools.cached_property
    def locomo(self) -> bool:
        """The benchmark is one of LoCoMo's (not LoCoMo-Plus)."""
        return self.benchmark.startswith("locomo") and not self.benchmark.startswith("locomo-plus")

    @functools.cached_property
    def evaluate_names(self) -> str:
        """`evaluate`: the name both runs would carry."""
        return repr(self["name"] or self["rankings"].stem)

    @functools.cached_property
    def systems(self) -> list[str]:
        """`run`'s --system list."""
        return comma_list(self["system_spec"], "--system") if self["system_spec"] else []

    @functools.cached_property
    def own(self) -> list[str]:
        """The listed systems that are memrecall's own code (they run here, in no worker)."""
        from memrecall.systems.registry import is_trusted_spec

        return [spec for spec in self.systems if is_trusted_spec(spec)]


@dataclass(frozen=True)
class Refusal:
    """One row: `option` is refused `when` it holds, printing `message` and exiting with `code`, in each command
    of `examples`, which holds for each the arguments (after the command) of a command line it refuses."""

    option: str
    when: Callable[[Facts], bool]
    message: str  # formatted with the options' values and the Facts (as `facts`)
    examples: dict[str, tuple[str, ...]]
    code: int = EXIT_USAGE

    @property
    def commands(self) -> tuple[str, ...]:
        """The commands the row applies to."""
        return tuple(self.examples)


AS_SCORED = "reports are compared as they were scored; nothing is scored again"
COMPARE_REPORTS = {
    "--names": ("names", "reports carry their systems' names", "a,b"),
    "--benchmark": ("benchmark_name", "reports name their benchmark", "epirec"),
    "--data": ("data", AS_SCORED, RELEASE),
    "--seed": ("seed", AS_SCORED, "1"),
    "--resamples": ("resamples", AS_SCORED, "200"),
    "--metrics": ("metrics", AS_SCORED, "map"),
    "--unit": ("unit", AS_SCORED, "session"),
    "--category5": ("category5", AS_SCORED, "headline"),
    "--csv": ("csv_path", f"it needs rankings files; {AS_SCORED}", "OUT/t.csv"),
    "--latex": ("latex_path", f"it needs rankings files; {AS_SCORED}", "OUT/t.tex"),
    "--per-query": ("per_query", f"it needs rankings files; {AS_SCORED}", "OUT/q.jsonl"),
    "--report-dir": (
        "report_dir",
        "a comparison of reports has no report card; run `memrecall report` on each report",
        "OUT/card",
    ),
}
RAY_ONLY = {
    "--workers": ("workers", "it sizes the Ray executor's encoders and ranking tasks", "3"),
    "--ray-address": ("ray_address", "it names the Ray cluster to join", "127.0.0.1:6379"),
}
EXECUTOR_RUNS = {
    "run": ("epirec", "--system", "fts5", "--data", RELEASE),
    "baseline": ("--data", RELEASE, "--strategies", "recency"),
    "locomo": ("--data", LOCOMO, "--modes", "fts5"),
    "longmemeval": ("--data", LONGMEMEVAL, "--modes", "fts5"),
}
WORKER_OPTIONS = {  # run: options only a plug-in's worker reads, and the value that means "not given"
    "--pass-env": ("pass_env", (), ("--pass-env", "HOME")),
    "--worker-timeout": ("worker_timeout", None, ("--worker-timeout", "5")),
    "--allow-read": ("allow_read", (), ("--allow-read", RELEASE)),
    "--sandbox": ("sandbox", "bwrap", ("--sandbox", "none")),
}
RUN = ("epirec", "--data", RELEASE)
PLUGIN = "examples.my_memory:MyMemory"


def _worker_option_given(name: str, unset: Any) -> Callable[[Facts], bool]:
    """`run`: a worker option set away from its default while every listed system is memrecall's own."""
    from memrecall.running.boundary.worker_client import DEFAULT_TIMEOUT

    def when(facts: Facts) -> bool:
        value, default = facts[name], DEFAULT_TIMEOUT if name == "worker_timeout" else unset
        return bool(facts.systems) and facts.own == facts.systems and value != default

    return when


REFUSALS: list[Refusal] = [
    *(
        Refusal(
            flag,
            lambda f, name=name: f.given(name) and f.compare_mode == "reports",
            f"{flag} cannot apply to a compare of reports: {why}",
            {"compare": (*REPORTS, flag, value)},
        )
        for flag, (name, why, value) in COMPARE_REPORTS.items()
    ),
    Refusal(
        "--allow-mismatch",
        lambda f: f.given("allow_mismatch") and f.compare_mode == "rankings",
        "--allow-mismatch cannot apply to a compare of rankings files: only reports carry comparability manifests; "
        "rankings files are scored on one task",
        {"compare": (*RANKINGS, "--data", RELEASE, "--allow-mismatch")},
    ),
    *(
        Refusal(
            flag,
            lambda f, name=name: f.given(name) and f["executor"] != "ray",
            f"{flag} cannot apply to --executor local: {why}",
            {command: (*run, flag, value) for command, run in EXECUTOR_RUNS.items()},
        )
        for flag, (name, why, value) in RAY_ONLY.items()
    ),
    Refusal(
        "--name",
        lambda f: f["name"] is not None and len(f.systems) > 1,
        "--name names one system; --system lists {n_systems}",
        {"run": (*RUN, "--system", "fts5,recency", "--name", "x")},
    ),
    Refusal(
        "--in-process",
        lambda f: f["in_process"] and bool(f.own),
        "--in-process: {own} is memrecall's own code and runs here anyway",
        {"run": (*RUN, "--system", "fts5", "--in-process")},
    ),
    Refusal(
        "--in-process",
        lambda f: f["in_process"] and f["executor"] == "ray",
        "--in-process runs the plug-in in this process, so not on --executor ray",
        {"run": (*RUN, "--system", PLUGIN, "--in-process", "--executor", "ray")},
    ),
    Refusal(
        "--in-process",
        lambda f: f["in_process"] and f["sign_key"] is not None,
        "--in-process with --sign-key: a plug-in that shared this interpreter could have read the key; run it "
        "isolated, or sign afterwards with `memrecall keys sign`",
        {"run": (*RUN, "--system", PLUGIN, "--in-process", "--sign-key", "{private_key}")},
    ),
    *(
        Refusal(
            flag,
            _worker_option_given(name, unset),
            f"{flag}: {{system_spec}} is memrecall's own code and needs no worker",
            {"run": (*RUN, "--system", "fts5", *example)},
        )
        for flag, (name, unset, example) in WORKER_OPTIONS.items()
    ),
    Refusal(
        "--export-official-log",
        lambda f: f["export_official_log"] is not None and len(f.systems) > 1,
        "--export-official-log holds one system's rankings; run one system",
        {
            "run": (
                "longmemeval",
                "--data",
                LONGMEMEVAL,
                "--system",
                "fts5,recency",
                "--export-official-log",
                "OUT/log.jsonl",
            )
        },
    ),
    Refusal(
        "--export-official-log",
        lambda f: f["export_official_log"] is not None and not f.benchmark.startswith("longmemeval"),
        "--export-official-log is only for the longmemeval benchmarks",
        {"run": (*RUN, "--system", "fts5", "--export-official-log", "OUT/log.jsonl")},
    ),
    Refusal(
        "--unit",
        lambda f: f["export_official_log"] is not None and f["unit"] is not None,
        "--unit: the official log holds the rankings as run; drop --unit",
        {
            "run": (
                "longmemeval",
                "--data",
                LONGMEMEVAL,
                "--system",
                "fts5",
                "--export-official-log",
                "OUT/l.jsonl",
                "--unit",
                "session",
            )
        },
    ),  # fmt: skip
    Refusal(
        "--category5",
        lambda f: f["category5"] is not None and not f.locomo,
        "--category5 is only for the locomo benchmarks, not {facts.benchmark}",
        {
            "run": (*RUN, "--system", "fts5", "--category5", "headline"),
            "evaluate": ("{rankings_a}", "--data", RELEASE, "--category5", "headline"),
            "compare": (*RANKINGS, "--data", RELEASE, "--category5", "headline"),
        },
    ),
    *(
        Refusal(
            flag,
            lambda f, name=name: f[name] is not None and not f.locomo,
            f"{flag} is only for the locomo benchmarks, not {{facts.benchmark}}",
            {"run": (*RUN, "--system", "fts5", flag, value)},
        )
        for flag, name, value in (("--gold", "gold", "audited"), ("--gold-file", "gold_file", RELEASE))
    ),
    Refusal(
        "--gold-file",
        lambda f: f["gold_file"] is not None and f["gold"] != "audited",
        "--gold-file: the audit file is read only with --gold audited",
        {
            "run": ("locomo", "--data", LOCOMO, "--system", "fts5", "--gold-file", LOCOMO),
            "locomo": ("--data", LOCOMO, "--modes", "fts5", "--gold-file", LOCOMO),
        },
    ),
    Refusal(
        "--population",
        lambda f: f["population"] is not None and (f["rankings_format"] != "trec" or f["export_rankings"] is None),
        "--population applies to TREC files (--export-rankings with --rankings-format trec, or memrecall qrels); "
        "JSONL rankings always hold every query",
        {
            "run": (*RUN, "--system", "fts5", "--population", "all"),
            "locomo": ("--data", LOCOMO, "--modes", "fts5", "--population", "all"),
            "longmemeval": ("--data", LONGMEMEVAL, "--modes", "fts5", "--population", "all"),
        },
    ),
    Refusal(
        "--name",
        lambda f: f["compare"] is not None and (f["name"] or f["rankings"].stem) == f["compare"].stem,
        "--name: both runs would be named {facts.evaluate_names} in the report; give the first another name with "
        "--name NAME (the --compare run is named by its file stem), or use `memrecall compare --names A,B`",
        {"evaluate": ("{rankings_a}", "--data", RELEASE, "--compare", "{rankings_a}")},
    ),
    Refusal(
        "--data",
        lambda f: f["data"] is not None and not f["rankings"],
        "--data is for the replay; give --rankings too",
        {"verify": ("{report_a}", "--data", RELEASE)},
    ),
    Refusal(
        "--per-query-input",
        lambda f: f["per_query"] is not None and not f["rankings"],
        "--per-query-input: its values are checked against the report's rankings before the card shows them; "
        "give --rankings (one per system) too",
        {"report": ("{report_a}", "--per-query-input", RELEASE)},
    ),
    Refusal(
        "--benchmark",
        lambda f: f["benchmark_name"] is not None and len(f["inputs"]) < 2,
        "diff needs at least two rankings files (A B)",
        {"diff": ("{rankings_a}", "--benchmark", "epirec")},
    ),
    Refusal(
        "--rankings",
        lambda f: f["benchmark_name"] is not None and bool(f["rankings"]),
        "--rankings is for reports; with --benchmark, A B ... are the rankings files",
        {"diff": (*RANKINGS, "--benchmark", "epirec", "--rankings", "{rankings_a}")},
    ),
    Refusal(
        "--system",
        lambda f: (f["system_spec"] is None) == (f["candidate"] is None),
        "give the candidate as --system NAME or as --candidate REPORT (one of them)",
        {"gate": ("--baseline", "{report_a}", "--metric", "recall@1", "--margin", "0.1")},
    ),
    Refusal(
        "--config",
        lambda f: f["config"] is not None and bool(f["metrics"] or f["strata"] or f["margin"] is not None),
        "give the guards as --config FILE or as --metric/--stratum/--margin, not both",
        {"gate": ("--baseline", "{report_a}", "--candidate", "{report_b}", "--config", RELEASE, "--margin", "0.1")},
    ),
    Refusal(
        "--metric",
        lambda f: f["config"] is None and (not f["metrics"] or f["margin"] is None),
        "give --metric and --margin (or --config FILE)",
        {"gate": ("--baseline", "{report_a}", "--candidate", "{report_b}", "--metric", "recall@1")},
    ),
    Refusal(
        "--update-baseline",
        lambda f: f["update_baseline"] and f["candidate"] is None,
        "--update-baseline needs the candidate as --candidate REPORT (a run writes no rankings file)",
        {
            "gate": (
                "--baseline",
                "{report_a}",
                "--system",
                "fts5",
                "--metric",
                "recall@1",
                "--margin",
                "0.1",
                "--update-baseline",
            )
        },
    ),  # fmt: skip
    Refusal(
        "--granularity",
        lambda f: f["granularity"] is not None and not f.benchmark.startswith("longmemeval"),
        "--granularity is only for the longmemeval benchmarks (LoCoMo: locomo-turn)",
        {"qrels": ("epirec", "--output", "OUT/q.txt", "--granularity", "turn")},
    ),
]


def refuse(ctx: click.Context, path: str) -> None:
    """Raise the first refusal of REFUSALS that holds for command `path` and its options (one line, its exit code)."""
    facts = Facts(ctx)
    for row in REFUSALS:
        if path in row.commands and row.when(facts):
            raise ERRORS[row.code](_message(row, facts))


def _message(row: Refusal, facts: Facts) -> str:
    """The row's line, filled in with the options' values and the facts it names."""
    values = {**facts.params, "facts": facts, "n_systems": len(facts.systems)}
    values["own"] = facts.own[0] if facts.own else ""
    return row.message.format(**values)
