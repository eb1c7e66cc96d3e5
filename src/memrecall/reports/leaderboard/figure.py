"""Quality against cost per leaderboard table: primary metric against time per query, Pareto front marked.

Every point carries its row number in the table; only the points on the front carry a name as well, points
that coincide share one label, and labels are placed where they overlap no other label or point (labels.py).
The front runs across encoders; each encoder has its own marker shape, named in the legend."""

from __future__ import annotations

import math
import textwrap
from collections.abc import Sequence

from memrecall.reports.leaderboard.entries import Entry
from memrecall.reports.leaderboard.labels import place_labels

TITLE_CHARS_PER_PANEL = 60  # a 4.2-inch panel holds about 65 characters of the 9-point title; wrap before
PANEL_TITLE_CHARS = 50  # a panel's own title: a 62-character one lost its last 4 characters on the page; wrap sooner
X_LABEL = "time per query, ms (prepare + index + rank, over queries; log scale)"
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
LABEL_SIZE = 6.5


def per_query_ms(entry: Entry) -> float | None:
    """All-in milliseconds per query (the run's total time over its queries), or None without cost."""
    cost = entry.cost
    total, queries = cost.get("total_seconds"), cost.get("queries")
    if not isinstance(total, (int, float)) or not isinstance(queries, int) or queries <= 0:
        return None
    return max(1000.0 * total / queries, 1e-4)


def pareto_front(points: Sequence[tuple[float, float, str]]) -> list[tuple[float, float, str]]:
    """Points no other point beats on both (lower cost, higher quality); by cost, ties by quality then name."""
    front, best = [], float("-inf")
    for point in sorted(points, key=lambda p: (p[0], -p[1], p[2])):
        if point[1] > best:
            front.append(point)
            best = point[1]
    return front


def number_ranges(numbers: Sequence[int]) -> str:
    """'3,5-8,12': the sorted numbers with runs of consecutive ones joined."""
    runs: list[list[int]] = []
    for n in sorted(numbers):
        if runs and n == runs[-1][-1] + 1:
            runs[-1].append(n)
        else:
            runs.append([n])
    return ",".join(str(r[0]) if len(r) == 1 else f"{r[0]}-{r[-1]}" for r in runs)


def label_points(ax, points: Sequence[tuple[float, float, str]], number: dict, on_front: set) -> None:
    """One label per spot (points less than a marker apart share it: their row numbers, and the name of the one on
    the front), placed by labels.place_labels so that no two labels and no label and point overlap."""
    from matplotlib.textpath import TextPath

    scale = 72.0 / ax.figure.dpi
    spots: list[list] = []  # [x points, y points, names]
    for x, y, name in sorted(points, key=lambda p: (p[2] not in on_front, -p[1], p[0], p[2])):
        px, py = (float(v) * scale for v in ax.transData.transform((x, y)))
        near = next((s for s in spots if abs(s[0] - px) < 3 and abs(s[1] - py) < 3), None)
        (near[2].append(name) if near else spots.append([px, py, [name]]))
    texts = []
    for _, _, names in spots:
        named = [n for n in names if n in on_front]
        numbers = number_ranges([number[n] for n in names])
        texts.append(f"{numbers} {named[0]}" if named else numbers)
    sizes = []
    for text in texts:
        extent = TextPath((0, 0), text, size=LABEL_SIZE).get_extents()
        sizes.append((extent.width + 3.0, LABEL_SIZE + 1.0))  # a gap, so "19" and "20" never read as "1920"
    box = ax.get_window_extent()
    bounds = (box.x0 * scale, box.y0 * scale, box.x1 * scale, box.y1 * scale)
    offsets = place_labels([(s[0], s[1]) for s in spots], sizes, bounds)
    for spot, text, (dx, dy) in zip(spots, texts, offsets, strict=True):
        anchor = ax.transData.inverted().transform((spot[0] / scale, spot[1] / scale))
        far = dx * dx + dy * dy > 81
        ax.annotate(
            text,
            tuple(anchor),
            xytext=(dx, dy),
            textcoords="offset points",
            fontsize=LABEL_SIZE,
            ha="right" if dx < 0 else "center" if dx == 0 else "left",
            va="top" if dy < 0 else "center" if dy == 0 else "bottom",
            arrowprops=dict(arrowstyle="-", lw=0.4, color="#999999", shrinkA=0, shrinkB=3) if far else None,
        )


