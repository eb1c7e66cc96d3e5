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
        "unit": AS_SCORED,
        "category5": AS_SCORED,
        "csv_path": f"it needs rankings files; {AS_SCORED}",
        "latex_path": f"it needs rankings files; {AS_SCORED}",
        "per_query": f"it needs rankings files; {AS_SCORED}",
        "report_dir": "a comparison of reports has no report card; run `memrecall report` on each report",
    },
    ("compare", "rankings"): {
        "allow_mismatch": "only reports carry comparability manifests; rankings files are scored on one task",
    },
}
# every command with --executor: the options that only a Ray executor reads
RAY_ONLY = {
    "workers": "it sizes the Ray executor's encoders and ranking tasks",
    "ray_address": "it names the Ray cluster to join",
}
MODES = {"reports": "a compare of reports", "rankings": "a compare of rankings files", "local": "--executor local"}


def refuse_inapplicable(mode: str) -> None:
    """A UsageError (exit 2) for the first option given on the command line that RULES says cannot apply."""
    ctx = click.get_current_context()
    _refuse(ctx, RULES.get((ctx.command.name, mode), {}), MODES[mode])


def refuse_ray_only(executor: str) -> None:
    """A UsageError (exit 2) for --workers or --ray-address given without --executor ray (they would be ignored)."""
    if executor != "ray":
        _refuse(click.get_current_context(), RAY_ONLY, MODES["local"])


def _refuse(ctx: click.Context, rules: dict[str, str], where: str) -> None:
    """Refuse the first of `rules`' options that the user gave (command line or environment), saying why."""
    for name, why in rules.items():
        if ctx.get_parameter_source(name) in (ParameterSource.COMMANDLINE, ParameterSource.ENVIRONMENT):
            flag = next(p.opts[0] for p in ctx.command.params if p.name == name)
            raise UsageError(f"{flag} cannot apply to {where}: {why}")
