"""What the commands share: option sets, output writing, system loading, the report card hook."""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from pathlib import Path

import click

from memrecall.data.model import Ranking, Task
from memrecall.data.releases import RELEASES
from memrecall.io import announce
from memrecall.scoring.metrics import DEFAULT_RESAMPLES
from memrecall.scoring.options import MAX_RESAMPLES, MAX_SEED, MIN_RESAMPLES


def executor_options(function: Callable) -> Callable:
    """--executor, --ray-address, --workers and --device: where the work runs (never what it computes)."""
    options = [
        click.option(
            "--executor",
            type=click.Choice(["local", "ray"]),
            default="local",
            show_default=True,
            help="local: this process; ray: a Ray actor pool encodes, Ray tasks rank (pip install 'memrecall[ray]').",
        ),
        click.option(
            "--ray-address", default=None, help="A running Ray cluster (ray start --head); default: start one."
        ),
        click.option(
            "--workers",
            type=click.IntRange(min=1),
            default=2,
            show_default=True,
            help="Ray encoders and ranking tasks.",
        ),
        click.option(
            "--device",
            type=click.Choice(["auto", "cpu", "cuda", "mps"]),
            default="auto",
            show_default=True,
            help="Where the encoder runs; recorded in env, never in signed content.",
        ),
    ]

    @functools.wraps(function)
    def checked(*args, **kwargs):
        from memrecall.cli.applicable import refuse_ray_only

        refuse_ray_only(kwargs["executor"])  # before any input is read or output planned
        return function(*args, **kwargs)

    for option in reversed(options):
        checked = option(checked)
    return checked


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

    options = [
        click.option(
            "--encoder-backend",
            type=click.Choice(["torch", "onnx"]),
            envvar="MEMRECALL_ENCODER_BACKEND",
            show_envvar=True,
            default="torch",
            show_default=True,
            help="torch: sentence-transformers (the reference); onnx: the same weights through ONNX Runtime, "
            "no torch at run time (pip install 'memrecall[onnx]').",
        ),
        click.option(
            "--precision",
            type=click.Choice(["fp32", "int8"]),
            default="fp32",
            show_default=True,
            help="int8: ONNX Runtime dynamic quantization (onnx backend only; vectors and rankings differ).",
        ),
    ]
    for option in reversed(options):
        checked = option(checked)
    return checked


def make_executor_from(executor: str, workers: int, ray_address: str | None):
    """The executor the options ask for (Ray starts here, after every output location was checked)."""
    from memrecall.running.executors import make_executor

    return make_executor(executor, workers, ray_address)


CHECKOUT_FILES = ("memrecall_rules.json", "SHA256SUMS", "croissant.json", *RELEASES)
CHECKOUT_SOURCES = ("data/personas", "data/archive")


def new_plan(cache: Path | None = None, writes_cache: bool = False, checkout: bool = True):
    """An output plan that already protects the embedding cache and, in a memrecall checkout, its corpus files."""
    from memrecall.encoding.embeddings import cache_dir
    from memrecall.outputs import OutputPlan

    plan = OutputPlan()
    label = "--cache-dir" if cache is not None else "the embedding cache"
    if writes_cache:
        plan.store(label, cache_dir(cache))
    else:
        plan.protect(label, cache_dir(cache))
    if checkout:
        protect_checkout(plan, Path("."))
    return plan


def data_input(plan, path: Path | None) -> Path | None:
    """Declare --data: a file is an input; a folder (a beir dataset) is protected, so no output lands inside it."""
    if path is not None and Path(path).is_dir():
        plan.protect("--data", path)
    return plan.input("--data", path)


def protect_checkout(plan, root: Path, generated: bool = True) -> None:
    """A checkout's source folders are protected; its rules file (and releases, SHA256SUMS, croissant) are inputs."""
    data = root / "data"
    if not (data / "memrecall_rules.json").exists() and not (data / "personas").is_dir():
        return
    for folder in CHECKOUT_SOURCES:
        plan.protect("the corpus sources", root / folder)
    for name in CHECKOUT_FILES if generated else CHECKOUT_FILES[:1]:
        plan.input("the corpus file", data / name)


def plugin_inputs(plan, spec: str) -> None:
    """A MODULE:ATTR (or entry-point) plug-in's own source file is an input, found without importing it."""
    import sys
    from importlib.metadata import entry_points

    from memrecall.systems.registry import module_file

    for entry in entry_points(group="memrecall.systems"):
        if entry.name == spec:
            spec = entry.value
    if ":" not in spec:
        return
    found = module_file(spec.partition(":")[0].strip(), [str(Path.cwd()), *sys.path])
    plan.input("--system", found)


SEED_TYPE = click.IntRange(0, MAX_SEED)
RESAMPLES_TYPE = click.IntRange(MIN_RESAMPLES, MAX_RESAMPLES)


