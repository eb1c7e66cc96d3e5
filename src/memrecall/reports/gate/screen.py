"""The gate's one screen: the verdict, each guard's difference and bounds, and on a fail what broke most."""

from __future__ import annotations

from memrecall.reports.escape import one_line
from memrecall.reports.gate.decision import GateResult
from memrecall.reports.gate.verdict import LEVEL, POWER

CLIP = 70


def _clip(text: str) -> str:
    """One line, at most CLIP characters."""
    text = one_line(text)
    return text if len(text) <= CLIP else text[: CLIP - 1] + "\u2026"


def gate_lines(result: GateResult, page: str | None = None) -> list[str]:
    """Terminal lines: verdict first, then a table of guards, the queries that broke most, and the page."""
    lines = [f"gate: {result.verdict.upper()}" + (f": {one_line(result.reason)}" if result.reason else "")]
    if result.sample:
        lines.append(
            f"sample: {result.sample['size']} queries stratified by {result.sample['stratified_by']}, "
            f"seed {result.sample['seed']}; the power statement below is for this sample"
        )
    if result.guards:
        header = ["metric", "stratum", "n", "baseline", "candidate", "difference", f"one-sided {LEVEL:.0%} bounds"]
        header += ["margin", f"queries for power {POWER:g}", "verdict"]
        rows = [header]
        for g in result.guards:
            needed = "unreachable" if g.queries_needed is None else str(g.queries_needed)
            rows.append(
                [
                    g.metric,
                    one_line(g.stratum),
                    str(g.n),
                    f"{g.baseline:.3f}",
                    f"{g.candidate:.3f}",
                    f"{g.difference:+.3f}",
                    f"[{g.lower:+.3f}, {g.upper:+.3f}]",
                    f"-{g.margin:g}",
                    needed,
                    g.verdict,
                ]
            )
        widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
        lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows]
    if result.broke_most:
        lines.append("broke most (gold rank baseline -> candidate):")
        for q in result.broke_most:
            before = q["baseline_rank"] or "-"
            after = q["candidate_rank"] or "not ranked"
            lines.append(f"  {one_line(q['query_id'])}: {before} -> {after}  {_clip(q['text'])}")
    if page:
        lines.append(f"diff page: {page}")
    return lines
