"""PNG figures for any memrecall report (matplotlib, Agg backend, no timestamps in the files)."""

from __future__ import annotations

import re
from pathlib import Path

from memrecall.errors import ConfigError

PROBE_TYPES = ("factual", "reflective_explicit", "reflective_implicit")
BANDS = ("high", "mild", "low")
AGES = ("short", "medium", "long")
PNG_METADATA = {"Software": None}


def _pyplot():
    """Import pyplot on the Agg backend with readable default sizes."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams.update(
        {
            "font.size": 11,
            "axes.titlesize": 12,
            "axes.labelsize": 11,
            "legend.fontsize": 10,
            "svg.hashsalt": "memrecall",
            "text.parse_math": False,  # names and groups from data are plain text, never mathtext
        }
    )
    return plt


def epirec_systems(report: dict) -> list[tuple[str, dict]]:
    """(name, results) for every system of a report, in order."""
    from memrecall.reports.exports.tables import shown_name

    content = report["content"]
    return [(shown_name(n, content["systems"][n]), content["systems"][n]["results"]) for n in content["system_order"]]


def _bars(ax, groups: list[str], systems: list[tuple[str, dict]], metric: str, lookup) -> None:
    """Grouped bars (one bar per system in each group) with 95 % CI whiskers."""
    width = 0.8 / max(len(systems), 1)
    for index, (name, results) in enumerate(systems):
        xs, values, lows, highs = [], [], [], []
        for g, group in enumerate(groups):
            row = lookup(results, group)
            if row is None:
                continue
            value = row[metric]
            xs.append(g - 0.4 + width * (index + 0.5))
            values.append(value["value"])
            lows.append(value["value"] - value["ci_low"])
            highs.append(value["ci_high"] - value["value"])
        ax.bar(xs, values, width, yerr=[lows, highs], capsize=3, label=name)
    counts = [next((row["n"] for _, r in systems if (row := lookup(r, g))), 0) for g in groups]
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels(
        [f"{g.replace('reflective_', 'reflective ')}\nn = {n}" for g, n in zip(groups, counts, strict=True)]
    )
    ax.set_ylim(0, 1.05)
    ax.grid(axis="y", alpha=0.3)


def epirec_figures(report: dict, out: Path) -> list[Path]:
    """recall@3 by probe type; by probe type x intensity band; by probe type x age bucket."""
    plt = _pyplot()
    systems = epirec_systems(report)
    metric = report["content"]["primary_metric"]
    name = f"{report['content']['task']['name']} {report['content']['task']['version']}"
    paths = []
    figure, ax = plt.subplots(figsize=(11, 5.5), dpi=100)
    _bars(ax, list(PROBE_TYPES), systems, metric, lambda r, g: r.get("by_probe_type", {}).get(g))
    ax.set_title(f"{name}: {metric} by probe type (95% bootstrap CI)")
    ax.set_xlabel("probe type")
    ax.set_ylabel(metric)
    ax.legend(title="system", loc="upper left", bbox_to_anchor=(1.01, 1.0))
    figure.tight_layout()
    paths.append(_save(figure, out / "recall_by_probe_type.png", plt))
    for key, groups, label, note, filename in (
        ("by_probe_type_x_intensity_band", BANDS, "intensity band", "", "recall_by_intensity_band.png"),
        (
            "by_probe_type_x_age_bucket",
            AGES,
            "age bucket",
            "\nage before the reference time: short at most 6 days, medium 7 to 30 days, long over 30 days",
            "recall_by_age_bucket.png",
        ),
    ):
        figure, axes = plt.subplots(1, 3, figsize=(16, 5), dpi=100, sharey=True)
        for ax, probe_type in zip(axes, PROBE_TYPES, strict=True):
            _bars(ax, list(groups), systems, metric, lambda r, g, t=probe_type, k=key: r.get(k, {}).get(f"{t}/{g}"))
            ax.set_title(probe_type)
            ax.set_xlabel(label)
        axes[0].set_ylabel(metric)
        handles, labels = axes[0].get_legend_handles_labels()
        figure.legend(handles, labels, title="system", loc="center right")
        figure.suptitle(f"{name}: {metric} by probe type and {label} (95% bootstrap CI){note}")
        figure.tight_layout(rect=(0, 0, 0.87, 1))
        paths.append(_save(figure, out / filename, plt))
    return paths


def harness_figures(report: dict, out: Path) -> list[Path]:
    """The headline recall@k curve (k = 1..50) per system, overall and per question type or category, with n."""
    plt = _pyplot()
    content = report["content"]
    stratum = content.get("primary_stratum")
    title = f"{content['dataset'].get('family', content['task']['name'])} ({content['task']['version']})"
    curves = {}
    for mode in content["system_order"]:
        curve = content["systems"][mode].get("recall_curve")
        if not curve or "metric" not in curve:
            raise ConfigError(f"system {mode} has no recall curve of this version; re-run the harness")
        curves[mode] = curve
    metric = next(iter(curves.values()))["metric"]
    paths = []
    figure, ax = plt.subplots(figsize=(9, 5.5), dpi=100)
    for mode, curve in curves.items():
        ax.plot(curve["k"], curve["overall"], marker=".", label=mode, linestyle=_style(mode, content))
    _curve_axes(ax, f"{title}: {metric}, headline questions (n = {next(iter(curves.values()))['n']})", metric)
    ax.legend(title="system")
    figure.tight_layout()
    paths.append(_save(figure, out / "recall_curve.png", plt))
    if stratum:
        panels = []
        for label, suffix in ((f"by_{stratum}", ""), (f"apart_by_{stratum}", " (apart: not in the headline)")):
            groups = sorted({g for c in curves.values() for g in c.get(label, {})})
            panels += [(label, g, suffix) for g in groups]
        columns = 3
        rows = -(-len(panels) // columns) or 1
        figure, axes = plt.subplots(rows, columns, figsize=(15, 4.2 * rows), dpi=100, squeeze=False)
        for ax, (label, group, suffix) in zip(axes.flat, panels, strict=False):
            n = 0
            for mode, curve in curves.items():
                entry = curve.get(label, {}).get(group) or {"n": 0, "values": []}
                n = max(n, entry["n"])
                values = entry["values"] or [None] * len(curve["k"])
                ax.plot(curve["k"], values, label=mode, linestyle=_style(mode, content), linewidth=1.8)
            _curve_axes(ax, f"{group}{suffix}, n = {n}", metric)
        for ax in list(axes.flat)[len(panels) :]:
            ax.axis("off")
        handles, labels = axes[0][0].get_legend_handles_labels()
        figure.legend(handles, labels, title="system", loc="center right")
        figure.suptitle(f"{title}: {metric} by {stratum.replace('_', ' ')}")
        figure.tight_layout(rect=(0, 0, 0.9, 1))
        safe = re.sub(r"[^A-Za-z0-9_-]+", "_", str(stratum))  # a stratum name from data never leaves `out`
        paths.append(_save(figure, out / f"recall_curve_by_{safe}.png", plt))
    return paths


def _style(mode: str, content: dict) -> str:
    """Solid, dashed, dotted ... by system position, so overlapping curves stay visible."""
    return ("-", "--", ":", "-.")[content["system_order"].index(mode) % 4]


def _curve_axes(ax, title: str, metric: str) -> None:
    """Shared labels and limits for recall@k curves."""
    ax.set_title(title)
    ax.set_xlabel("k (documents retrieved)")
    ax.set_ylabel(f"{metric} ({'every' if metric.startswith('recall_all') else 'any'} gold in top k)")
    ax.set_ylim(0, 1.02)
    ax.grid(alpha=0.3)


def _save(figure, path: Path, plt) -> Path:
    """Write a PNG (atomically) without timestamp or software metadata, then close the figure."""
    import io

    from memrecall.io import atomic_write_bytes

    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", metadata=PNG_METADATA)
    plt.close(figure)
    atomic_write_bytes(path, buffer.getvalue())
    return path
