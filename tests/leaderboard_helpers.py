"""A small leaderboard built by the real commands: sweep on the mini fixtures, then leaderboard."""

from __future__ import annotations

from pathlib import Path

from conftest import FIXTURES, MINI_RELEASE, run

LOCOMO = FIXTURES / "locomo_mini.json"
SYSTEMS = ("fts5", "hashing", "recency")
DATA = ("--data", f"epirec={MINI_RELEASE}", "--data", f"locomo={LOCOMO}")


def swept_entries(folder: Path) -> Path:
    """SYSTEMS on the mini EpiRec and mini LoCoMo, swept into folder/entries."""
    entries = folder / "entries"
    result = run(
        "sweep",
        "--systems",
        ",".join(SYSTEMS),
        "--benchmarks",
        "epirec,locomo",
        *DATA,
        "--out",
        entries,
        "--resamples",
        "200",
        "--quiet",
    )
    assert result.exit_code == 0, result.output
    return entries


def build(entries: Path, site: Path, *data: str) -> dict[str, bytes]:
    """Build the site and return every file it holds (entries excluded) by relative path."""
    result = run("leaderboard", entries, "--out", site, *data)
    assert result.exit_code == 0, result.output
    return {
        p.relative_to(site).as_posix(): p.read_bytes()
        for p in sorted(site.rglob("*"))
        if p.is_file() and entries not in p.parents
    }


def mixed_encoder_entries(folder: Path) -> Path:
    """fts5 and dense on the default encoder, then dense and hybrid with potion-8m sharing one cache, on the mini
    EpiRec, swept into folder/entries (the potion pairs' files are SYSTEM.potion-8m.*)."""
    entries = folder / "entries"
    common = ("--benchmarks", "epirec", "--data", f"epirec={MINI_RELEASE}", "--out", entries, "--resamples", "200")
    result = run("sweep", "--systems", "fts5,dense", *common, "--quiet")
    assert result.exit_code == 0, result.output
    shared = ("--model", "potion-8m", "--cache-dir", folder / "cache")
    result = run("sweep", "--systems", "dense,hybrid", *common, *shared, "--quiet")
    assert result.exit_code == 0, result.output
    return entries
