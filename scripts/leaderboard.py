"""The committed leaderboard's entries in site/leaderboard/entries/, rerun or rescored in one command each.

    python scripts/leaderboard.py sweep [--systems A,B] [--model NAME] [--benchmarks B,C] [--shared DIR]
                                                                          rerun systems, then rebuild the page
    python scripts/leaderboard.py adopt SWEEP_FOLDER [--shared DIR]       store a `memrecall sweep --out` folder's
                                                                          pairs as entries, then rebuild
    python scripts/leaderboard.py rescore [--shared DIR]                  score committed entries again from their
                                                                          rankings (nothing rerun), then rebuild

Rebuilding the page (and README's EpiRec 3.0 table, docs/encoders.md's encoder overview) from the committed
entries, and checking it byte for byte, is `python scripts/site.py build|check leaderboard` (with the rest of
site/); this module holds that build.

`sweep` runs every registered system (built-ins, then installed adapters) unless --systems names some, on
every benchmark in BENCHMARKS unless --benchmarks names some: the bundled EpiRec releases, the generated
LongMemEval file (LONGMEMEVAL_ARGS, made afresh in a temporary folder: the generator is seeded, so it is the same
file on every machine) and the real files under --shared (SHARED_FILES: LoCoMo, REALTALK, Locomo-Plus, BEAM-128K).
It replaces those pairs' files under site/leaderboard/entries/. `--model NAME` runs the dense systems with that
encoder (their files are SYSTEM.NAME.*) and lets the pairs share an embedding cache per benchmark, so each text is
encoded once per encoder and benchmark: each benchmark's first pair is cold, the rest warm, and each says so.
`adopt` does sweep's second half for a folder `memrecall sweep` wrote (for sweeps run in pieces).
The build never runs a system and never reads the real files: entries are replayed only against the bundled
EpiRec releases, so the page is the same on any checkout.
"""

from __future__ import annotations

import argparse
import filecmp
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SITE = ROOT / "site" / "leaderboard"
SHARED = ROOT.parent / "shared" / "data"
# each benchmark on real files: its data under --shared (locomo-plus finds locomo10.json beside its folder)
SHARED_FILES = {
    "locomo": "locomo10.json",
    "locomo-turn": "locomo10.json",
    "realtalk": "realtalk",
    "realtalk-turn": "realtalk",
    "locomo-plus": "locomo_plus/locomo_plus.json",
    "locomo-plus-all": "locomo_plus/locomo_plus.json",
    "beam": "beam_128k",
}
BENCHMARKS = "epirec-v3,epirec-v2,epirec-v1,locomo,locomo-turn,longmemeval,realtalk,realtalk-turn,locomo-plus,"
BENCHMARKS += "locomo-plus-all,beam"
GENERATOR = ROOT / "benchmarks" / "generate_longmemeval.py"
LONGMEMEVAL_ARGS = ("--questions", "50", "--sessions", "10", "--turns", "4", "--assistant-words", "80", "--seed", "7")
GENERATED = ("index.html", "cards", "figures", "diffs", "summary.md", "summary.csv", "summary.tex")
READMES = ("README.md", "README.ko.md", "README.zh-CN.md")
README_TABLE = "epirec-3-0"
ENCODERS_DOC = ROOT / "docs" / "encoders.md"
STORED_REPORT = ".report.json.gz"  # an entry's report as store_entry stores it (rankings_files.REPORT_SUFFIXES)


def memrecall(*args: str) -> None:
    """Run the memrecall CLI of this checkout; stop on failure."""
    done = subprocess.run([sys.executable, "-m", "memrecall", *args], cwd=ROOT)
    if done.returncode != 0:
        raise SystemExit(done.returncode)


def build(site: Path) -> None:
    """Remove the generated files, then write the page and the summary tables from site/entries."""
    from memrecall.io import atomic_write_text
    from memrecall.reports.exports.sweep_summary import csv_summary, latex_summary, markdown_summary, summary_rows
    from memrecall.running.sweep import outcomes_from_folder

    for name in GENERATED:
        path = site / name
        shutil.rmtree(path) if path.is_dir() else path.unlink(missing_ok=True)
    memrecall("leaderboard", str(site / "entries"), "--out", str(site))
    rows = summary_rows(outcomes_from_folder(site / "entries"))
    atomic_write_text(site / "summary.md", markdown_summary(rows))
    atomic_write_text(site / "summary.csv", csv_summary(rows))
    atomic_write_text(site / "summary.tex", latex_summary(rows))


