"""`memrecall leaderboard DIR --out SITE/`: a static site from a folder of reports with their rankings."""

from __future__ import annotations

from pathlib import Path

import click

from memrecall.io import announce


@click.command()
@click.argument("folder", type=click.Path(file_okay=False, exists=True, path_type=Path))
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), required=True, help="The site folder.")
@click.option(
    "--data",
    "data_values",
    multiple=True,
    metavar="BENCHMARK=PATH",
    help="A data file to replay entries against, repeatable (locomo=/path/locomo10.json). The bundled EpiRec "
    "releases are always used. Entries whose data is given are replayed; the rest keep their fingerprint state.",
)
@click.option(
    "--key",
    "keys",
    multiple=True,
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    help="A public key you trust (NAME.pub), repeatable: a signed row must be signed by one of them.",
)
@click.option("--quiet", is_flag=True, help="No progress lines; print only where the page went.")
def leaderboard(folder, out, data_values, keys, quiet) -> None:
    """Build the leaderboard from every *.report.json under FOLDER (each with SYSTEM.rankings.jsonl(.gz) and
    SYSTEM.scores.jsonl(.gz) beside it, as `memrecall sweep` writes them). Same inputs, same bytes."""
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
    tables = build_tables(read_entries(folder, data, keys, not quiet), not quiet)
    files = site_files(tables, out)
    plan = new_plan()
    for name in files:
        plan.output(f"--out {name}", out / name)
    plan.check()
    for name, content in files.items():
        atomic_write_bytes(out / name, content)
    rows = sum(len(t.rows) + len(t.oracle) + len(t.apart) for t in tables)
    announce(f"leaderboard: {out / 'index.html'} ({len(tables)} tables, {rows} rows, {len(files)} files)")
