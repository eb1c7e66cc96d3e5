"""Console tables of results: aligned columns, primary metric first, CIs shown."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console
from rich.markup import escape
from rich.table import Table


def cell(result: dict, metric: str, with_ci: bool) -> str:
    """`0.857 [0.80, 0.91]` or `0.857`."""
    if metric not in result:
        return "-"
    value = result[metric]
    text = f"{value['value']:.3f}"
    return f"{text} [{value['ci_low']:.2f}, {value['ci_high']:.2f}]" if with_ci else text


def results_table(
    title: str,
    rows: Sequence[tuple[str, str, dict]],
    metrics: Sequence[str],
    labels: tuple[str, str] = ("system", "group"),
    notes: Sequence[str] = (),
) -> Table:
    """A table of (system, group, result) rows; the first metric with its CI, then as many as fit the terminal.

    `notes` (reports.notes.report_notes) go under the table; a cell whose cut-off reaches the store says so.
    """
    label_width = sum(max([len(label), *(len(str(row[i])) for row in rows)]) + 3 for i, label in enumerate(labels))
    metrics, dropped = fit_metrics(list(metrics), label_width, console_width())
    more = [f"{len(dropped)} more metric(s) in the report: {', '.join(dropped)}"] if dropped else []
    caption = escape("\n".join([*notes, *more])) if notes or more else None
    table = Table(title=escape(title), title_justify="left", caption=caption, caption_justify="left")
    table.add_column(labels[0])
    table.add_column(labels[1])
    for i, metric in enumerate(metrics):
        table.add_column(escape(f"{metric} [95% CI]" if i == 0 else metric), justify="right")
    table.add_column("n", justify="right")
    previous = None
    for system, group, result in rows:
        label = system if system != previous else ""
        previous = system
        values = (cell(result, m, i == 0) for i, m in enumerate(metrics))
        table.add_row(escape(str(label)), escape(str(group)), *values, str(result["n"]))  # names never read as markup
    return table


def console_width() -> int:
    """The terminal's width, at least 100 columns (a pipe counts as 120)."""
    console = Console()
    return max(100, console.width) if console.is_terminal else 120


def fit_metrics(metrics: list[str], label_width: int, width: int) -> tuple[list[str], list[str]]:
    """The metrics whose columns fit `width` after the label columns (the first always stays), and the rest."""
    used = label_width + 8  # the n column and borders
    kept = []
    for index, metric in enumerate(metrics):
        column = (len(metric) + 12 if index == 0 else max(len(metric), 6)) + 3
        if index and used + column > width:
            return kept, metrics[index:]
        kept.append(metric)
        used += column
    return kept, []


def print_table(table: Table) -> None:
    """Print to stdout without colour codes when stdout is not a terminal."""
    _Console(width=console_width()).print(table)


class _Console(Console):
    """A rich Console whose broken pipe is an EPIPE error (rich's own exits 0-or-1 and lands the outputs)."""

    def on_broken_pipe(self) -> None:
        import errno
        import os

        raise BrokenPipeError(errno.EPIPE, os.strerror(errno.EPIPE))


def system_rows(name: str, results: dict, stratum: str | None) -> list[tuple[str, str, dict]]:
    """One system's rows: each group of the primary stratum side by side, then overall."""
    rows = [(name, group, result) for group, result in results.get(f"by_{stratum}", {}).items()] if stratum else []
    if "overall" in results:
        rows.append((name, "overall", results["overall"]))
    return rows


SATURATED = ("longmemeval",)  # benchmarks whose recall@10 is near 1.0 for today's systems (docs/longmemeval.md)


def table_metrics(content: dict) -> list[str]:
    """The columns a console table shows: every scored metric when few, else the headline metrics and mrr."""
    metrics = content["scoring"]["metrics"]
    if len(metrics) <= 4:
        return list(metrics)
    return lead_columns(
        content,
        [*content["headline_metrics"], *(m for m in rank_metrics(content) if m not in content["headline_metrics"])],
    )


def lead_columns(content: dict, columns: list[str]) -> list[str]:
    """`columns`, led by recall@1 and MRR (mrr@10) on a benchmark whose recall@10 is saturated (LongMemEval)."""
    benchmark = str(content.get("benchmark") or "")
    if not benchmark.startswith(SATURATED):
        return columns
    scored = content["scoring"]["metrics"]
    lead = [m for m in ("recall@1", *rank_metrics(content)) if m in scored]
    return [*lead, *(c for c in columns if c not in lead)]


def rank_metrics(content: dict) -> list[str]:
    """The report's reciprocal-rank metric as scored: mrr (whole rankings) or mrr@k (rankings scored to depth k)."""
    own = [m for m in content["scoring"]["metrics"] if m not in content["scoring"].get("requested_metrics", [])]
    return [m for m in own if m == "mrr" or m.startswith("mrr@")][:1]


def shown_name(name: str, entry: dict) -> str:
    """A system's name as tables, cards and figures show it: oracles (they read authored labels) say so."""
    return f"{name} (oracle)" if entry.get("uses_gold_labels") is True else name


def systems_rows(report: dict) -> list[tuple[str, str, dict]]:
    """Rows of a report: each system's primary-stratum groups, then overall."""
    content = report["content"]
    stratum = content.get("primary_stratum")
    return [
        row
        for name in content["system_order"]
        for row in system_rows(shown_name(name, content["systems"][name]), content["systems"][name]["results"], stratum)
    ]


def comparison_table(title: str, rows: Sequence[Sequence[str]], metrics: Sequence[str]) -> Table:
    """Paired differences: group, then 'diff [CI] p' per metric, then n."""
    table = Table(title=escape(title), title_justify="left")
    table.add_column("group")
    for metric in metrics:
        table.add_column(escape(f"{metric} diff, CI, p"), justify="right")
    table.add_column("n", justify="right")
    for row in rows:
        table.add_row(*(escape(str(value)) for value in row))
    return table


def harness_rows(report: dict, apart_suffix: str = "", key: str = "results") -> list[tuple[str, str, dict]]:
    """Rows of a report with diagnostics: per system, overall, each primary-stratum group, then the apart rows.

    Apart rows already shown as headline groups are skipped; `apart_suffix` marks the rest.
    """
    content = report["content"]
    rows = []
    stratum = content.get("primary_stratum")
    for mode in content["system_order"]:
        results = content["systems"][mode].get(key, {})
        if "overall" in results:
            rows.append((mode, "overall", results["overall"]))
        if stratum:
            rows.extend((mode, group, r) for group, r in results.get(f"by_{stratum}", {}).items())
        for apart in (name for name in results if name.startswith("apart_")):
            label = apart.removeprefix("apart_by_")
            shown = results.get(f"by_{stratum}", {}) if label == stratum else {}
            rows.extend(
                (mode, f"{label}: {group}{apart_suffix}", r)
                for group, r in results[apart].items()
                if group not in shown
            )
        for counted in (name for name in results if name.startswith("without_targets_by_")):
            label = counted.removeprefix("without_targets_by_")
            scored = results.get(f"apart_by_{label}", {})
            rows.extend(
                (mode, f"{label}: {group} (no gold target: counted, not scored){apart_suffix}", {"n": n})
                for group, n in results[counted].items()
                if group not in scored
            )
    return rows