def readme_texts(entries: Path) -> dict[Path, str]:
    """Each README with its leaderboard blocks rebuilt from `entries`: the EpiRec 3.0 table (page order) and one
    line per other table (readme.others_table).

    The entries are read without data: the table needs their signed numbers and order, not a second replay
    (the page build has replayed them already).
    """
    from memrecall.reports.leaderboard.entries import read_entries
    from memrecall.reports.leaderboard.readme import (
        OTHERS_END,
        OTHERS_START,
        markdown_table,
        others_table,
        pick,
        with_table,
    )
    from memrecall.reports.leaderboard.tables import build_tables

    tables = build_tables(read_entries(entries, {}))
    top, others = markdown_table(pick(tables, README_TABLE)), others_table(tables)
    out = {}
    for name in READMES:
        text = with_table((ROOT / name).read_text(encoding="utf-8"), top, name)
        out[ROOT / name] = with_table(text, others, name, OTHERS_START, OTHERS_END)
    return out


def encoders_doc_text(entries: Path) -> str:
    """docs/encoders.md with its encoder-overview block rebuilt from `entries` (the page's overview, as Markdown)."""
    from memrecall.reports.leaderboard.encoder_overview import END, START, overview_markdown
    from memrecall.reports.leaderboard.entries import read_entries
    from memrecall.reports.leaderboard.readme import with_table
    from memrecall.reports.leaderboard.tables import build_tables

    block = overview_markdown(build_tables(read_entries(entries, {})))
    return with_table(ENCODERS_DOC.read_text(encoding="utf-8"), block, "docs/encoders.md", START, END)


def write_readmes(entries: Path) -> None:
    """Rewrite the leaderboard block of each README, and docs/encoders.md's encoder overview, from the entries."""
    from memrecall.io import atomic_write_text

    for path, text in readme_texts(entries).items():
        atomic_write_text(path, text)
    atomic_write_text(ENCODERS_DOC, encoders_doc_text(entries))


def generated_longmemeval(folder: Path) -> Path:
    """The leaderboard's generated LongMemEval file, written into `folder` (seeded: byte-identical everywhere)."""
    path = folder / "longmemeval_generated.json"
    subprocess.run([sys.executable, str(GENERATOR), "--out", str(path), *LONGMEMEVAL_ARGS], cwd=ROOT, check=True)
    return path


def sweep(systems: str | None, shared: Path, model: str | None = None, benchmarks: str = BENCHMARKS) -> None:
    """Rerun systems into a scratch folder, then adopt their pairs (see adopt)."""
    from memrecall.systems.registry import registered_names

    names = systems or ",".join(registered_names())
    chosen = benchmarks.split(",")
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch) / "sweep"
        generated = generated_longmemeval(Path(scratch))
        files = {b: shared / SHARED_FILES[b] for b in chosen if b in SHARED_FILES}
        files |= {"longmemeval": generated} if "longmemeval" in chosen else {}
        data = [arg for b, path in files.items() for arg in ("--benchmark-data", f"{b}={path}")]
        shared_cache = ["--model", model, "--cache-root", str(Path(scratch) / "cache")] if model else []
        command = ["sweep", "--systems", names, "--benchmarks", benchmarks, *data, *shared_cache, "--out", str(out)]
        done = subprocess.run([sys.executable, "-m", "memrecall", *command], cwd=ROOT)
        adopt(out, shared, generated)
    if done.returncode != 0:
        print("leaderboard: some pairs failed (see above); the page holds the rest", file=sys.stderr)


