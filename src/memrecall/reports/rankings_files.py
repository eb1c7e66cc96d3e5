"""Rankings files: read (files, official LongMemEval logs, row dicts) and strictly checked against a task, matched to
the systems of the reports they belong to, and written (JSONL or TREC) under the names the commands give them."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

from memrecall.benchmarks import Benchmark, Loaded
from memrecall.data.formats import input_kind, line_kind, rankings_kinds, refuse_kinds
from memrecall.data.jsonfile import DuplicateKey, loads_strict, split_lines
from memrecall.data.model import Ranking, Task
from memrecall.data.rankings import (
    check_rows,
    parse_rankings_text,
    read_rankings_file,
    rows_from_dicts,
    store_sizes,
)
from memrecall.data.rankings_hints import rankings_hint
from memrecall.errors import DatasetError, RankingsError, UsageError, short
from memrecall.io import announce
from memrecall.reports.content import report_systems
from memrecall.reports.exports.official_log import read_official_log


def checked_runs(
    sources: Sequence[str | Path | Sequence[dict]], names: Sequence[str] | None, bench: Benchmark, loaded: Loaded
) -> tuple[list[tuple[str, dict[str, Ranking]]], dict[str, str], dict[str, str]]:
    """(name, rankings) per source, the sha256 of each file read, and a note per file read in another format."""
    if names and len(names) != len(sources):
        raise RankingsError("--names", [f"{len(names)} name(s) for {len(sources)} rankings source(s)"])
    files_given = [("", Path(source)) for source in sources if isinstance(source, (str, Path))]
    refuse_kinds(files_given, [input_kind(path) for _, path in files_given], *rankings_kinds(bench.name))
    runs, files, notes = [], {}, {}
    for index, source in enumerate(sources):
        if isinstance(source, (str, Path)):
            text, files[str(source)] = read_rankings_file(Path(source))
            parsed, problems, note = _parse_file(text, str(source), bench, loaded)
            notes.update({str(source): note} if note else {})
            label, default = str(source), Path(str(source).removesuffix(".gz")).stem  # r.jsonl.gz is r
        else:
            parsed, problems = rows_from_dicts(list(source))
            label, default = "rankings", "system"
        rankings, mismatches = check_rows(parsed, loaded.task, bench.require_full_rankings)
        if problems or mismatches:
            found = problems + mismatches
            raise RankingsError(label, found, rankings_hint(found, len(parsed), bench.name))
        runs.append(((names[index] if names else default), rankings))
    return runs, files, notes


def _parse_file(text: str, source: str, bench: Benchmark, loaded: Loaded) -> tuple[list, list[str], str | None]:
    """Rows of a rankings file, or of an official LongMemEval retrieval log (noted with its granularity)."""
    lines = split_lines(text)
    first = next((line for line in lines if line.strip()), "")
    if bench.name.startswith("longmemeval") and first.lstrip().startswith("{"):
        try:
            official = line_kind(loads_strict(first)) == "official-log"
        except DuplicateKey:  # nesting was checked before the repeated key was met
            official = line_kind(json.loads(first)) == "official-log" if _parses(first) else False
        except json.JSONDecodeError:
            official = False
        if official:
            rows, problems, detected = read_official_log(lines, loaded.task)
            return rows, problems, f"official LongMemEval retrieval log, {detected} corpus ids"
    rows, problems = parse_rankings_text(text, source, store_sizes(loaded.task))
    return rows, problems, None


def _parses(line: str) -> bool:
    """True when `line` is JSON (duplicate keys aside), to tell an official log line with a repeated key."""
    try:
        json.loads(line)
    except json.JSONDecodeError:
        return False
    return True


REPORT_SUFFIX = ".report.json"
REPORT_SUFFIXES = (".report.json.gz", REPORT_SUFFIX)  # as the leaderboard's entries store them, or run writes them
RANKINGS_BESIDE = (".rankings.jsonl.gz", ".rankings.jsonl")  # as the leaderboard's entries store them


def is_report_name(path: str | Path) -> bool:
    """True for a NAME.report.json or NAME.report.json.gz file name."""
    return Path(path).name.endswith(REPORT_SUFFIXES)


def report_stem(path: str | Path) -> str:
    """NAME of a NAME.report.json or NAME.report.json.gz (any other file name as it is)."""
    name = Path(path).name
    return next((name.removesuffix(s) for s in REPORT_SUFFIXES if name.endswith(s)), name)


def report_files(folder: str | Path, *, pattern: str = "*") -> list[Path]:
    """Every NAME.report.json(.gz) at `pattern` under `folder` ('*': in it, '*/*': in its subfolders, '**/*': at
    any depth), sorted by path; a NAME stored both plain and gzip is an error naming both."""
    found = sorted({p for suffix in REPORT_SUFFIXES for p in Path(folder).glob(pattern + suffix) if p.is_file()})
    seen: dict[Path, Path] = {}
    for path in found:
        key = path.with_name(report_stem(path))
        if key in seen:
            plain, packed = sorted((seen[key], path), key=lambda p: p.name.endswith(".gz"))
            raise DatasetError(str(plain), "", f"and {packed} are the same report stored twice; keep one")
        seen[key] = path
    return found


def rankings_beside(report: Path) -> list[Path]:
    """The rankings files beside a NAME.report.json(.gz): NAME.rankings.jsonl.gz and/or NAME.rankings.jsonl."""
    stem = report_stem(report)
    return [p for p in (Path(report).with_name(stem + suffix) for suffix in RANKINGS_BESIDE) if p.is_file()]


def rankings_beside_report(path: Path) -> Path:
    """The one rankings file beside a report (see rankings_beside); an error otherwise."""
    found = rankings_beside(path)
    stem = report_stem(path)
    if not found:
        raise DatasetError(str(path), "", f"its rankings file {stem}.rankings.jsonl(.gz) is not beside it")
    if len(found) > 1:
        raise DatasetError(str(path), "", f"two rankings files beside it ({found[0].name}, {found[1].name}); keep one")
    return found[0]


def match_rankings(paths: Sequence[Path], names: Sequence[str]) -> list[Path]:
    """One file per system in the report's order: by file stem when the stems are the names, else in order."""
    paths = [Path(p) for p in paths]
    if len(paths) != len(names):
        raise UsageError(
            f"{len(paths)} rankings file(s) for {len(names)} system(s) in the report ({short(', '.join(names))}); "
            "give --rankings once per system"
        )
    by_stem = {p.stem: p for p in paths}
    if len(by_stem) == len(paths) and set(by_stem) == set(names):
        return [by_stem[name] for name in names]
    return paths


