"""Tables as text: Markdown, CSV (the csv module's quoting) and LaTeX (booktabs), every cell escaped."""

from __future__ import annotations

from collections.abc import Sequence

from memrecall.io import csv_text
from memrecall.reports.escape import latex_text


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[object]], cell) -> str:
    """A Markdown table: the fixed header as given, each data cell through `cell` (an escaping function)."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cell(c) for c in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def csv_table(header: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """A CSV table (io.csv_text: RFC 4180 quoting, LF line ends, formula-like text cells get a leading ')."""
    return csv_text(header, rows)


def latex_table(header: Sequence[str], rows: Sequence[Sequence[object]], text_columns: int) -> str:
    """A LaTeX tabular with booktabs rules: the first `text_columns` left-aligned, the rest right-aligned."""
    spec = "l" * text_columns + "r" * (len(header) - text_columns)
    lines = [r"\begin{tabular}{" + spec + "}", r"\toprule"]
    lines.append(" & ".join(latex_text(h) for h in header) + r" \\")
    lines.append(r"\midrule")
    lines += [" & ".join(latex_text(c) for c in row) + r" \\" for row in rows]
    lines += [r"\bottomrule", r"\end{tabular}"]
    return "\n".join(lines) + "\n"