def adopt(out: Path, shared: Path, generated: Path | None = None) -> None:
    """Move a sweep folder's pairs into entries/ (replacing those pairs' files), store each the committed way
    (store_entry), then rebuild the page and the READMEs' table."""
    from memrecall.reports.rankings_files import report_files, report_stem

    reports = report_files(out, pattern="*/*")
    with tempfile.TemporaryDirectory() as scratch:
        generated = generated or generated_longmemeval(Path(scratch))
        for report in reports:  # a rerun pair's old files go, in any format (never another encoder's SYSTEM.MODEL.*)
            folder, stem = SITE / "entries" / report.parent.name, report_stem(report)
            for old in pair_files(folder, stem):
                old.unlink()
        for path in sorted(out.glob("*/*.*")):
            target = SITE / "entries" / path.parent.name / path.name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)
        for report in reports:  # stored as rescore stores them: cut, gzip-compressed
            stored = SITE / "entries" / report.parent.name / report.name
            digest = store_entry(stored, shared, generated)
            print(f"stored {stored.parent.relative_to(SITE)}/{report_stem(stored)}{STORED_REPORT}: {digest[:12]}")
    build(SITE)
    write_readmes(SITE / "entries")


def pair_files(folder: Path, stem: str) -> list[Path]:
    """A pair's report, rankings and scores files in `folder`, in any of the formats sweep writes or entries store."""
    from memrecall.reports.query_scores import SCORES_BESIDE
    from memrecall.reports.rankings_files import RANKINGS_BESIDE, REPORT_SUFFIXES

    suffixes = (*REPORT_SUFFIXES, *RANKINGS_BESIDE, ".rankings.trec", *SCORES_BESIDE)
    return [folder / f"{stem}{suffix}" for suffix in suffixes if (folder / f"{stem}{suffix}").is_file()]


def release_for(sha256: str) -> Path | None:
    """The bundled EpiRec release with this sha256, or None."""
    from memrecall.data.official import bundled_digests
    from memrecall.data.releases import bundled_release

    name = bundled_digests().get(sha256)
    return bundled_release(name) if name else None


def data_for(content: dict, shared: Path, generated: Path) -> Path | None:
    """The data an entry was run on: a real file under `shared`, the generated LongMemEval file or a bundled
    EpiRec release."""
    benchmark = content["benchmark"]
    if benchmark in SHARED_FILES:
        return shared / SHARED_FILES[benchmark]
    if benchmark.startswith("longmemeval"):
        return generated
    return release_for(content["task"]["source_sha256"])


def store_entry(path: Path, shared: Path, generated: Path) -> str:
    """Score one entry (SYSTEM.report.json or .report.json.gz) again from its own rankings and store it the
    committed way; its new content_sha256.

    Nothing is rerun: the entry keeps its claims (identity, encoder, declared flags) and its env (cost, configs,
    the host it ran on). Its rankings are cut to the benchmark's scoring depth and stored gzip-compressed
    (deterministic: mtime 0, level 9), its report is rebuilt by the replay code `verify` uses and stored as one
    JSON line gzip-compressed the same way, SYSTEM.report.json.gz (its card is the human view; a plain
    SYSTEM.report.json it replaces is removed), and its scores file is written anew, gzip-compressed the same way.
    Entries on real files need `shared` (SHARED_FILES).
    """
    from memrecall.data.jsonfile import read_json
    from memrecall.data.rankings import rankings_rows, read_rankings_file
    from memrecall.io import write_json_line, write_jsonl
    from memrecall.reports.content import make_report
    from memrecall.reports.proof.replay import replay_content, replayed_runs
    from memrecall.reports.query_scores import scores_rows, write_scores
    from memrecall.reports.rankings_files import rankings_beside_report, report_stem
    from memrecall.scoring.depth import at_depth

    stem = report_stem(path)
    report = read_json(path)
    data = data_for(report["content"], shared, generated)
    source = rankings_beside_report(path)
    bench, loaded, runs = replayed_runs(report, [source], data)
    ((_, rankings),) = runs
    depth = bench.scoring().depth
    cut = {q.id: at_depth(rankings[q.id], depth) for q in loaded.task.queries}
    stored = path.with_name(f"{stem}.rankings.jsonl.gz")
    write_jsonl(stored, rankings_rows(loaded.task, cut, bench.row_keys))
    if source != stored:
        source.unlink()
    # this checkout's resample unit, not the one the report recorded
    report["content"]["scoring"]["bootstrap"]["unit"] = bench.resample_unit
    replayed = replay_content(report, [stored], data)
    replayed.pop("memrecall_version", None)
    fresh = make_report(replayed, report["env"])
    target = path.with_name(stem + STORED_REPORT)
    write_json_line(target, fresh)  # one line, gzip: a stored entry is read by tools, its card is the human view
    if path != target:
        path.unlink()
    text = read_rankings_file(stored)[0]
    write_scores(path.with_name(f"{stem}.scores.jsonl.gz"), scores_rows(bench, loaded, fresh, text))
    path.with_name(f"{stem}.scores.jsonl").unlink(missing_ok=True)  # as sweep wrote it
    return fresh["content_sha256"]


