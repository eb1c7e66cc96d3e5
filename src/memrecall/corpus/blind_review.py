"""Blind ranking review of draft personas (docs/epirec_v3_plan.md section 5): reader packets, answers, CSV.

`python -m memrecall.corpus.blind_review packets OUT FILE...` writes each persona's two random halves as
packets a reader can answer without seeing any answer; `record` turns one reader's answers into rows of
human_validation/blind_review_v3.csv; `score` gives the reader's recall per probe type from that CSV.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import random
import sys
from hashlib import sha256
from pathlib import Path
from typing import Any

from memrecall.corpus import rules

HALF = 21
VERDICTS = ("sure", "unsure", "ambiguous")
COLUMNS = ["probe_id", "round", "reader", "half", "blind_id", "rank1", "rank2", "rank3", "verdict", "note"]
TYPES = {"f": "factual", "x": "reflective_explicit", "i": "reflective_implicit"}


class ReviewError(ValueError):
    """A packet key, an answers file or a review CSV that cannot be used, with where and why."""


def seeded(text: str) -> random.Random:
    """The plan's seeding: a Random from the sha256 of `text` in UTF-8, read as one integer."""
    return random.Random(int(sha256(text.encode("utf-8")).hexdigest(), 16))


def halves(persona: dict[str, Any]) -> tuple[list[str], list[str]]:
    """The persona's probe ids in id order, shuffled by the persona id's seed and cut at 21."""
    ids = sorted(q["id"] for e in persona["episodes"] for q in e["probes"])
    seeded(persona["persona_id"]).shuffle(ids)
    return ids[:HALF], ids[HALF:]


def packet(persona: dict[str, Any], probe_ids: list[str], name: str) -> tuple[str, dict[str, Any]]:
    """A reader's packet (episodes relabelled A.., probes shuffled, no types) and the key that undoes it."""
    episodes = list(persona["episodes"])
    seeded(f"{persona['persona_id']}/{name}/episodes").shuffle(episodes)
    letters = {chr(ord("A") + i): e["id"] for i, e in enumerate(episodes)}
    queries = {q["id"]: q["query"] for e in persona["episodes"] for q in e["probes"]}
    order = sorted(probe_ids)
    seeded(f"{persona['persona_id']}/{name}/probes").shuffle(order)
    blind = {f"q{i:02d}": probe for i, probe in enumerate(order, start=1)}
    lines = [
        f"# Reading {name}",
        "",
        f"Below are {len(episodes)} journal entries by one person, labelled A to {chr(ord('A') + len(episodes) - 1)},",
        f"then {len(blind)} short prompts the same person might say later (today is {rules.REFERENCE_NOW[:10]}).",
        "Each prompt refers to exactly one entry. How many prompts refer to an entry is not fixed: an entry",
        "may have none, one or several. For every prompt give the three entries it most likely refers to,",
        'best first, and a verdict: "sure", "unsure" or "ambiguous" (two or more entries fit equally well).',
        "Add a short note for every verdict that is not sure, saying which entries compete and why.",
        "",
        "## Entries",
        "",
    ]
    lines += [
        f"{letter} ({_when(by_id(persona, eid)['date_time'])}): {by_id(persona, eid)['text']}"
        for letter, eid in letters.items()
    ]
    lines += ["", "## Prompts", ""] + [f"{b}: {queries[p]}" for b, p in blind.items()]
    lines += [
        "",
        "## Answer",
        "",
        "One JSON object, every prompt once:",
        "",
        '{"q01": {"top3": ["C", "A", "K"], "verdict": "sure", "note": ""}, ...}',
        "",
    ]
    key = {"persona_id": persona["persona_id"], "packet": name, "letters": letters, "probes": blind}
    return "\n".join(lines), key


def by_id(persona: dict[str, Any], episode_id: str) -> dict[str, Any]:
    """One episode of the persona by id."""
    return next(e for e in persona["episodes"] if e["id"] == episode_id)


def _when(date_time: str) -> str:
    """`2025-03-14 19:05` from an ISO timestamp: the local day and time a reader needs."""
    return date_time[:16].replace("T", " ")


def answer_rows(key: dict[str, Any], answers: Any, reader: str, round_: int, where: str) -> list[dict[str, str]]:
    """The CSV rows of one reader's answers to one packet; ReviewError naming the prompt when one is unusable."""
    if not isinstance(answers, dict):
        raise ReviewError(f"{where}: the answers must be one JSON object keyed by prompt id")
    extra = sorted(set(answers) - set(key["probes"]))
    missing = sorted(set(key["probes"]) - set(answers))
    if extra or missing:
        raise ReviewError(f"{where}: prompts missing {missing or 'none'}, unknown {extra or 'none'}")
    rows = []
    for blind_id, probe_id in sorted(key["probes"].items()):
        answer = answers[blind_id]
        top = answer.get("top3") if isinstance(answer, dict) else None
        if not isinstance(top, list) or len(top) != 3 or len(set(top)) != 3 or not set(top) <= set(key["letters"]):
            raise ReviewError(f"{where}: {blind_id}: top3 must be 3 different entry letters, got {top!r}")
        if answer.get("verdict") not in VERDICTS:
            raise ReviewError(f"{where}: {blind_id}: verdict must be one of {', '.join(VERDICTS)}")
        ranks = [key["letters"][letter] for letter in top]
        rows.append(
            {
                "probe_id": probe_id,
                "round": str(round_),
                "reader": reader,
                "half": key["packet"],
                "blind_id": blind_id,
                "rank1": ranks[0],
                "rank2": ranks[1],
                "rank3": ranks[2],
                "verdict": answer["verdict"],
                "note": " ".join(str(answer.get("note") or "").split()),
            }
        )
    return rows


