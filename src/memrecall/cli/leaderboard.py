"""`memrecall leaderboard DIR --out SITE/`: a static site from a folder of reports with their rankings."""

from __future__ import annotations

from pathlib import Path

import click

from memrecall.cli.options import BENCHMARK_DATA, OUT, QUIET, TRUSTED_KEY, Command
from memrecall.io import announce


@click.command(cls=Command)
@click.argument("folder", type=click.Path(file_okay=False, exists=True, path_type=Path))
@OUT
@BENCHMARK_DATA
@TRUSTED_KEY
@QUIET
def leaderboard(folder, out, data_values, trusted, quiet) -> None:
    """Build the leaderboard from every *.report.json under FOLDER (each with SYSTEM.rankings.jsonl(.gz) and
    SYSTEM.scores.jsonl(.gz) beside it, as `memrecall sweep` writes them) into the site folder --out. Same inputs,
    same bytes. Entries whose data --benchmark-data gives are replayed; the rest keep their fingerprint state; a
    signed row must be signed by a --key."""
    from memrecall.cli.common import new_plan
    from memrecall.io import atomic_write_bytes
    from memrecall.reports.leaderboard.entries import load_data, read_entries
    from memrecall.reports.leaderboard.html import site_files
    from memrecall.reports.leaderboard.tables import build_tables
    from memrecall.running.sweep import parse_data_options

    given: dict[str, list[Path]] = {}
    for value in data_values:
        name, _, path = value.partition("=")
        given.setdefault(name, []).append(parse_data_options([value])[name])
    data = load_data(given)
    tables = build_tables(read_entries(folder, data, trusted, not quiet), not quiet)
    files = site_files(tables, out)
    plan = new_plan()
    for name in files:
        plan.output(f"--out {name}", out / name)
    plan.check()
    for name, content in files.items():
        atomic_write_bytes(out / name, content)
    rows = sum(len(t.rows) + len(t.oracle) + len(t.apart) for t in tables)
    announce(f"leaderboard: {out / 'index.html'} ({len(tables)} tables, {rows} rows, {len(files)} files)")
