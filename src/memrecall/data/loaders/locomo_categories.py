"""The evidence in the LoCoMo release for what its category numbers mean: shape counts per category.

The release stores each question's category as a bare number. These counts, read from the release itself,
are what docs/locomo.md's mapping rests on: how many evidence turns a question has, whether they span
sessions, whether the answer is a date, whether the question asks "when", and whether the record carries
`adversarial_answer` instead of `answer`.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

DATE = re.compile(
    r"\b(19|20)\d\d\b|\b(January|February|March|April|May|June|July|August|September|October|November|December)\b"
)
SHAPES = ("multi_evidence", "multi_session", "date_answer", "asks_when", "asks_would", "adversarial_answer")


def question_shape(qa: dict) -> dict[str, bool]:
    """The shape facts of one question record of the release."""
    evidence = [e for e in qa.get("evidence") or [] if isinstance(e, str)]
    sessions = {e.split(":")[0] for e in evidence if ":" in e}
    text = str(qa.get("question", "")).strip().lower()
    return {
        "multi_evidence": len(evidence) > 1,
        "multi_session": len(sessions) > 1,
        "date_answer": bool(DATE.search(str(qa.get("answer", "")))),
        "asks_when": text.startswith("when"),
        "asks_would": text.startswith("would") or " likely" in text,
        "adversarial_answer": "adversarial_answer" in qa,
    }


def category_evidence(release: list[Any]) -> dict[int, dict[str, float]]:
    """Per raw category number: its question count and the share of its questions with each shape."""
    counts: dict[int, Counter] = {}
    for conversation in release:
        for qa in conversation.get("qa") or []:
            tally = counts.setdefault(qa.get("category"), Counter())
            tally["questions"] += 1
            tally.update(name for name, held in question_shape(qa).items() if held)
    return {
        category: {"questions": tally["questions"], **{s: tally[s] / tally["questions"] for s in SHAPES}}
        for category, tally in sorted(counts.items(), key=lambda item: str(item[0]))
    }


def evidence_table(release: list[Any]) -> str:
    """The evidence as a Markdown table, shares as whole percentages."""
    from memrecall.data.loaders.locomo import category_label

    lines = ["| category | questions | " + " | ".join(SHAPES) + " |", "|---" * (len(SHAPES) + 2) + "|"]
    for category, row in category_evidence(release).items():
        shares = " | ".join(f"{row[s]:.0%}" for s in SHAPES)
        lines.append(f"| {category_label(category)} | {row['questions']} | {shares} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    import json
    import sys
    from pathlib import Path

    print(evidence_table(json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))), end="")