def bootstrap_options(function: Callable) -> Callable:
    """--seed (0 or more) and --resamples (100 to 100,000)."""
    function = click.option(
        "--resamples",
        type=RESAMPLES_TYPE,
        default=DEFAULT_RESAMPLES,
        show_default=True,
        help="Bootstrap resamples (100-100000).",
    )(function)
    return click.option("--seed", type=SEED_TYPE, default=0, show_default=True, help="Bootstrap seed (>= 0).")(function)


def output_options(function: Callable) -> Callable:
    """--per-query and --report-dir, shared by every command that scores systems."""
    function = click.option(
        "--report-dir",
        type=click.Path(file_okay=False, path_type=Path),
        default=None,
        help="Also render figures and a Markdown report card into this folder.",
    )(function)
    return click.option(
        "--per-query",
        type=click.Path(dir_okay=False, path_type=Path),
        default=None,
        help="Per-query results JSONL: target ranks, hit@k and top ids per query (and system).",
    )(function)


def load_sign_key(ctx: click.Context, param: click.Parameter, value: Path | None):
    """The private key of --sign-key (or $MEMRECALL_SIGN_KEY), read before any work (no plug-in runs here)."""
    if value is None:
        return None
    from memrecall.errors import ConfigError
    from memrecall.reports.proof.signing import load_private_key

    try:
        return load_private_key(value)
    except ConfigError as exc:
        raise click.BadParameter(str(exc), ctx=ctx, param=param) from None


def check_sign_key(ctx: click.Context, param: click.Parameter, value: Path | None) -> Path | None:
    """--sign-key (or $MEMRECALL_SIGN_KEY) checked to be a readable regular file; its bytes are read only to sign,
    after every plug-in worker has exited."""
    if value is None:
        return None
    from memrecall.data.jsonfile import open_regular
    from memrecall.errors import DatasetError

    try:
        with open_regular(value):
            pass
    except DatasetError as exc:
        problem = f"{value}: cannot use as the signing key: {exc.problem}"
        raise click.BadParameter(problem, ctx=ctx, param=param) from None
    return Path(value)


def sign_option(function: Callable, runs_plugins: bool = False) -> Callable:
    """--sign-key FILE (or $MEMRECALL_SIGN_KEY): add an Ed25519 signature over the report's fingerprint.

    Where a plug-in may run (`run`), the key file is only checked to be a regular file until the run is over.
    """
    return click.option(
        "--sign-key",
        type=click.Path(dir_okay=False, path_type=Path),
        envvar="MEMRECALL_SIGN_KEY",
        default=None,
        callback=check_sign_key if runs_plugins else load_sign_key,
        help="Ed25519 private key (memrecall keys new) that signs the report's fingerprint [env: MEMRECALL_SIGN_KEY]"
        + ("; read only once every plug-in worker has exited." if runs_plugins else "."),
    )(function)


def plugin_sign_option(function: Callable) -> Callable:
    """--sign-key for a command that may run a plug-in: the key is read after the run."""
    return sign_option(function, runs_plugins=True)


def write_report(output: Path, report: dict, sign_key) -> dict:
    """Sign the report when a key (a key file, read now, or a loaded key) was given, and write it."""
    from memrecall.io import write_json

    if sign_key is not None:
        from memrecall.reports.proof.signing import load_private_key, sign_report

        key = load_private_key(sign_key) if isinstance(sign_key, (str, Path)) else sign_key
        report = sign_report(report, key)
    write_json(output, report)
    return report


def report_line(output: Path, report: dict) -> str:
    """`report: PATH (content_sha256 0123456789ab, signed by KEY_ID)`."""
    from memrecall.reports.proof.fingerprint import report_fingerprint

    signers = ", ".join(s["key_id"] for s in report.get("signatures", []))
    how = f"signed by {signers}" if signers else "not signed"
    return f"report: {output} (content_sha256 {report_fingerprint(report)[:12]}, {how})"


def finish_outputs(report: dict, rows: list[dict], per_query: Path | None, report_dir: Path | None) -> None:
    """Write the per-query rows (bound to the report) and the report card (with its hardest queries) when asked."""
    if per_query is not None:
        from memrecall.io import write_jsonl
        from memrecall.reports.per_query_binding import bind_rows

        rows = bind_rows(report, rows)
        write_jsonl(per_query, rows)
        announce(f"per-query results: {per_query} ({len(rows)} rows)")
    render_card(report, report_dir, hardest_for(report, rows), rows)


def render_card(
    report: dict, folder: Path | None, hardest: list[dict] | None = None, rows: list[dict] | None = None
) -> None:
    """Write figures and the Markdown report card when a folder is given."""
    if folder is None:
        return
    from memrecall.reports.cards.card import write_report_card

    written = write_report_card(report, folder, hardest, rows=rows)
    announce(f"report card: {folder}/README.md ({len(written) - 1} figures)")


