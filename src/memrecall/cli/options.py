"""Every command-line option two or more commands take, each declared once: its name, type, default and help.

A command that takes an option uses its declaration here (tests/test_cli_options.py walks every command and
fails on an option name declared twice in different ways). What an option holds in one command (the file an
--output is, its default) is said in that command's description. Where one name used to mean two things, one
side was renamed; RENAMED keeps the old spelling working for scripts.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from pathlib import Path

import click

from memrecall.scoring.metrics import DEFAULT_RESAMPLES
from memrecall.scoring.options import MAX_RESAMPLES, MAX_SEED, MIN_RESAMPLES

DEFAULT_SEED = 0
DEFAULT_KS = "1,3,5,10"
DEFAULT_MODES = "fts5,dense,hybrid"
FILE = click.Path(path_type=Path)  # the output plan refuses a folder, in one line, before any work
FOLDER = click.Path(file_okay=False, path_type=Path)
EXISTING_FILE = click.Path(exists=True, dir_okay=False, path_type=Path)
SEED_TYPE = click.IntRange(0, MAX_SEED)
RESAMPLES_TYPE = click.IntRange(MIN_RESAMPLES, MAX_RESAMPLES)


def benchmark_names() -> str:
    """The registered benchmarks in words, for --help: epirec with its release aliases, then the rest."""
    from memrecall.benchmarks import BENCHMARKS, RELEASE_ALIASES

    others = ", ".join(name for name in BENCHMARKS if name != "epirec")
    return f"epirec (or {', '.join(RELEASE_ALIASES)} for one bundled release), {others}"


BENCHMARK_HELP = (
    f"Which benchmark the rankings files answer: {benchmark_names()}, or one an installed package registers "
    "[default: epirec]."
)


def stack(*options: Callable) -> Callable:
    """Several option decorators as one, listed in the order --help shows them."""

    def apply(function: Callable) -> Callable:
        for option in reversed(options):
            function = option(function)
        return function

    return apply


# --- what a command reads -------------------------------------------------------------------------------------
DATA = click.option(
    "--data",
    type=click.Path(exists=True, path_type=Path),
    default=None,
    help="The dataset file (a folder for beir) [default for epirec and its release aliases: the bundled release].",
)
BENCHMARK_DATA = click.option(
    "--benchmark-data",
    "data_values",
    multiple=True,
    metavar="BENCHMARK=PATH",
    help="A benchmark's data, repeatable: locomo=/path/locomo10.json, longmemeval=/path/longmemeval_s.json, "
    "beir=FOLDER (epirec and its release aliases always use the bundled releases).",
)
BENCHMARK = click.option("--benchmark", "--dataset", "benchmark_name", default=None, help=BENCHMARK_HELP)
RANKINGS = click.option(
    "--rankings",
    multiple=True,
    type=EXISTING_FILE,
    help="The reports' rankings, one file per system in the reports' order (repeat); each must be the one its "
    "report names [default where the command needs them: NAME.rankings.jsonl(.gz) beside each one-system "
    "NAME.report.json(.gz)].",
)
ROOT = click.option(
    "--root",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("."),
    show_default=True,
    help="Checkout to work on (data/personas/, data/archive/vN/personas/, the releases, SHA256SUMS, croissant.json); "
    "the current folder by default, never the copy installed with memrecall.",
)
TRUSTED_KEY = click.option(
    "--key",
    "trusted",
    multiple=True,
    type=EXISTING_FILE,
    help="A public key you trust (NAME.pub), repeatable: a signature counts only when one of them made it.",
)


def _system_spec(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """--system checked before any work (see cli.common.system_spec_option); absent stays None."""
    from memrecall.cli.common import system_spec_option

    return None if value is None else system_spec_option(ctx, param, value)


SYSTEM = click.option(
    "--system",
    "system_spec",
    default=None,
    callback=_system_spec,
    help="A system to run: a built-in or registered name such as dense, or MODULE:ATTR (a class or zero-argument "
    "factory); `run` takes a comma list, each later one paired against the first.",
)
METRIC = click.option(
    "--metric",
    "metrics",
    multiple=True,
    help="A metric to look at, e.g. recall@3 (repeat, or give a comma list).",
)
NAME = click.option(
    "--name",
    default=None,
    help="The system's name in the report, one system only [default: its registered name, ATTR, or the rankings "
    "file's stem].",
)


# --- what a command writes ------------------------------------------------------------------------------------
OUTPUT = click.option(
    "--output", type=FILE, default=None, help="The file this command writes (what it holds, and its default: above)."
)
OUT = click.option(
    "--out", type=FOLDER, default=None, help="The folder this command writes into (what goes there: above)."
)
EXPORT_RANKINGS = click.option(
    "--export-rankings",
    type=FILE,
    default=None,
    help="Rankings file to write (JSONL, or TREC with --rankings-format trec); with several systems or modes, "
    "FILE stem + .<system> + suffix for each.",
)
EXPORT_OFFICIAL_LOG = click.option(
    "--export-official-log",
    type=FILE,
    default=None,
    help="longmemeval benchmarks: LongMemEval's official retrieval log, for its QA stage (FILE stem + "
    ".<mode>.jsonl for each of several modes).",
)
RANKINGS_FORMAT = click.option(
    "--rankings-format",
    type=click.Choice(["jsonl", "trec"]),
    default="jsonl",
    show_default=True,
    help="Exported rankings as memrecall JSONL, or a TREC run (qid Q0 docid rank score tag).",
)
POPULATION = click.option(
    "--population",
    type=click.Choice(["headline", "all", "apart"]),
    default=None,
    help="Which queries a TREC file holds: the report's headline (the default, so trec_eval and ir_measures "
    "give its numbers), the queries it reports apart (LoCoMo adversarial, LongMemEval abstention), or all.",
)
PER_QUERY = click.option(
    "--per-query",
    type=FILE,
    default=None,
    help="Per-query results JSONL: target ranks, hit@k and top ids per query (and system).",
)
REPORT_DIR = click.option(
    "--report-dir",
    type=FOLDER,
    default=None,
    help="Also render figures and a Markdown report card into this folder.",
)
QUIET = click.option(
    "--quiet", is_flag=True, help="No progress bars and no tables; print only verdicts and where outputs went."
)


def output_options(function: Callable) -> Callable:
    """--per-query and --report-dir, shared by every command that scores systems."""
    return stack(PER_QUERY, REPORT_DIR)(function)


# --- how scores are computed ----------------------------------------------------------------------------------
SEED = click.option("--seed", type=SEED_TYPE, default=DEFAULT_SEED, show_default=True, help="Bootstrap seed (>= 0).")
RESAMPLES = click.option(
    "--resamples",
    type=RESAMPLES_TYPE,
    default=DEFAULT_RESAMPLES,
    show_default=True,
    help=f"Bootstrap resamples ({MIN_RESAMPLES}-{MAX_RESAMPLES}).",
)
bootstrap_options = stack(SEED, RESAMPLES)


def _metric_names(ctx: click.Context, param: click.Parameter, value: str | None) -> tuple[str, ...]:
    """--metrics parsed into canonical names; an unknown name is one line listing the known ones."""
    from memrecall.scoring.options import parse_metric_list

    return parse_metric_list(value)


metrics_option = click.option(
    "--metrics",
    default=None,
    metavar="NAMES",
    callback=_metric_names,
    help="Comma list of metrics to add beside the benchmark's headline, e.g. map,precision@5,ndcg@10 "
    "(names: docs/metrics.md).",
)


def _units() -> list[str]:
    """The --unit choices (imported late: the data layer loads only when the CLI does)."""
    from memrecall.data.granularity import UNITS

    return list(UNITS)


def _category5() -> list[str]:
    """The --category5 choices."""
    from memrecall.data.loaders.locomo import CATEGORY5

    return list(CATEGORY5)


def _golds() -> list[str]:
    """The --gold choices."""
    from memrecall.data.loaders.locomo_audit import GOLDS

    return list(GOLDS)


UNIT = click.option(
    "--unit",
    type=click.Choice(_units()),
    default=None,
    help="Score turn rankings at session level: the sessions of the ranked turns, first seen first "
    "(recall@k = any gold session among the first k distinct sessions).",
)
CATEGORY5 = click.option(
    "--category5",
    type=click.Choice(_category5()),
    default=None,
    help="LoCoMo: report the adversarial questions apart (the default) or score them in the headline.",
)
definition_options = stack(UNIT, CATEGORY5)
GOLD = click.option(
    "--gold",
    type=click.Choice(_golds()),
    default=None,
    help="LoCoMo: the evidence as released (official, the default) or as a public audit corrected it.",
)
GOLD_FILE = click.option(
    "--gold-file",
    type=EXISTING_FILE,
    default=None,
    help="With --gold audited: the audit's errors.json [default: locomo_audit/errors.json beside --data].",
)
gold_options = stack(GOLD, GOLD_FILE)
GRANULARITY = click.option(
    "--granularity",
    type=click.Choice(["session", "turn"]),
    default=None,
    help="Documents are sessions or turns (LongMemEval: user turns, also scored turn -> session; LoCoMo: the "
    "evidence turns) [default: session].",
)


# --- where and with what the systems run ----------------------------------------------------------------------
MODEL = click.option(
    "--model",
    default=None,
    help="The dense systems' encoder: a name from docs/encoders.md, a folder or a hub name (adapters keep their "
    "own) [default: $MEMRECALL_MODEL, else minilm].",
)
CACHE_DIR = click.option(
    "--cache-dir",
    type=click.Path(path_type=Path),  # the output plan refuses a file, in one line, before any work
    default=None,
    help="Embedding cache folder [default: $MEMRECALL_CACHE, else .memrecall_cache].",
)
EXECUTOR = click.option(
    "--executor",
    type=click.Choice(["local", "ray"]),
    default="local",
    show_default=True,
    help="local: this process; ray: a Ray actor pool encodes, Ray tasks rank (pip install 'memrecall[ray]').",
)
RAY_ADDRESS = click.option(
    "--ray-address", default=None, help="A running Ray cluster (ray start --head); default: start one."
)
WORKERS = click.option(
    "--workers", type=click.IntRange(min=1), default=2, show_default=True, help="Ray encoders and ranking tasks."
)
DEVICE = click.option(
    "--device",
    type=click.Choice(["auto", "cpu", "cuda", "mps"]),
    default="auto",
    show_default=True,
    help="Where the encoder runs; recorded in env, never in signed content.",
)
ENCODER_BACKEND = click.option(
    "--encoder-backend",
    type=click.Choice(["torch", "onnx"]),
    envvar="MEMRECALL_ENCODER_BACKEND",
    show_envvar=True,
    default="torch",
    show_default=True,
    help="torch: sentence-transformers (the reference); onnx: the same weights through ONNX Runtime, "
    "no torch at run time (pip install 'memrecall[onnx]').",
)
PRECISION = click.option(
    "--precision",
    type=click.Choice(["fp32", "int8"]),
    default="fp32",
    show_default=True,
    help="int8: ONNX Runtime dynamic quantization (onnx backend only; vectors and rankings differ).",
)


def executor_options(function: Callable) -> Callable:
    """--executor, --ray-address, --workers and --device: where the work runs (never what it computes)."""
    return stack(EXECUTOR, RAY_ADDRESS, WORKERS, DEVICE)(function)


def encoder_options(function: Callable) -> Callable:
    """--encoder-backend and --precision: what engine encodes, checked together before any work runs."""

    @functools.wraps(function)
    def checked(**params):
        from memrecall.encoding.backends import choose_backend

        device = params.get("device") or "auto"
        backend = choose_backend(params["encoder_backend"], params["precision"], device)
        if device not in ("auto", "cpu") and backend.name == "torch" and params.get("executor") != "ray":
            from memrecall.encoding.embeddings import available_device

            available_device(device)  # a device this machine lacks is refused before anything is created
        return function(**params)

    return stack(ENCODER_BACKEND, PRECISION)(checked)


# --- signing --------------------------------------------------------------------------------------------------
def _sign_key(ctx: click.Context, param: click.Parameter, value: Path | None) -> Path | None:
    """--sign-key checked before any work: read and parsed now, or, where a plug-in may run (a command marked
    RUNS_PLUGINS), only checked to be a readable regular file, its bytes read once every worker has exited."""
    if value is None:
        return None
    from memrecall.data.jsonfile import open_regular
    from memrecall.errors import ConfigError, DatasetError
    from memrecall.reports.proof.signing import load_private_key

    try:
        if getattr(ctx.command, RUNS_PLUGINS, False):
            with open_regular(value):
                pass
        else:
            load_private_key(value)
    except DatasetError as exc:
        problem = f"{value}: cannot use as the signing key: {exc.problem}"
        raise click.BadParameter(problem, ctx=ctx, param=param) from None
    except ConfigError as exc:
        raise click.BadParameter(str(exc), ctx=ctx, param=param) from None
    return Path(value)


RUNS_PLUGINS = "runs_plugins"
sign_option = click.option(
    "--sign-key",
    type=click.Path(dir_okay=False, path_type=Path),
    envvar="MEMRECALL_SIGN_KEY",
    default=None,
    callback=_sign_key,
    help="Ed25519 private key (memrecall keys new) that signs the report's fingerprint [env: MEMRECALL_SIGN_KEY]; "
    "where a plug-in runs, read only once every plug-in worker has exited.",
)


def runs_plugins(command: click.Command) -> click.Command:
    """Mark a command that may run a plug-in: its --sign-key is read only after the run."""
    setattr(command, RUNS_PLUGINS, True)
    return command


# --- names that used to mean two things -----------------------------------------------------------------------
# command path -> {old spelling: the name it is now}; the old spelling still works, unlisted in --help
RENAMED: dict[str, dict[str, str]] = {
    "diff": {"--k": "--cutoff"},
    "gate": {"--seed": "--sample-seed"},
    "report": {"--per-query": "--per-query-input"},
    "keys sign": {"--key": "--sign-key"},
    "keys new": {"--name": "--key-name"},
    "qrels": {"--out": "--output"},
    "baseline": {"--export-rankings": "--export-rankings-dir"},
    "sweep": {"--data": "--benchmark-data", "--cache-dir": "--cache-root"},
    "leaderboard": {"--data": "--benchmark-data"},
    "labels agree": {"--sample": "--sheet"},
}


# command path -> options declared here (optional elsewhere) that the command cannot run without
REQUIRED: dict[str, tuple[str, ...]] = {
    "run": ("system_spec",),
    "locomo": ("data",),
    "longmemeval": ("data",),
    "sweep": ("out",),
    "leaderboard": ("out",),
    "keys new": ("out",),
    "keys sign": ("sign_key",),
    "qrels": ("output",),
}


def renamed_args(path: str, args: Iterable[str]) -> list[str]:
    """A command's arguments with every old option spelling (RENAMED) replaced by its current name."""
    names = RENAMED.get(path, {})
    out: list[str] = []
    rest = False
    for arg in args:
        if not rest and arg == "--":
            rest = True
        elif not rest and names:
            flag, eq, value = arg.partition("=")
            arg = names[flag] + eq + value if flag in names else arg
        out.append(arg)
    return out


