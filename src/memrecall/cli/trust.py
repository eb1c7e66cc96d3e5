"""`memrecall keys` (new, sign) and `memrecall verify`: who vouches for a report, and whether its numbers hold."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from memrecall.data.releases import DEFAULT_VERSION
from memrecall.io import announce


@click.group()
def keys() -> None:
    """Ed25519 keys that sign reports: make a pair, or add a signature to a report."""


@keys.command("new")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), required=True, help="Folder for the pair.")
@click.option("--name", default="memrecall", show_default=True, help="File name stem: NAME.key and NAME.pub.")
def keys_new(out: Path, name: str) -> None:
    """Write a new key pair: NAME.key (private, mode 0600) and NAME.pub (public, to publish)."""
    from memrecall.reports.proof.signing import write_key_pair

    private, public, key_id = write_key_pair(out, name)
    announce(f"private key: {private} (mode 0600; keep it secret)")
    announce(f"public key: {public}")
    announce(f"key_id: {key_id}")


@keys.command("sign")
@click.argument("report_path", metavar="REPORT", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--key",
    "key_file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    required=True,
    help="Ed25519 private key (memrecall keys new).",
)
@click.option(
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Where the signed report goes [default: REPORT itself, replaced atomically; content untouched].",
)
def keys_sign(report_path: Path, key_file: Path, output: Path | None) -> None:
    """Add a signature to an existing report (a key that signed it before signs again in its place)."""
    from memrecall.cli.common import report_line, write_report
    from memrecall.data.jsonfile import read_json
    from memrecall.errors import ConfigError
    from memrecall.reports.content import shape_problem
    from memrecall.reports.proof.signing import load_private_key

    key = load_private_key(key_file)

    report = read_json(report_path)
    problem = shape_problem(report)
    if problem:
        raise ConfigError(f"{report_path}: {problem}")
    output = output or report_path
    if output != report_path:
        from memrecall.cli.common import new_plan

        plan = new_plan()
        plan.input("REPORT", report_path)
        plan.input("--key", key_file)
        output = plan.output("--output", output)
        plan.check()
    try:
        report = write_report(output, report, key)
    except ConfigError as exc:
        raise ConfigError(f"{report_path}: {exc}") from None
    announce(report_line(output, report))


@click.command()
@click.argument("report_path", metavar="REPORT", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--key",
    "trusted",
    multiple=True,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="A public key you trust (NAME.pub); repeat for several. One signature must be by one of them.",
)
@click.option(
    "--rankings",
    multiple=True,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="The report's rankings, one file per system (repeat). Matched to the report's systems by file stem "
    "when the stems are exactly the system names (baseline's --export-rankings files), else in the report's order.",
)
@click.option(
    "--data",
    type=click.Path(exists=True, path_type=Path),
    default=None,
    help="The dataset the report was made from (a folder for beir), for the replay "
    f"[default for epirec: {DEFAULT_VERSION}]; "
    "its sha256 must match.",
)
def verify(report_path: Path, trusted: tuple[Path, ...], rankings: tuple[Path, ...], data: Path | None) -> None:
    """Check a report: fingerprint, signatures, a trusted key (--key), a replay (--rankings); one line each."""
    from memrecall.data.jsonfile import read_json
    from memrecall.reports.proof.signing import load_public_key
    from memrecall.reports.proof.verification import report_state, verify_report

    if data is not None and not rankings:
        raise click.BadParameter("--data is for the replay; give --rankings too", param_hint="--data")
    from memrecall.data.formats import REPORTS, check_inputs, rankings_kinds

    keys = [load_public_key(path) for path in trusted]
    check_inputs("REPORT", [report_path], ("report",), REPORTS)
    check_inputs("--rankings", rankings, *rankings_kinds("longmemeval"))
    report = read_json(report_path)
    from memrecall.reports.shapes import current_shape

    current, note = current_shape(report)
    if note:
        click.echo(f"note: {note}")
    checks = verify_report(report, keys, rankings, data)
    for check in checks:
        click.echo(f"{'ok' if check.ok else 'FAIL'} {check.name}: {check.detail}")
    if checks and checks[0].ok:
        from memrecall.reports.per_query_binding import report_systems
        from memrecall.reports.proof.identity import describe_identity

        for name in report_systems(current["content"]):
            click.echo(f"code {name}: {describe_identity(current['content'], name)}")
    state = report_state(report, checks)
    click.echo(f"{report_path}: {state}")
    if state == "UNVERIFIED":
        sys.exit(1)
