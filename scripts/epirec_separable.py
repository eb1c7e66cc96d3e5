"""Which leaderboard rows each EpiRec release can tell apart from dense: `python scripts/epirec_separable.py`.

Reads the committed entries of two EpiRec tables (default: 2.0, the `epirec-v2` folder, and 3.0, `epirec-v3`),
builds them as the page does (each row minus MiniLM `dense`, paired by probe, sign-flip p Holm-adjusted across
the table's rows, per probe type on recall@3) and writes, per probe type, the rows separable on each release
and those only the second separates, to `site/epirec_separable.json` (sorted, byte-identical on a rerun), with
a Markdown table on stdout.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ENTRIES = ROOT / "site" / "leaderboard" / "entries"
TYPES = ("factual", "reflective_explicit", "reflective_implicit")


def table_of(folder: str):
    """The leaderboard table built from one entries folder (its only EpiRec table)."""
    from memrecall.reports.leaderboard.entries import load_data, read_entries
    from memrecall.reports.leaderboard.tables import build_tables

    tables = build_tables(read_entries(ENTRIES / folder, load_data({})))
    (table,) = [t for t in tables if t.benchmark == "epirec"]
    return table


def against_dense(table) -> dict[str, dict[str, dict]]:
    """row -> probe type -> {difference, p_holm, separable} against dense."""
    out: dict[str, dict[str, dict]] = {}
    for (row, group), versus in sorted(table.against_dense.items()):
        if group in TYPES and versus.p_holm is not None:
            out.setdefault(row, {})[group] = {
                "difference": round(versus.difference, 6),
                "p_holm": round(versus.p_holm, 6),
                "separable": versus.separable,
            }
    return out


def main(first: str, second: str, output: Path) -> int:
    """Build both tables, compare their verdicts, write the JSON and print the Markdown."""
    sys.path.insert(0, str(ROOT / "src"))
    tables = {name: table_of(name) for name in (first, second)}
    tested = {name: against_dense(t) for name, t in tables.items()}
    common = sorted(set(tested[first]) & set(tested[second]))
    out = {"releases": {n: tables[n].title for n in tables}, "rows": {n: tested[n] for n in tested}, "by_type": {}}
    for kind in TYPES:
        separable = {n: sorted(r for r in common if tested[n][r].get(kind, {}).get("separable")) for n in tested}
        out["by_type"][kind] = {
            "separable": separable,
            f"only_{second}": sorted(set(separable[second]) - set(separable[first])),
            f"only_{first}": sorted(set(separable[first]) - set(separable[second])),
            "rows_in_both": len(common),
        }
    output.write_text(json.dumps(out, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    print(f"| row | type | {first}: diff, p_Holm | {second}: diff, p_Holm |")
    print("|---|---|---|---|")
    for row in common:
        for kind in TYPES:
            a, b = tested[first][row].get(kind), tested[second][row].get(kind)
            if a and b and (a["separable"] or b["separable"]):
                print(f"| {row} | {kind} | {a['difference']:+.3f}, {a['p_holm']:.3f} | {b['difference']:+.3f}, "
                      f"{b['p_holm']:.3f} |")  # fmt: skip
    print(f"wrote {output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--first", default="epirec-v2")
    parser.add_argument("--second", default="epirec-v3")
    parser.add_argument("--output", type=Path, default=ROOT / "site" / "epirec_separable.json")
    args = parser.parse_args()
    sys.exit(main(args.first, args.second, args.output))
