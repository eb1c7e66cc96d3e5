"""`sweep`: many systems on many benchmarks, each pair through `memrecall run` in its own process.

Each (system, benchmark) pair runs as `python -m memrecall run` (so through api.run_system, the one
pipeline) in a child process: a crash, an exit or a memory blow-up of one system cannot stop the rest,
and the peak memory a report records is that pair's own. Each pair gets an empty embedding cache, so its
cost includes encoding (cold), whatever ran before; on the onnx backend the cache holds only the ONNX
export, made once before the first pair. The child writes into a scratch folder; this
process checks the rankings against the task, adds the per-query scores file, and writes the outputs.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from memrecall.benchmarks import RELEASE_ALIASES, get_benchmark
from memrecall.errors import UsageError
from memrecall.progress import progress_bar, shows_progress
from memrecall.scoring.metrics import DEFAULT_RESAMPLES


@dataclass(frozen=True)
class SweepBenchmark:
    """A sweep entry: its name (the output folder), the registered benchmark, and its data file."""

    name: str
    benchmark: str
    data: Path | None


@dataclass(frozen=True)
class PairOutcome:
    """What became of one (system, benchmark) pair: its report (None when it failed) and why it failed."""

    system: str
    entry: str
    report: dict | None
    error: str | None


def parse_data_options(values: Sequence[str]) -> dict[str, Path]:
    """`NAME=PATH` pairs (NAME a sweep benchmark name) as a mapping; a malformed or repeated one is an error."""
    out: dict[str, Path] = {}
    for value in values:
        name, sep, path = value.partition("=")
        if not sep or not name or not path:
            raise UsageError(f"--benchmark-data {value!r}: expected NAME=PATH, e.g. locomo=/data/locomo10.json")
        if name in out:
            raise UsageError(f"--benchmark-data {name} is given twice")
        out[name] = Path(path)
    return out


def sweep_benchmarks(names: Sequence[str], data: Mapping[str, Path]) -> list[SweepBenchmark]:
    """Sweep entries for benchmark names (registered names, or epirec-v1, epirec-v2, ... for a bundled release)."""
    unused = sorted(set(data) - set(names))
    if unused:
        raise UsageError(f"--benchmark-data {unused[0]}=...: {unused[0]} is not in --benchmarks")
    out = []
    for name in names:
        bench = get_benchmark(name)
        default = bench.resolve_data(None) if name in RELEASE_ALIASES else None
        if name in data:  # a data file that is not there is refused before any pair runs or anything is written
            bench.resolve_data(data[name])
        out.append(SweepBenchmark(name, bench.name, data.get(name, default)))
    return out


def output_paths(
    out: Path, system: str, entry: str, rankings_format: str = "jsonl", encoder: str | None = None
) -> dict[str, Path]:
    """Where one pair's report, rankings (.jsonl, or .trec) and per-query scores go: OUT/ENTRY/SYSTEM[.ENCODER].*.

    ENTRY, SYSTEM and ENCODER (the --model label) go through outputs.name_part, so no name leaves OUT/ENTRY or
    makes a subfolder.
    """
    from memrecall.outputs import name_part

    folder, stem = out / name_part(entry, "--benchmarks"), name_part(system, "--systems")
    stem += f".{name_part(encoder, '--model')}" if encoder else ""
    return {
        "report": folder / f"{stem}.report.json",
        "rankings": folder / f"{stem}.rankings.{'trec' if rankings_format == 'trec' else 'jsonl'}",
        "scores": folder / f"{stem}.scores.jsonl",
    }


def as_trec(bench, loaded, rankings_text: str, tag: str) -> str:
    """A pair's JSONL rankings as a TREC run (strictly checked against the task first)."""
    from memrecall.data.rankings import check_rows, parse_rankings_text
    from memrecall.errors import RankingsError
    from memrecall.reports.exports.trec import trec_run_text

    parsed, problems = parse_rankings_text(rankings_text, "rankings")
    rankings, mismatches = check_rows(parsed, loaded.task, bench.require_full_rankings)
    if problems or mismatches:
        raise RankingsError("rankings", problems + mismatches)
    return trec_run_text(loaded.task, rankings, tag)


