"""`memrecall report`: a report's card, with figures, checked as far as the inputs given allow."""

from __future__ import annotations

from pathlib import Path

import click

from memrecall.cli.common import data_input, new_plan
from memrecall.cli.options import DATA, OUT, RANKINGS, TRUSTED_KEY, Command
from memrecall.io import announce


@click.command("report", cls=Command)
@click.argument("report_path", metavar="REPORT", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@OUT
@click.option(
    "--per-query-input",
    "per_query",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    default=None,
    help="The run's per-query JSONL, for the card's hardest-queries table: refused unless it is this report's and "
    "every value is what --rankings give (so --rankings is required with it).",
)
@TRUSTED_KEY
@RANKINGS
@DATA
@click.option(
    "--allow-unverified",
    "--allow-unsigned",
    "allow_unverified",
    is_flag=True,
    help="Render a report that fails verification (fingerprint, signature, key or replay); the card says UNVERIFIED.",
)
def report_command(
    report_path: Path,
    out: Path | None,
    per_query: Path | None,
    trusted: tuple[Path, ...],
    rankings: tuple[Path, ...],
    data: Path | None,
    allow_unverified: bool,
) -> None:
    """Render a report into PNG figures and a Markdown card that says how far it is verified.

    --out is the card's folder [default: REPORT stem + _card]; --rankings and --data replay the report.
    """
    from memrecall.data.formats import KINDS, check_inputs, rankings_kinds, wrong_format_hint
    from memrecall.data.jsonfile import read_json
    from memrecall.errors import ConfigError, MemrecallError
    from memrecall.reports.cards.card import write_report_card
    from memrecall.reports.content import shape_problem
    from memrecall.reports.proof.signing import load_public_key
    from memrecall.reports.proof.verification import report_state, verify_report

    keys = [load_public_key(path) for path in trusted]
    plan = new_plan()
    report_path = plan.input("REPORT", report_path)
    per_query = plan.input("--per-query-input", per_query)
    rankings = [plan.input("--rankings", path) for path in rankings]
    data = data_input(plan, data)
    stem = Path(report_path.name.removesuffix(".gz")).stem  # x.report.json and x.report.json.gz: x.report_card
    out = plan.card("--out", out or report_path.with_name(stem + "_card"))
    plan.check()  # the outputs first, then what each input holds
    check_inputs("--rankings", rankings, *rankings_kinds("longmemeval"))
    check_inputs("--per-query-input", [per_query] if per_query else [], ("per-query",), KINDS["per-query"])
    try:
        report = read_json(report_path)
    except MemrecallError:
        hint = wrong_format_hint(report_path, "report")
        if hint is None:
            raise
        raise ConfigError(f"{report_path}: {hint}") from None
    from memrecall.reports.shapes import current_shape

    current, note = current_shape(report)
    problem = shape_problem(current)
    if problem:
        hint = wrong_format_hint(report_path, "report")
        raise ConfigError(f"{report_path}: {hint or problem}")
    if note:
        click.echo(f"note: {report_path}: {note}", err=True)
    checks = verify_report(report, keys, rankings, data)
    state = report_state(report, checks)
    reason = f"{checks[-1].name}: {checks[-1].detail}"
    if state == "UNVERIFIED" and not allow_unverified:
        raise ConfigError(f"{report_path}: UNVERIFIED: {reason}; --allow-unverified renders it marked UNVERIFIED")
    if state == "UNVERIFIED":
        click.echo(f"warning: {report_path}: UNVERIFIED ({reason}); card marked UNVERIFIED", err=True)
    hardest, rows, report = None, None, current  # verified as written, read in the current shape
    if per_query is not None:
        from memrecall.cli.common import hardest_for
        from memrecall.reports.per_query_binding import check_binding, check_values
        from memrecall.scoring.per_query import read_per_query

        rows = read_per_query(per_query)
        check_binding(report, rows, str(per_query))
        check_values(report, rows, rankings, data, str(per_query))
        hardest = hardest_for(report, rows)
    for path in write_report_card(report, out, hardest, state=state, reason=reason, rows=rows):
        announce(f"wrote {path}")


def report_arguments(argv: list[str], default_report: str, default_out: str) -> list[str]:
    """`memrecall report` arguments with REPORT and --out filled in where `argv` leaves them out."""
    given, index = None, 0
    while index < len(argv):
        if argv[index] in ("--out", "--per-query", "--per-query-input"):
            index += 2
            continue
        if not argv[index].startswith("-") and given is None:
            given = argv[index]
        index += 1
    extra = [] if any(a == "--out" or a.startswith("--out=") for a in argv) else ["--out", default_out]
    return ["report", *([] if given else [default_report]), *argv, *extra]