def hardest_for(report: dict, rows: list[dict]) -> list[dict]:
    """The queries every system missed at the report's primary cut-off, from per-query rows."""
    from memrecall.scoring.per_query import hardest_queries, primary_cutoff

    return hardest_queries(rows, primary_cutoff(report["content"]["primary_metric"]))


def all_per_query(task: Task, runs: Mapping[str, Mapping[str, Ranking]], ks) -> list[dict]:
    """Per-query rows of every system, system by system."""
    from memrecall.scoring.per_query import per_query_rows

    return [row for name, rankings in runs.items() for row in per_query_rows(task, rankings, name, ks)]


def system_spec_option(ctx: click.Context, param: click.Parameter, value: str) -> str:
    """Refuse a file path given for --system (a service file, *.toml, excepted), saying the MODULE:ATTR that names
    the same plug-in); a name that names no system is a usage error too; a comma list is checked item by item."""
    from memrecall.systems.registry import spec_problem

    if "," in value:
        for item in value.split(","):
            system_spec_option(ctx, param, item.strip())
        return value
    module, _, attr = value.partition(":")
    if value.endswith(".toml") or not (module.endswith(".py") or "/" in module or "\\" in module):
        problem = spec_problem(value)
        if problem is not None:
            raise click.BadParameter(problem, ctx=ctx, param=param)
        return value
    path = Path(module)
    classes = _system_classes(path) if not attr else [attr]
    example = f"{path.stem}:{classes[0] if classes else 'ClassName'}"
    folder = path.parent if str(path.parent) not in ("", ".") else None
    where = f"run from {folder} (or put it on PYTHONPATH) with" if folder else "the current folder is imported from:"
    raise click.BadParameter(
        f"{value} is a file path; give MODULE:ATTR, the module's import name and the class or factory in it "
        f"({where} --system {example})",
        ctx=ctx,
        param=param,
    )


def _system_classes(path: Path) -> list[str]:
    """Names of the top-level classes in a Python file that define rank (read with ast, never imported)."""
    import ast

    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
        return []
    return [
        node.name
        for node in tree.body
        if isinstance(node, ast.ClassDef)
        and any(isinstance(item, ast.FunctionDef) and item.name == "rank" for item in node.body)
    ]


def _metric_names(ctx: click.Context, param: click.Parameter, value: str | None) -> tuple[str, ...]:
    """--metrics parsed into canonical names; an unknown name is one line listing the known ones."""
    from memrecall.scoring.options import parse_metric_list

    return parse_metric_list(value)


def metrics_option(function: Callable) -> Callable:
    """--metrics NAMES: metrics scored beside the benchmark's own headline, recorded in the signed content."""
    return click.option(
        "--metrics",
        default=None,
        metavar="NAMES",
        callback=_metric_names,
        help="Comma list of metrics to add beside the benchmark's headline, e.g. map,precision@5,ndcg@10 "
        "(names: docs/metrics.md).",
    )(function)


def definition_options(function: Callable) -> Callable:
    """--unit and --category5: score under another published definition, recorded in the signed content."""
    from memrecall.data.granularity import UNITS
    from memrecall.data.loaders.locomo import CATEGORY5

    function = click.option(
        "--category5",
        type=click.Choice(CATEGORY5),
        default=None,
        help="LoCoMo: report the adversarial questions apart (the default) or score them in the headline.",
    )(function)
    return click.option(
        "--unit",
        type=click.Choice(UNITS),
        default=None,
        help="Score turn rankings at session level: the sessions of the ranked turns, first seen first "
        "(recall@k = any gold session among the first k distinct sessions).",
    )(function)


def load_options(benchmark_name: str, category5: str | None, gold: str | None = None, gold_file=None) -> dict:
    """The loader options --category5 and --gold ask for; BadParameter when the benchmark is not LoCoMo."""
    given = {k: v for k, v in {"category5": category5, "gold": gold, "gold_file": gold_file}.items() if v is not None}
    locomo = benchmark_name.startswith("locomo") and not benchmark_name.startswith("locomo-plus")
    if given and not locomo:
        hint = "--" + next(iter(given)).replace("_", "-")
        raise click.BadParameter(f"only for the locomo benchmarks, not {benchmark_name}", param_hint=hint)
    if gold_file is not None and gold != "audited":
        raise click.BadParameter("the audit file is read only with --gold audited", param_hint="--gold-file")
    return given


def gold_options(function: Callable) -> Callable:
    """--gold and --gold-file: LoCoMo's evidence as released, or as a public audit corrected it."""
    from memrecall.data.loaders.locomo_audit import GOLDS

    function = click.option(
        "--gold-file",
        type=click.Path(exists=True, dir_okay=False, path_type=Path),
        default=None,
        help="With --gold audited: the audit's errors.json [default: locomo_audit/errors.json beside --data].",
    )(function)
    return click.option(
        "--gold",
        type=click.Choice(GOLDS),
        default=None,
        help="LoCoMo: the evidence as released (official, the default) or as a public audit corrected it.",
    )(function)
