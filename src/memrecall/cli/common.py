"""What the commands share: output planning and writing, system loading, the report card hook."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import click

from memrecall.data.model import Ranking, Task
from memrecall.data.releases import RELEASES
from memrecall.io import announce


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


def load_options(benchmark_name: str, category5: str | None, gold: str | None = None, gold_file=None) -> dict:
    """The loader options --category5, --gold and --gold-file ask for (cli.applicable refuses them elsewhere)."""
    return {k: v for k, v in {"category5": category5, "gold": gold, "gold_file": gold_file}.items() if v is not None}
