"""Rankings exports of the commands: JSONL or TREC, the population a TREC file holds, and the ids it can carry."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from memrecall.data.model import Ranking, Task
from memrecall.io import announce


def trec_population(population: str | None, rankings_format: str, exporting: bool) -> str:
    """The population of a TREC run export: headline unless asked (cli.applicable refuses it without one)."""
    return population or "headline"


def rankings_suffix(rankings_format: str) -> str:
    """The file suffix of exported rankings in a format: .jsonl or .trec."""
    return ".trec" if rankings_format == "trec" else ".jsonl"


def check_trec_ids(task: Task, rankings_format: str) -> None:
    """Refuse, before any system runs, a TREC export of ids a TREC file cannot carry."""
    if rankings_format == "trec":
        from memrecall.errors import ConfigError
        from memrecall.reports.exports.interchange import trec_id_problem

        problem = trec_id_problem(task)
        if problem:
            raise ConfigError(f"--rankings-format trec: {problem}; use --rankings-format jsonl")


def write_rankings(
    path: Path,
    task: Task,
    rankings: Mapping[str, Ranking],
    keys,
    rankings_format: str,
    tag: str,
    population: str = "all",
):
    """Write one system's rankings as JSONL rows (the benchmark's keys, every query) or a TREC run tagged `tag`.

    A TREC run holds the queries of `population` (see reports.exports.interchange.population_queries).
    """
    if rankings_format == "trec":
        from memrecall.io import atomic_write_text
        from memrecall.reports.exports.interchange import left_out_text, population_queries, trec_run_text

        atomic_write_text(path, trec_run_text(task, rankings, tag, population))
        left_out = left_out_text(population_queries(task, population)[1]) if population != "all" else ""
        if left_out:
            announce(f"TREC run {path}: the {population} population; {left_out}")
        return
    from memrecall.data.rankings import rankings_rows
    from memrecall.io import write_jsonl

    write_jsonl(path, rankings_rows(task, dict(rankings), keys))
