"""`memrecall keys` (new, sign) and `memrecall verify`: who vouches for a report, and whether its numbers hold."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from memrecall.cli.options import DATA, OUT, OUTPUT, RANKINGS, TRUSTED_KEY, Command, Group, sign_option
from memrecall.io import announce


@click.group(cls=Group)
def keys() -> None:
    """Ed25519 keys that sign reports: make a pair, or add a signature to a report."""


@keys.command("new")
@OUT
@click.option("--key-name", default="memrecall", show_default=True, help="File name stem: NAME.key and NAME.pub.")
def keys_new(out: Path, key_name: str) -> None:
    """Write a new key pair into the --out folder: NAME.key (private, mode 0600) and NAME.pub (public)."""
    from memrecall.reports.proof.signing import write_key_pair

    private, public, key_id = write_key_pair(out, key_name)
    announce(f"private key: {private} (mode 0600; keep it secret)")
    announce(f"public key: {public}")
    announce(f"key_id: {key_id}")


@keys.command("sign")
@click.argument("report_path", metavar="REPORT", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@sign_option
@OUTPUT
def keys_sign(report_path: Path, sign_key: Path, output: Path | None) -> None:
    """Add a signature to an existing report (a key that signed it before signs again in its place).

    --output is where the signed report goes [default: REPORT itself, replaced atomically; content untouched].
    """
    from memrecall.cli.common import report_line, write_report
    from memrecall.data.jsonfile import read_json
    from memrecall.errors import ConfigError
    from memrecall.reports.content import shape_problem
    from memrecall.reports.proof.signing import load_private_key

    key = load_private_key(sign_key)

    report = read_json(report_path)
    problem = shape_problem(report)
    if problem:
        raise ConfigError(f"{report_path}: {problem}")
    output = output or report_path
    if output != report_path:
        from memrecall.cli.common import new_plan

        plan = new_plan()
        plan.input("REPORT", report_path)
        plan.input("--sign-key", sign_key)
        output = plan.output("--output", output)
        plan.check()
    try:
        report = write_report(output, report, key)
    except ConfigError as exc:
        raise ConfigError(f"{report_path}: {exc}") from None
    announce(report_line(output, report))


@click.command(cls=Command)
@click.argument("report_path", metavar="REPORT", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@TRUSTED_KEY
@RANKINGS
@DATA
def verify(report_path: Path, trusted: tuple[Path, ...], rankings: tuple[Path, ...], data: Path | None) -> None:
    """Check a report: fingerprint, signatures, a trusted key (--key), a replay (--rankings); one line each.

    --rankings are matched to the report's systems by file stem when the stems are exactly the system names
    (baseline's --export-rankings-dir files), else in the report's order; --data is the dataset the report was
    made from (its sha256 must match).
    """
    from memrecall.data.formats import REPORTS, check_inputs, rankings_kinds
    from memrecall.data.jsonfile import read_json
    from memrecall.reports.proof.signing import load_public_key
    from memrecall.reports.proof.verification import report_state, verify_report

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
        from memrecall.encoding.vector_cache import cache_check_text
        from memrecall.errors import short
        from memrecall.reports.content import report_systems
        from memrecall.reports.proof.identity import describe_identity

        systems = current["content"].get("systems")
        for name in report_systems(current["content"]):
            click.echo(f"code {name}: {describe_identity(current['content'], name)}")
            entry = systems.get(name) if isinstance(systems, dict) else None
            claim = entry.get("encoder") if isinstance(entry, dict) else None
            if isinstance(claim, dict):
                click.echo(f"encoder {name}: {short(str(claim.get('id')))}, {cache_check_text(claim)}")
    state = report_state(report, checks)
    click.echo(f"{report_path}: {state}")
    if state == "UNVERIFIED":
        sys.exit(1)