def read_rows(path: Path) -> list[dict[str, str]]:
    """The review CSV's rows; none when the file does not exist yet."""
    if not path.exists():
        return []
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        if reader.fieldnames != COLUMNS:
            raise ReviewError(f"{path}: header must be {','.join(COLUMNS)}")
        return list(reader)


def csv_text(rows: list[dict[str, str]]) -> str:
    """The CSV with its rows sorted by round, then probe id: the same rows always give the same bytes."""
    out = io.StringIO()
    writer = csv.DictWriter(out, COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(sorted(rows, key=lambda r: (int(r["round"]), r["probe_id"])))
    return out.getvalue()


def merged(old: list[dict[str, str]], new: list[dict[str, str]], where: str) -> list[dict[str, str]]:
    """Old and new rows together; ReviewError when a probe would be read twice in one round."""
    seen = {(r["probe_id"], r["round"]) for r in old}
    twice = sorted(f"{r['probe_id']} (round {r['round']})" for r in new if (r["probe_id"], r["round"]) in seen)
    if twice:
        raise ReviewError(f"{where}: already recorded: {', '.join(twice)}")
    return old + new


def failed(row: dict[str, str]) -> bool:
    """The plan's failure: the reader's first choice is not the target, or the verdict is ambiguous."""
    return row["rank1"] != row["probe_id"].split("-")[0] or row["verdict"] == "ambiguous"


def reader_recall(rows: list[dict[str, str]], final: bool) -> dict[str, dict[str, float | int]]:
    """Per probe type: probes read, recall@1, recall@3 and failures; round 1 only, or each probe's last read."""
    chosen: dict[str, dict[str, str]] = {}
    for row in sorted(rows, key=lambda r: int(r["round"])):
        if final or row["round"] == "1":
            chosen[row["probe_id"]] = row
    out: dict[str, dict[str, float | int]] = {}
    for suffix, name in TYPES.items():
        picked = [r for p, r in chosen.items() if p.endswith(f"-{suffix}")]
        if picked:
            target = [r["probe_id"].split("-")[0] for r in picked]
            out[name] = {
                "probes": len(picked),
                "recall_at_1": sum(r["rank1"] == t for r, t in zip(picked, target, strict=True)) / len(picked),
                "recall_at_3": sum(
                    t in (r["rank1"], r["rank2"], r["rank3"]) for r, t in zip(picked, target, strict=True)
                )
                / len(picked),
                "failures": sum(map(failed, picked)),
            }
    return out


def main(argv: list[str]) -> int:
    """packets / record / score; one line and exit 1 on unusable input."""
    parser = argparse.ArgumentParser(prog="python -m memrecall.corpus.blind_review")
    sub = parser.add_subparsers(dest="command", required=True)
    make = sub.add_parser("packets", help="write each persona's two halves as reader packets with their keys")
    make.add_argument("out", type=Path)
    make.add_argument("files", type=Path, nargs="+")
    record = sub.add_parser("record", help="add one reader's answers to one packet to the review CSV")
    record.add_argument("key", type=Path)
    record.add_argument("answers", type=Path)
    record.add_argument("--reader", required=True)
    record.add_argument("--round", type=int, default=1)
    record.add_argument("--csv", type=Path, default=Path("human_validation/blind_review_v3.csv"))
    score = sub.add_parser("score", help="reader's recall per probe type from the review CSV")
    score.add_argument("--csv", type=Path, default=Path("human_validation/blind_review_v3.csv"))
    args = parser.parse_args(argv)
    try:
        if args.command == "packets":
            write_packets(args.out, args.files)
        elif args.command == "record":
            key = json.loads(args.key.read_text(encoding="utf-8"))
            answers = _read_answers(args.answers)
            rows = merged(
                read_rows(args.csv),
                answer_rows(key, answers, args.reader, args.round, str(args.answers)),
                str(args.csv),
            )
            args.csv.write_text(csv_text(rows), encoding="utf-8")
            print(f"{args.csv}: {len(rows)} rows")
        else:
            rows = read_rows(args.csv)
            print(
                json.dumps(
                    {"round_1": reader_recall(rows, False), "final": reader_recall(rows, True)},
                    indent=2,
                    sort_keys=True,
                )
            )
    except ReviewError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 0


def _read_answers(path: Path) -> Any:
    """A reader's answers: the JSON object in the file (a reader may wrap it in a Markdown code fence)."""
    text = path.read_text(encoding="utf-8").strip()
    if text.startswith("```"):
        text = text.split("\n", 1)[1].rsplit("```", 1)[0]
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise ReviewError(f"{path}: not JSON: {error.msg} at line {error.lineno}") from None


def write_packets(out: Path, files: list[Path]) -> None:
    """`pNN-h1.md` and `pNN-h1.key.json` (and h2) in `out` for every persona file."""
    out.mkdir(parents=True, exist_ok=True)
    for path in files:
        persona = json.loads(path.read_text(encoding="utf-8"))
        for number, half in enumerate(halves(persona), start=1):
            name = f"{persona['persona_id']}-h{number}"
            text, key = packet(persona, half, name)
            (out / f"{name}.md").write_text(text, encoding="utf-8")
            (out / f"{name}.key.json").write_text(json.dumps(key, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    print(f"{out}: {2 * len(files)} packets")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
