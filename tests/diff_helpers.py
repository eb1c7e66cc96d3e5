"""Tiny EpiRec reports with their rankings and per-query files, for the diff and gate tests."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import run

from memrecall.scoring.policy import strata_in_headline

MINI = Path(__file__).parent / "fixtures" / "epirec_mini.json"
HOSTILE = '</script><img src=x onerror="alert(1)"> & *bold* | [link](http://x) `tick`'


def hostile_data(folder: Path) -> Path:
    """The mini EpiRec with one episode's text and one probe's query full of HTML and Markdown syntax."""
    data = json.loads(MINI.read_text(encoding="utf-8"))
    episode = data["personas"][0]["episodes"][0]
    episode["text"] = HOSTILE + " " + episode["text"]
    episode["probes"][0]["query"] = HOSTILE
    path = folder / "hostile.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def make_run(folder: Path, system: str, data: Path = MINI) -> Path:
    """`memrecall run epirec --system SYSTEM` into folder/SYSTEM.report.json with rankings and per-query beside."""
    folder.mkdir(parents=True, exist_ok=True)
    stem = folder / system
    result = run(
        "run", "epirec", "--data", data, "--system", system, "--output", f"{stem}.report.json",
        "--export-rankings", f"{stem}.rankings.jsonl", "--per-query", f"{stem}.pq.jsonl", "--quiet",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    return Path(f"{stem}.report.json")


def make_reversed(folder: Path, source: Path, data: Path = MINI) -> Path:
    """An evaluated report of `source`'s rankings reversed: the worst candidate there is."""
    beside = source.with_name(source.name.replace(".report.json", ".rankings.jsonl"))
    rows = [json.loads(line) for line in beside.open(encoding="utf-8")]
    rankings = folder / "reversed.rankings.jsonl"
    rankings.write_text("".join(json.dumps({**r, "ranked_episode_ids": r["ranked_episode_ids"][::-1]}) + "\n"
                                for r in rows), encoding="utf-8")  # fmt: skip
    result = run("evaluate", rankings, "--benchmark", "epirec", "--data", data, "--output",
                 folder / "reversed.report.json", "--quiet")  # fmt: skip
    assert result.exit_code == 0, result.output
    return folder / "reversed.report.json"


def outcome_counts(first: Path, second: Path, k: int) -> dict[str, int]:
    """fixed, broken, both found and both missed at k, counted from two per-query files (headline queries)."""

    def hits(path: Path) -> dict[str, bool]:
        rows = [json.loads(line) for line in path.open(encoding="utf-8")]
        scored = [r for r in rows if r["hit"] is not None and strata_in_headline(r["strata"])]
        return {r["query_id"]: r["hit"][f"@{k}"] for r in scored}

    a, b = hits(first), hits(second)
    counts = dict.fromkeys(("fixed", "broken", "both found", "both missed"), 0)
    for query, was in a.items():
        now = b[query]
        counts["both found" if was and now else "broken" if was else "fixed" if now else "both missed"] += 1
    return counts
