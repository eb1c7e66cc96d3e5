"""What the commands share: option sets, output writing, system loading, the report card hook."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

import click

from memrecall.data.model import Ranking, Task


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
    for option in reversed(options):
        function = option(function)
    return function


def make_executor_from(executor: str, workers: int, ray_address: str | None):
    """The executor the options ask for (Ray starts here, after every output location was checked)."""
    from memrecall.running.executors import make_executor

    return make_executor(executor, workers, ray_address)


def card_file(report_dir: Path | None) -> Path | None:
    """The Markdown card a --report-dir receives (checked like any output file)."""
    return report_dir / "README.md" if report_dir is not None else None


MAX_RESAMPLES = 100_000
SEED_TYPE = click.IntRange(0, 2**63 - 1)
RESAMPLES_TYPE = click.IntRange(100, MAX_RESAMPLES)


def bootstrap_options(function: Callable) -> Callable:
    """--seed (0 or more) and --resamples (100 to 100,000)."""
    function = click.option(
        "--resamples", type=RESAMPLES_TYPE, default=2000, show_default=True, help="Bootstrap resamples (100-100000)."
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
    """The private key of --sign-key (or $MEMRECALL_SIGN_KEY), read before any work runs."""
    if value is None:
        return None
    from memrecall.errors import ConfigError
    from memrecall.reports.signing import load_private_key

    try:
        return load_private_key(value)
    except ConfigError as exc:
        raise click.BadParameter(str(exc), ctx=ctx, param=param) from None


def sign_option(function: Callable) -> Callable:
    """--sign-key FILE (or $MEMRECALL_SIGN_KEY): add an Ed25519 signature over the report's fingerprint."""
    return click.option(
        "--sign-key",
        type=click.Path(dir_okay=False, path_type=Path),
        envvar="MEMRECALL_SIGN_KEY",
        default=None,
        callback=load_sign_key,
        help="Ed25519 private key (memrecall keys new) that signs the report's fingerprint [env: MEMRECALL_SIGN_KEY].",
    )(function)


def write_report(output: Path, report: dict, sign_key) -> dict:
    """Sign the report when a key was given and write it; the written report comes back."""
    from memrecall.io import write_json

    if sign_key is not None:
        from memrecall.reports.signing import sign_report

        report = sign_report(report, sign_key)
    write_json(output, report)
    return report


def report_line(output: Path, report: dict) -> str:
    """`report: PATH (content_sha256 0123456789ab, signed by KEY_ID)`."""
    from memrecall.reports.fingerprint import report_fingerprint

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
        click.echo(f"per-query results: {per_query} ({len(rows)} rows)")
    render_card(report, report_dir, hardest_for(report, rows))


def render_card(report: dict, folder: Path | None, hardest: list[dict] | None = None) -> None:
    """Write figures and the Markdown report card when a folder is given."""
    if folder is None:
        return
    from memrecall.reports.card import write_report_card

    written = write_report_card(report, folder, hardest)
    click.echo(f"report card: {folder}/README.md ({len(written) - 1} figures)")


def hardest_for(report: dict, rows: list[dict]) -> list[dict]:
    """The queries every system missed at the report's primary cut-off, from per-query rows."""
    from memrecall.scoring.per_query import hardest_queries, primary_cutoff

    return hardest_queries(rows, primary_cutoff(report["content"]["primary_metric"]))


def all_per_query(task: Task, runs: Mapping[str, Mapping[str, Ranking]], ks) -> list[dict]:
    """Per-query rows of every system, system by system."""
    from memrecall.scoring.per_query import per_query_rows

    return [row for name, rankings in runs.items() for row in per_query_rows(task, rankings, name, ks)]