def y_top(table, entries: Sequence[Entry]) -> float:
    """The panels' shared y-axis top: 1.05 when a value reaches 0.95, else the next tenth above the highest value
    plus 0.05, so a table whose rows all score low is not drawn flat along the bottom."""
    values = [c["value"] for e in entries for g in table.groups if (c := table.cell(e, g, table.primary))]
    highest = max(values, default=1.0)
    return 1.05 if highest >= 0.95 else math.ceil((highest + 0.05) * 10) / 10


def figure_svg(table, entries: Sequence[Entry]) -> bytes:
    """The table's figure as SVG bytes, identical for identical inputs (fixed hash salt, no date)."""
    import io

    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.backends.backend_svg import FigureCanvasSVG
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D
    from matplotlib.ticker import NullFormatter

    groups = table.groups
    with matplotlib.rc_context({"svg.hashsalt": "memrecall-leaderboard", "font.size": 9, "svg.fonttype": "path"}):
        figure = Figure(figsize=(4.2 * len(groups), 3.4))
        FigureCanvasSVG(figure)
        axes = figure.subplots(1, len(groups), squeeze=False)[0]
        names = sorted({e.encoder.name for e in entries})
        shape = {name: MARKERS[i % len(MARKERS)] for i, name in enumerate(names)}
        encoder_of = {e.row: e.encoder.name for e in entries}
        warm = {e.row for e in entries if e.warm}
        panels, top = [], y_top(table, entries)
        for ax, group in zip(axes, groups, strict=True):
            points, number = [], {}
            for position, entry in enumerate(entries, start=1):
                cell, x = table.cell(entry, group, table.primary), per_query_ms(entry)
                if cell is not None and x is not None:
                    points.append((x, cell["value"], entry.row))
                    number[entry.row] = position
            front = pareto_front([p for p in points if p[2] not in warm])  # a warm cost leaves encoding out
            on_front = {p[2] for p in front}
            for x, y, name in sorted(points, key=lambda p: p[2]):
                marker = dict(color="#1f5fa8") if name in on_front else dict(facecolor="none", edgecolor="#777777")
                ax.scatter([x], [y], s=28, zorder=3, marker=shape[encoder_of[name]], **marker)
            if front:
                ax.step([p[0] for p in front], [p[1] for p in front], where="post", color="#1f5fa8", lw=1, zorder=2)
            ax.set_xscale("log")
            ax.xaxis.set_minor_formatter(NullFormatter())
            ax.set_ylim(-0.03 * top, top)
            ax.set_title(textwrap.fill(group if group != "overall" else table.title, PANEL_TITLE_CHARS), fontsize=9)
            ax.set_xlabel(X_LABEL, fontsize=7)
            ax.set_ylabel(table.primary)
            ax.grid(True, alpha=0.3)
            panels.append((ax, points, number, on_front))
        if len(names) > 1:
            handles = [
                Line2D([], [], marker=shape[n], ls="", color="#444444", markerfacecolor="none", label=n) for n in names
            ]
            axes[0].legend(handles=handles, title="encoder", fontsize=6.5, title_fontsize=7, loc="best")
        title = (
            f"{table.title}: {table.primary} against time per query; filled = Pareto front (named); "
            "numbers are the table's # column" + ("; rows with a warm cost are never on the front" if warm else "")
        )
        figure.suptitle(textwrap.fill(title, width=TITLE_CHARS_PER_PANEL * len(groups)), fontsize=9)
        figure.tight_layout()
        for ax, points, number, on_front in panels:  # after the layout, so positions in points are final
            label_points(ax, points, number, on_front)
        buffer = io.BytesIO()
        figure.savefig(buffer, format="svg", metadata={"Date": None, "Creator": None})
    return buffer.getvalue()
