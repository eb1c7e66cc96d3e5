"""Does EpiRec rank systems as the public benchmarks of the same construct do? `python scripts/construct_validity.py`.

Kendall's tau-b between the systems' EpiRec v3 recall@3 on a probe type and their recall@k on an outside
benchmark, over every system both have a run of, with a seeded percentile bootstrap interval that redraws whole
stores of both (scoring/rank_agreement.py). The values are the runs' own per-query scores files
(`SYSTEM.scores.jsonl(.gz)` beside each `SYSTEM.report.json(.gz)`, as `memrecall sweep` and the leaderboard
write them), each checked against its report's fingerprint and headline numbers; nothing is copied by hand.

    python scripts/construct_validity.py [--runs DIR ...] [--out site/construct_validity.json] [--seed 0]
                                         [--doc docs/construct-validity.md]

Each --runs folder holds BENCHMARK/SYSTEM.{report.json,scores.jsonl}[.gz] (a sweep's --out, or the leaderboard's
entries/); the default is site/leaderboard/entries. A row is a leaderboard row (SYSTEM, or SYSTEM.ENCODER for a
non-default encoder); oracle rows and rows measured under other conditions than most of their benchmark's rows
are left out, as the leaderboard lists them apart. The primary comparisons are fixed here, before any number
is read (PRIMARY); the rest are sensitivity checks: other cut-offs, turn documents, all of a conversation's cues
in one store, the other probe types, and every comparison again on the rows all its benchmarks share.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ENTRIES = ROOT / "site" / "leaderboard" / "entries"
OUT = ROOT / "site" / "construct_validity.json"
DOC = ROOT / "docs" / "construct-validity.md"
EPIREC = "epirec-v3"
TYPES = ("factual", "reflective_explicit", "reflective_implicit")
OUTSIDE = ("locomo-plus", "realtalk", "locomo")  # session documents, one cue per store: the primary layouts
VARIANTS = {
    "locomo-plus": ("locomo-plus-turn", "locomo-plus-all", "locomo-plus-all-turn"),
    "realtalk": ("realtalk-turn",),
    "locomo": ("locomo-turn",),
}
PRIMARY = (("reflective_implicit", "locomo-plus"), ("factual", "realtalk"), ("factual", "locomo"))
PRIMARY_K = 3  # EpiRec's own cut-off; the outside benchmarks' other headline cut-offs are sensitivity checks
OTHER_KS = (1, 5, 10)
RESAMPLES = 2000
START, END = "<!-- construct-validity-table -->", "<!-- /construct-validity-table -->"


@dataclass(frozen=True)
class Measure:
    """Which values: a benchmark folder, a metric and, on EpiRec, a probe type."""

    folder: str
    metric: str
    group: str | None = None

    @property
    def name(self) -> str:
        """`epirec-v3 reflective_implicit recall@3`, `locomo-plus recall@3`."""
        return " ".join(p for p in (self.folder, self.group, self.metric) if p)


def fail(message: str, code: int = 1) -> None:
    """One line on stderr, then exit."""
    print(f"construct_validity: {message}", file=sys.stderr)
    raise SystemExit(code)


def of_benchmark(content: dict, name: str) -> bool:
    """True when a report's content is a run of the benchmark a folder names (`epirec-v3`: EpiRec 3.x)."""
    if name.startswith("epirec-v"):
        return content["benchmark"] == "epirec" and str(content["task"]["version"]).startswith(name[8:] + ".")
    return content["benchmark"] == name