def rankings_for(paths: Sequence[Path], reports: Sequence[dict], given: Sequence[Path]) -> list[list[Path]]:
    """Rankings files per report: --rankings in the reports' system order, else STEM.rankings.jsonl beside each."""
    names = [report_systems(r["content"]) for r in reports]
    if given:
        total = sum(len(n) for n in names)
        if len(given) != total:
            raise UsageError(
                f"{len(given)} --rankings file(s) for {total} system(s) in the reports; give one per system"
            )
        out, start = [], 0
        for system_names in names:
            out.append(match_rankings(given[start : start + len(system_names)], system_names))
            start += len(system_names)
        return out
    out = []
    for path, system_names in zip(paths, names, strict=True):
        beside = rankings_beside(Path(path)) if is_report_name(path) else []
        if len(system_names) != 1 or len(beside) != 1:
            raise UsageError(
                f"{path}: no rankings beside it (a one-system NAME{REPORT_SUFFIX}(.gz) with one "
                "NAME.rankings.jsonl(.gz), as in the leaderboard's entries); give --rankings once per system"
            )
        out.append(beside)
    return out


def rankings_paths(export: Path | None, modes, suffix: str = ".jsonl") -> dict[str, Path]:
    """Where each mode's rankings go: FILE itself for one mode, FILE stem + .<mode> + suffix for several."""
    if export is None:
        return {}
    return {m: export if len(modes) == 1 else export.with_name(f"{export.stem}.{m}{suffix}") for m in modes}


def rankings_suffix(rankings_format: str) -> str:
    """The file suffix of exported rankings in a format: .jsonl or .trec."""
    return ".trec" if rankings_format == "trec" else ".jsonl"


def check_trec_ids(task: Task, rankings_format: str) -> None:
    """Refuse, before any system runs, a TREC export of ids a TREC file cannot carry."""
    if rankings_format == "trec":
        from memrecall.errors import ConfigError
        from memrecall.reports.exports.trec import trec_id_problem

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

    A TREC run holds the queries of `population` (see reports.exports.trec.population_queries).
    """
    if rankings_format == "trec":
        from memrecall.io import atomic_write_text
        from memrecall.reports.exports.trec import left_out_text, population_queries, trec_run_text

        atomic_write_text(path, trec_run_text(task, rankings, tag, population))
        left_out = left_out_text(population_queries(task, population)[1]) if population != "all" else ""
        if left_out:
            announce(f"TREC run {path}: the {population} population; {left_out}")
        return
    from memrecall.data.rankings import rankings_rows
    from memrecall.io import write_jsonl

    write_jsonl(path, rankings_rows(task, dict(rankings), keys))