def run_pair(
    system: str,
    entry: SweepBenchmark,
    seed: int,
    resamples: int,
    extra: Sequence[str] = (),
    cache_seed: Path | None = None,
    shared_cache: Path | None = None,
    forward: Callable[[str], None] | None = None,
) -> tuple:
    """Run one pair in a child `memrecall run`: (report, rankings text) or raise SystemFailure with its error.

    The child's cache folder is `shared_cache` when given, else its own; a cache that does not exist yet starts
    empty, or as a copy of `cache_seed` (the onnx export, made once per sweep), so no pair's cost includes it.
    With `forward`, the child shows its progress and each line it writes on stderr is handed to `forward` as it
    comes (a long pair is not silent); without, the child is quiet.
    """
    import json
    import shutil

    from memrecall.errors import SystemFailure

    with tempfile.TemporaryDirectory(prefix="memrecall-sweep-") as scratch:
        cache = shared_cache or Path(scratch) / "cache"
        if cache_seed is not None and not cache.exists():
            shutil.copytree(cache_seed, cache)
        report_path, rankings_path = Path(scratch) / "report.json", Path(scratch) / "rankings.jsonl"
        command = [sys.executable, "-m", "memrecall", "run", entry.benchmark, "--system", system]
        command += [] if forward else ["--quiet"]
        command += ["--data", str(entry.data)] if entry.data else []
        command += ["--output", str(report_path), "--export-rankings", str(rankings_path)]
        command += ["--seed", str(seed), "--resamples", str(resamples), "--cache-dir", str(cache)]
        command += list(extra)
        env = {k: v for k, v in os.environ.items() if k != "MEMRECALL_SIGN_KEY"}  # a sweep signs nothing
        last = ""  # the child's last line on stderr: its error, if it fails
        with open(Path(scratch) / "stdout.txt", "w+", encoding="utf-8") as stdout:
            child = subprocess.Popen(command, stdout=stdout, stderr=subprocess.PIPE, text=True, env=env)
            for line in child.stderr:
                if line.strip():
                    last = line.rstrip("\n")
                    if forward:
                        forward(last)
            code = child.wait()
            if code != 0:
                stdout.seek(0)
                printed = [line for line in stdout.read().splitlines() if line.strip()]
                reason = last or (printed[-1] if printed else f"exit code {code}")
                raise SystemFailure(reason.removeprefix("error: ")[:300])
        return json.loads(report_path.read_text(encoding="utf-8")), rankings_path.read_text(encoding="utf-8")


def progress_lines(pair: str) -> Callable[[str], None]:
    """Where a pair's child lines go under progress: stderr, each led by the pair's name (above a terminal's bar)."""
    from tqdm import tqdm

    return lambda line: tqdm.write(f"{pair}: {line}", file=sys.stderr)


def row_name(system: str, encoder: str | None) -> str:
    """A pair's name in summaries: SYSTEM, or SYSTEM.ENCODER under --model (as its output files are named)."""
    return f"{system}.{encoder}" if encoder else system


def sweep(
    systems: Sequence[str],
    entries: Sequence[SweepBenchmark],
    out: Path,
    seed: int = 0,
    resamples: int = DEFAULT_RESAMPLES,
    extra: Sequence[str] = (),
    say: Callable[[str], None] = lambda _: None,
    rankings_format: str = "jsonl",
    cache_seed: Path | None = None,
    shared_cache: Path | None = None,
    encoder: str | None = None,
    show_progress: bool = False,
) -> list[PairOutcome]:
    """Every system on every entry; failures are recorded and skipped, never stop the rest.

    `encoder` (the --model label) is part of each pair's output names; `shared_cache` holds one cache per
    benchmark that its pairs share, so each benchmark's first pair encodes everything (cold) and texts two
    benchmarks have in common (LoCoMo session and turn share their questions) are encoded in each.
    """
    from memrecall.errors import MemrecallError
    from memrecall.io import atomic_write_text, write_json
    from memrecall.outputs import name_part
    from memrecall.reports.proof.fingerprint import report_fingerprint
    from memrecall.reports.query_scores import scores_rows, write_scores

    outcomes = []
    show_lines = shows_progress(show_progress)  # each pair's own lines, passed on
    with progress_bar(len(entries) * len(systems), "sweep", show_progress, unit="pair") as bar:
        for entry in entries:
            bench = get_benchmark(entry.benchmark)
            try:
                loaded = bench.load(bench.resolve_data(entry.data))
            except MemrecallError as exc:
                say(f"{entry.name}: skipped, {exc}")
                outcomes += [PairOutcome(row_name(s, encoder), entry.name, None, f"benchmark: {exc}") for s in systems]
                bar.update(len(systems))
                continue
            for system in systems:
                try:
                    cache = shared_cache / name_part(entry.name, "--benchmarks") if shared_cache else None
                    forward = progress_lines(f"{entry.name} / {system}") if show_lines else None
                    report, rankings_text = run_pair(system, entry, seed, resamples, extra, cache_seed, cache, forward)
                    rows = scores_rows(bench, loaded, report, rankings_text)
                    if rankings_format == "trec":
                        rankings_text = as_trec(bench, loaded, rankings_text, system)
                except MemrecallError as exc:
                    say(f"{entry.name} / {system}: failed, {exc}")
                    outcomes.append(PairOutcome(row_name(system, encoder), entry.name, None, str(exc)))
                    bar.update(1)
                    continue
                paths = output_paths(out, system, entry.name, rankings_format, encoder)
                write_json(paths["report"], report)
                atomic_write_text(paths["rankings"], rankings_text)
                write_scores(paths["scores"], rows)
                say(f"{entry.name} / {system}: content_sha256 {(report_fingerprint(report) or '')[:12]}")
                outcomes.append(PairOutcome(row_name(system, encoder), entry.name, report, None))
                bar.update(1)
    return outcomes


def outcomes_from_folder(folder: Path) -> list[PairOutcome]:
    """The outcomes a folder of sweep outputs holds (FOLDER/ENTRY/SYSTEM.report.json, or .report.json.gz as the
    leaderboard stores them), by entry then system."""
    from memrecall.data.jsonfile import read_json
    from memrecall.outputs import name_of_part
    from memrecall.reports.rankings_files import report_files, report_stem

    out = []
    for path in report_files(folder, pattern="*/*"):
        report = read_json(path)
        system, entry = name_of_part(report_stem(path)), name_of_part(path.parent.name)
        out.append(PairOutcome(system, entry, report, None))
    return out