def read_folder(folders: list[Path], name: str) -> list:
    """The comparable leaderboard entries of one benchmark folder across the --runs folders (fingerprint-checked)."""
    from memrecall.reports.comparability import conditions, mismatches
    from memrecall.reports.leaderboard.entries import read_entry
    from memrecall.reports.leaderboard.tables import reference_manifest
    from memrecall.reports.rankings_files import report_files

    entries, seen = [], {}
    for folder in folders:
        for path in report_files(folder / name):
            entry = read_entry(path, {})
            if not of_benchmark(entry.content, name):
                fail(f"{path}: a run of {entry.content['benchmark']} {entry.content['task']['version']}, not of {name}")
            if entry.state == "UNVERIFIED":
                fail(f"{path}: its fingerprint does not check ({'; '.join(str(c) for c in entry.checks)})")
            if entry.row in seen:
                fail(f"{path}: row {entry.row!r} is also in {seen[entry.row]}", 2)
            seen[entry.row] = path
            entries.append(entry)
    sources = {e.content["task"]["source_sha256"] for e in entries}
    if len(sources) > 1:
        fail(f"{name}: its runs were made on {len(sources)} different data files")
    ordinary = [e for e in entries if not e.oracle]
    reference = conditions(reference_manifest(ordinary)) if ordinary else {}
    return [e for e in ordinary if not mismatches(conditions(e.content["comparability"]), reference)]


def scores_of(entries: list, measure: Measure):
    """The measure's per-query values of every entry as SystemScores (queries in the first entry's order)."""
    import numpy as np

    from memrecall.scoring.rank_agreement import SystemScores

    if not entries:
        return None
    keep = [r for r in entries[0].scores if measure.group is None or r["group"] == measure.group]
    order = [r["query_id"] for r in keep]
    stores = tuple(str(r["store_id"]) for r in keep)
    rows = []
    for entry in entries:
        values = {r["query_id"]: r["values"].get(measure.metric) for r in entry.scores}
        if any(values.get(q) is None for q in order) or len(values) != len(entries[0].scores):
            fail(f"{entry.report_path}: its scored queries or {measure.metric} differ from {entries[0].report_path}")
        rows.append([values[q] for q in order])
    names = tuple(e.row for e in entries)
    return SystemScores(measure.folder, names, np.asarray(rows, dtype=np.float64), stores)


def agreement_json(first, second, *, seed: int, systems: list[str] | None = None) -> dict | None:
    """One comparison as JSON (rounded to 6 places), or None when the two share fewer than 3 rows."""
    from memrecall.scoring.rank_agreement import rank_agreement

    if systems is not None:
        first, second = (s.only([n for n in s.systems if n in systems]) for s in (first, second))
    if len(set(first.systems) & set(second.systems)) < 3:
        return None
    found = rank_agreement(first, second, seed=seed, resamples=RESAMPLES)
    return {
        "n_systems": len(found.systems),
        "tau_b": round(found.tau, 6),
        "ci_low": round(found.ci_low, 6),
        "ci_high": round(found.ci_high, 6),
        "undefined_resamples": found.undefined,
        "values": {
            s: [round(a, 6), round(b, 6)] for s, a, b in zip(found.systems, found.first, found.second, strict=True)
        },
    }


def comparisons() -> list[tuple[str, Measure, Measure]]:
    """(kind, EpiRec measure, outside measure) for every comparison, primary first."""
    out = [
        ("primary", Measure(EPIREC, f"recall@{PRIMARY_K}", t), Measure(b, f"recall@{PRIMARY_K}")) for t, b in PRIMARY
    ]
    for kind_type, bench in PRIMARY:
        for k in OTHER_KS:
            out.append(("other k", Measure(EPIREC, f"recall@{PRIMARY_K}", kind_type), Measure(bench, f"recall@{k}")))
        for variant in VARIANTS[bench]:
            out.append(
                ("other layout", Measure(EPIREC, f"recall@{PRIMARY_K}", kind_type), Measure(variant, "recall@3"))
            )
    for t in TYPES:
        for b in OUTSIDE:
            if (t, b) not in PRIMARY:
                out.append(("other probe type", Measure(EPIREC, f"recall@{PRIMARY_K}", t), Measure(b, "recall@3")))
    return out


