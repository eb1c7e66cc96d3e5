"""The diff's short summary: counts and paired tests per comparison, as terminal lines or Markdown."""

from __future__ import annotations

from memrecall.reports.diff.content import OUTCOMES
from memrecall.reports.escape import markdown_cell, one_line
from memrecall.scoring.paired import format_p

HEADER = ("stratum", "n", *OUTCOMES, "difference [95% CI]", "p")


def _cells(group: dict) -> list[str]:
    """One row's cells as plain text."""
    label = "overall" if group["stratum"] is None else f"{group['stratum'][0]} = {group['stratum'][1]}"
    interval = f"{group['difference']:+.3f} [{group['ci_low']:+.3f}, {group['ci_high']:+.3f}]"
    return [label, str(group["n"]), *(str(group["counts"][o]) for o in OUTCOMES), interval, format_p(group["p_value"])]


def _title(content: dict, comparison: dict) -> str:
    """`B against A on BENCH, recall@k`."""
    return f"{comparison['system']} against {comparison['against']} on {content['benchmark']}, {content['metric']}"


def summary_lines(content: dict) -> list[str]:
    """Terminal lines: per comparison a title and an aligned table (data strings on one line each)."""
    lines = []
    for comparison in content["comparisons"]:
        rows = [list(HEADER)] + [[one_line(c) for c in _cells(g)] for g in comparison["groups"]]
        widths = [max(len(r[i]) for r in rows) for i in range(len(HEADER))]
        lines.append(one_line(_title(content, comparison)))
        lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows]
    return lines


def summary_markdown(content: dict, page: str | None = None) -> str:
    """The same as a Markdown section per comparison, every data string escaped; `page` links the HTML page."""
    out = [f"# memrecall diff on {markdown_cell(content['benchmark'])}", ""]
    if page:
        from memrecall.reports.escape import markdown_link_target

        out += [f"Per-query page: [{markdown_cell(page)}]({markdown_link_target(page)})", ""]
    for comparison in content["comparisons"]:
        out += [f"## {markdown_cell(_title(content, comparison))}", ""]
        out.append("| " + " | ".join(HEADER) + " |")
        out.append("|" + "---|" * len(HEADER))
        out += ["| " + " | ".join(markdown_cell(c) for c in _cells(g)) + " |" for g in comparison["groups"]]
        out.append("")
    return "\n".join(out)
