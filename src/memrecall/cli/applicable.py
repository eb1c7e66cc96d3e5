"""One table of options that cannot apply in a mode: each is refused, naming the option and why, never ignored."""

from __future__ import annotations

import click
from click.core import ParameterSource

from memrecall.errors import UsageError

AS_SCORED = "reports are compared as they were scored; nothing is scored again"
# (command, mode) -> {parameter name: why it cannot apply}
RULES: dict[tuple[str, str], dict[str, str]] = {
    ("compare", "reports"): {
        "names": "reports carry their systems' names",
        "benchmark_name": "reports name their benchmark",
        "data": AS_SCORED,
        "seed": AS_SCORED,
        "resamples": AS_SCORED,
        "metrics": AS_SCORED,
        "csv_path": f"it needs rankings files; {AS_SCORED}",
        "latex_path": f"it needs rankings files; {AS_SCORED}",
        "per_query": f"it needs rankings files; {AS_SCORED}",
        "report_dir": "a comparison of reports has no report card; run `memrecall report` on each report",
    },
    ("compare", "rankings"): {
        "allow_mismatch": "only reports carry comparability manifests; rankings files are scored on one task",
    },
}
MODES = {"reports": "reports", "rankings": "rankings files"}


def refuse_inapplicable(mode: str) -> None:
    """A UsageError (exit 2) for the first option given on the command line that RULES says cannot apply."""
    ctx = click.get_current_context()
    for name, why in RULES.get((ctx.command.name, mode), {}).items():
        if ctx.get_parameter_source(name) in (ParameterSource.COMMANDLINE, ParameterSource.ENVIRONMENT):
            flag = next(p.opts[0] for p in ctx.command.params if p.name == name)
            raise UsageError(f"{flag} cannot apply to a compare of {MODES[mode]}: {why}")
