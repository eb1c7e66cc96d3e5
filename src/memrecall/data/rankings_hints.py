"""What a rankings file that fails on every line most likely is: the wrong key set or the wrong benchmark."""

from __future__ import annotations


def rankings_hint(problems: list[str], rows: int, benchmark: str) -> str | None:
    """A likely cause when every line fails the same way: the wrong key set or the wrong benchmark."""
    line_problems = [p for p in problems if p.startswith("line")]
    if line_problems and all("missing ranked_episode_ids (found ranked_ids" in p for p in line_problems):
        return (
            "every line lacks ranked_episode_ids; found ranked_ids: "
            "is this a LongMemEval/LoCoMo rankings file? use --benchmark"
        )
    unknown = sum("unknown query" in p for p in problems)
    if rows and unknown == rows:
        return f"no query id is one of {benchmark}'s: are these rankings for another benchmark? use --benchmark"
    return None