def build(folders: list[Path], seed: int) -> dict:
    """Every comparison, on its own shared rows and on the rows every primary benchmark shares."""
    plan = comparisons()
    names = sorted({m.folder for _, a, b in plan for m in (a, b)})
    entries = {n: read_folder(folders, n) for n in names}
    fingerprints = {
        n: {e.row: e.report["content_sha256"] for e in sorted(es, key=lambda e: e.row)} for n, es in entries.items()
    }
    common = set.intersection(*(set(fingerprints[n]) for n in (EPIREC, *OUTSIDE)))
    results = []
    for kind, a, b in plan:
        first, second = scores_of(entries[a.folder], a), scores_of(entries[b.folder], b)
        if first is None or second is None:
            results.append({"kind": kind, "epirec": a.name, "outside": b.name, "missing": "no runs"})
            continue
        results.append(
            {
                "kind": kind,
                "epirec": a.name,
                "outside": b.name,
                "shared_rows": agreement_json(first, second, seed=seed),
                "rows_every_primary_benchmark_shares": agreement_json(first, second, seed=seed, systems=sorted(common)),
            }
        )
    return {
        "method": (
            "Kendall's tau-b between the rows' means on the two measures; 95 % percentile bootstrap interval, "
            f"{RESAMPLES} resamples, seed {seed}, each resample drawing whole stores of each benchmark with "
            "replacement (its own draw, shared by every row); values are [epirec, outside] per row"
        ),
        "rows_every_primary_benchmark_shares": sorted(common),
        "inputs": fingerprints,
        "comparisons": results,
    }


def markdown(result: dict) -> str:
    """The comparisons as a Markdown table."""
    common = len(result["rows_every_primary_benchmark_shares"])
    lines = [
        f"| kind | EpiRec v3 | outside | rows | tau-b [95 % CI] | on the {common} rows all four benchmarks share |",
        "|---|---|---|---|---|---|",
    ]
    for c in result["comparisons"]:
        if "missing" in c:
            lines.append(f"| {c['kind']} | {c['epirec']} | {c['outside']} | - | no runs | - |")
            continue
        cells = []
        for part in (c["shared_rows"], c["rows_every_primary_benchmark_shares"]):
            cells.append(
                "-" if part is None else f"{part['tau_b']:+.3f} [{part['ci_low']:+.3f}, {part['ci_high']:+.3f}]"
            )
        rows = c["shared_rows"]["n_systems"] if c["shared_rows"] else 0
        lines.append(f"| {c['kind']} | {c['epirec']} | {c['outside']} | {rows} | {cells[0]} | {cells[1]} |")
    return "\n".join(lines) + "\n"


def with_table(path: Path, table: str) -> str:
    """The page's text with the block between START and END replaced by `table`; exit 1 without both markers."""
    text = path.read_text(encoding="utf-8")
    if text.count(START) != 1 or text.count(END) != 1 or text.index(START) > text.index(END):
        fail(f"{path}: needs one {START} line and one {END} line after it")
    head, rest = text.split(START)
    return f"{head}{START}\n{table}{END}{rest.split(END, 1)[1]}"


def main() -> int:
    """Parse the arguments, compute every comparison, write the JSON and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=Path, action="append", help=f"a folder of runs [default: {ENTRIES}]")
    parser.add_argument("--out", type=Path, default=OUT, help=f"the JSON written [default: {OUT}]")
    parser.add_argument("--seed", type=int, default=0, help="bootstrap seed [default: 0]")
    parser.add_argument("--doc", type=Path, default=None, help=f"rewrite this page's table block too (e.g. {DOC})")
    args = parser.parse_args()
    folders = args.runs or [ENTRIES]
    for folder in folders:
        if not folder.is_dir():
            fail(f"--runs {folder} is not a folder", 2)
    sys.path.insert(0, str(ROOT / "src"))
    from memrecall.errors import DatasetError
    from memrecall.io import write_json

    try:
        result = build(folders, args.seed)
    except DatasetError as exc:
        fail(str(exc))
    page = with_table(args.doc, markdown(result)) if args.doc else None
    write_json(args.out, result)
    if page is not None:
        from memrecall.io import atomic_write_text

        atomic_write_text(args.doc, page)
    print(markdown(result), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