def rescore(site: Path, shared: Path) -> None:
    """Store every committed entry again under this checkout's scoring rules (see store_entry), then rebuild."""
    from memrecall.reports.rankings_files import report_files, report_stem

    with tempfile.TemporaryDirectory() as scratch:
        generated = generated_longmemeval(Path(scratch))
        for path in report_files(site / "entries", pattern="**/*"):  # plain or gzip; both of one pair is refused
            digest = store_entry(path, shared, generated)
            print(f"rescored {path.parent.relative_to(site)}/{report_stem(path)}{STORED_REPORT}: {digest[:12]}")
    build(site)
    if site == SITE:
        write_readmes(site / "entries")


def generated_files(site: Path) -> dict[str, Path]:
    """Every generated file of a site by relative path (entries/ excluded)."""
    return {
        p.relative_to(site).as_posix(): p
        for p in sorted(site.rglob("*"))
        if p.is_file() and "entries" not in p.relative_to(site).parts
    }


def problems() -> list[str]:
    """Rebuild from a copy of the committed entries; every file that differs, is missing or is extra, and every
    README or docs/encoders.md block that differs from the entries."""
    with tempfile.TemporaryDirectory() as scratch:
        copy = Path(scratch) / "leaderboard"
        shutil.copytree(SITE / "entries", copy / "entries")
        build(copy)
        fresh, committed = generated_files(copy), generated_files(SITE)
        found = [f"missing from site/leaderboard: {n}" for n in sorted(set(fresh) - set(committed))]
        found += [f"not produced by a rebuild: {n}" for n in sorted(set(committed) - set(fresh))]
        found += [
            f"differs from a rebuild: {n}"
            for n in sorted(set(fresh) & set(committed))
            if not filecmp.cmp(fresh[n], committed[n], shallow=False)
        ]
    found += [
        f"{path.name}: its leaderboard table differs from the entries"
        for path, text in readme_texts(SITE / "entries").items()
        if path.read_text(encoding="utf-8") != text
    ]
    if ENCODERS_DOC.read_text(encoding="utf-8") != encoders_doc_text(SITE / "entries"):
        found.append("docs/encoders.md: its encoder overview differs from the entries")
    return found


def main() -> int:
    """Parse the subcommand and run it."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    shared_help = f"the folder of the real data files (SHARED_FILES) [default: {SHARED}]"
    run = sub.add_parser("sweep", help="rerun systems, then rebuild")
    run.add_argument("--systems", default=None, help="comma list [default: every registered system]")
    run.add_argument("--shared", type=Path, default=SHARED, help=shared_help)
    run.add_argument("--model", default=None, help="the dense systems' encoder (docs/encoders.md) [default: minilm]")
    run.add_argument("--benchmarks", default=BENCHMARKS, help=f"comma list [default: {BENCHMARKS}]")
    take = sub.add_parser("adopt", help="store a `memrecall sweep --out` folder's pairs as entries, then rebuild")
    take.add_argument("folder", type=Path, help="the folder `memrecall sweep --out` wrote")
    take.add_argument("--shared", type=Path, default=SHARED, help=shared_help)
    again = sub.add_parser("rescore", help="score committed entries again from their rankings, then rebuild")
    again.add_argument("--shared", type=Path, default=SHARED, help=shared_help)
    again.add_argument("--site", type=Path, default=SITE, help="the leaderboard folder [default: site/leaderboard]")
    args = parser.parse_args()
    if args.command == "sweep":
        sweep(args.systems, args.shared, args.model, args.benchmarks)
    elif args.command == "adopt":
        adopt(args.folder, args.shared)
    else:
        rescore(args.site, args.shared)
    return 0


if __name__ == "__main__":
    sys.exit(main())
