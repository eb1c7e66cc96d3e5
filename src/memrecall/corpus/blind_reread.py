"""Re-reads after a rewrite (docs/epirec_v3_plan.md section 5): a persona's failed probes and as many decoys.

`python -m memrecall.corpus.blind_reread OUT --round N FILE...` writes, for every persona file whose probes
failed their last read in the review CSV, one packet `pNN-rN.md` (and its key) holding those probes, as
rewritten in the file, shuffled among an equal number of the persona's accepted probes, drawn by a seed.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from memrecall.corpus.blind_review import ReviewError, failed, packet, read_rows, seeded


def last_reads(rows: list[dict[str, str]], persona_id: str) -> dict[str, dict[str, str]]:
    """Each of the persona's probes read so far, by id, with the row of its latest round."""
    out: dict[str, dict[str, str]] = {}
    for row in sorted(rows, key=lambda r: int(r["round"])):
        if row["probe_id"].startswith(f"{persona_id}e"):
            out[row["probe_id"]] = row
    return out


def reread_ids(persona: dict[str, Any], rows: list[dict[str, str]], round_: int) -> tuple[list[str], list[str]]:
    """The probes to read again (their last read failed) and the accepted ones drawn as decoys, both sorted."""
    pid = persona["persona_id"]
    reads = last_reads(rows, pid)
    if any(int(r["round"]) >= round_ for r in reads.values()):
        raise ReviewError(f"{pid}: round {round_} is already recorded; re-reads need a later round")
    again = sorted(p for p, r in reads.items() if failed(r))
    accepted = sorted(p for p, r in reads.items() if not failed(r))
    decoys = seeded(f"{pid}/reread/{round_}").sample(accepted, min(len(again), len(accepted))) if again else []
    return again, sorted(decoys)


def write_rereads(out: Path, files: list[Path], rows: list[dict[str, str]], round_: int) -> int:
    """One re-read packet and key per persona that has failed probes; how many were written."""
    out.mkdir(parents=True, exist_ok=True)
    written = 0
    for path in files:
        persona = json.loads(path.read_text(encoding="utf-8"))
        again, decoys = reread_ids(persona, rows, round_)
        if not again:
            continue
        name = f"{persona['persona_id']}-r{round_}"
        text, key = packet(persona, again + decoys, name)
        key["decoys"] = decoys
        (out / f"{name}.md").write_text(text, encoding="utf-8")
        (out / f"{name}.key.json").write_text(json.dumps(key, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        written += 1
    return written


def main(argv: list[str]) -> int:
    """Write the re-read packets; one line and exit 1 on unusable input."""
    parser = argparse.ArgumentParser(prog="python -m memrecall.corpus.blind_reread")
    parser.add_argument("out", type=Path)
    parser.add_argument("files", type=Path, nargs="+")
    parser.add_argument("--round", type=int, required=True, help="the round these reads are (2 or more)")
    parser.add_argument("--csv", type=Path, default=Path("human_validation/blind_review_v3.csv"))
    args = parser.parse_args(argv)
    try:
        if args.round < 2:
            raise ReviewError(f"--round must be 2 or more (round 1 is the halves), got {args.round}")
        written = write_rereads(args.out, args.files, read_rows(args.csv), args.round)
    except ReviewError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    print(f"{args.out}: {written} re-read packets")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