def require(name: str) -> None:
    """Refuse a missing option some commands need (click's own 'Missing option' line, exit 2)."""
    ctx = click.get_current_context()
    param = next(p for p in ctx.command.params if p.name == name)
    raise click.MissingParameter(ctx=ctx, param=param)


def metric_list(values: Iterable[str]) -> list[str]:
    """Repeated and comma-listed --metric values, flattened in order."""
    return [item.strip() for value in values for item in value.split(",") if item.strip()]


def command_path(ctx: click.Context) -> str:
    """A command's path under `memrecall`, e.g. `keys sign` (the key of RENAMED and of the refusal table)."""
    names = []
    while ctx.parent is not None:
        names.insert(0, ctx.info_name or "")
        ctx = ctx.parent
    return " ".join(names)


class Command(click.Command):
    """Every memrecall command: old option spellings still work (RENAMED), and every refusal of a combination
    of options (cli.applicable.REFUSALS) is made before the command reads anything."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        """Parse with old option spellings replaced by their current names."""
        return super().parse_args(ctx, renamed_args(command_path(ctx), args))

    def invoke(self, ctx: click.Context):
        """Refuse a missing REQUIRED option, then what the refusal table refuses, then run the command."""
        from memrecall.cli.applicable import refuse

        for name in REQUIRED.get(command_path(ctx), ()):
            if ctx.params.get(name) in (None, ()):
                require(name)
        refuse(ctx, command_path(ctx))
        return super().invoke(ctx)


class Group(click.Group):
    """A memrecall command group: its commands are Commands."""

    command_class = Command
