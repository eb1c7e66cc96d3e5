"""What a gate guards: a metric on a stratum with a margin, from options or a small TOML file, strictly checked."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from memrecall.data.model import Task
from memrecall.errors import UsageError, short
from memrecall.scoring.metrics import parse_metric

OVERALL = "overall"
TOML_LIMIT = 64 * 1024  # bytes: a guard file is a handful of lines
TOP_KEYS = frozenset({"guard", "sample", "seed"})
GUARD_KEYS = frozenset({"metric", "stratum", "margin"})


@dataclass(frozen=True)
class Guard:
    """One guarded metric on one stratum (`overall`, or key=value pairs joined by commas) and its margin."""

    metric: str
    stratum: str
    margin: float

    @property
    def conditions(self) -> tuple[tuple[str, str], ...]:
        """The stratum as (key, value) pairs; none for overall."""
        return parse_stratum(self.stratum)

    def label(self) -> str:
        """`recall@3 on probe_type=reflective_implicit`."""
        return f"{self.metric} on {self.stratum}"


@dataclass(frozen=True)
class GateSettings:
    """The guards and the optional stratified sample (size and seed)."""

    guards: tuple[Guard, ...]
    sample: int | None = None
    seed: int = 0


def parse_stratum(text: str) -> tuple[tuple[str, str], ...]:
    """`overall` -> (); `probe_type=reflective_implicit,intensity_band=high` -> its pairs; UsageError otherwise."""
    text = text.strip()
    if text == OVERALL:
        return ()
    pairs = []
    for part in text.split(","):
        key, sign, value = part.partition("=")
        if not sign or not key.strip() or not value.strip():
            raise UsageError(f"stratum {short(repr(text))}: expected overall or KEY=VALUE[,KEY=VALUE]")
        pairs.append((key.strip(), value.strip()))
    return tuple(pairs)


def margin_value(value: object, where: str) -> float:
    """A margin: a number above 0 and below 1; UsageError naming `where` otherwise."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        try:
            value = float(str(value)) if isinstance(value, str) else None
        except ValueError:
            value = None
        if value is None:
            raise UsageError(f"{where}: the margin must be a number between 0 and 1")
    value = float(value)
    if not math.isfinite(value) or not 0.0 < value < 1.0:
        raise UsageError(f"{where}: the margin must be a number between 0 and 1, got {value:g}")
    return value


def metric_name(value: object, where: str) -> str:
    """A metric's canonical name; UsageError naming `where` and the known metrics otherwise."""
    if not isinstance(value, str):
        raise UsageError(f"{where}: the metric must be a name such as recall@3")
    try:
        return parse_metric(value).name
    except ValueError as exc:
        raise UsageError(f"{where}: {exc}") from None


def guards_from_options(metrics: tuple[str, ...], strata: tuple[str, ...], margin: object) -> tuple[Guard, ...]:
    """Every --metric on every --stratum (overall when none), each with the one --margin."""
    value = margin_value(margin, "--margin")
    names = [metric_name(m, "--metric") for m in metrics]
    for stratum in strata:
        parse_stratum(stratum)
    return tuple(Guard(m, s.strip(), value) for m in names for s in (strata or (OVERALL,)))


def read_gate_toml(path: Path) -> GateSettings:
    """Guards, sample and seed from a TOML file; an unknown key, metric or a bad margin is one line naming it."""
    import tomllib

    from memrecall.data.jsonfile import read_regular_text

    if Path(path).stat().st_size > TOML_LIMIT:
        raise UsageError(f"{path}: larger than {TOML_LIMIT // 1024} KB; a guard file is a few lines")
    try:
        table = tomllib.loads(read_regular_text(path))
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"{path}: not TOML ({exc})") from None
    unknown = sorted(set(table) - TOP_KEYS)
    if unknown:
        raise UsageError(f"{path}: unknown key {short(unknown[0])!r}; a gate file holds {', '.join(sorted(TOP_KEYS))}")
    entries = table.get("guard")
    if not isinstance(entries, list) or not entries or not all(isinstance(e, dict) for e in entries):
        raise UsageError(f"{path}: no [[guard]] tables (each with metric, margin and optionally stratum)")
    guards = []
    for number, entry in enumerate(entries, start=1):
        where = f"{path}: guard {number}"
        extra = sorted(set(entry) - GUARD_KEYS)
        if extra:
            raise UsageError(f"{where}: unknown key {short(extra[0])!r}; a guard holds metric, stratum and margin")
        if "metric" not in entry or "margin" not in entry:
            raise UsageError(f"{where}: needs metric and margin")
        stratum = entry.get("stratum", OVERALL)
        if not isinstance(stratum, str):
            raise UsageError(f"{where}: stratum must be a string such as probe_type=reflective_implicit")
        parse_stratum(stratum)
        guards.append(Guard(metric_name(entry["metric"], where), stratum.strip(), margin_value(entry["margin"], where)))
    sample, seed = table.get("sample"), table.get("seed", 0)
    for key, value, low in (("sample", sample, 1), ("seed", seed, 0)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < low):
            raise UsageError(f"{path}: {key} must be a whole number from {low}")
    return GateSettings(tuple(guards), sample, seed)


def check_strata(guards: tuple[Guard, ...], task: Task, headline: list) -> None:
    """UsageError naming a guard whose stratum key or value no headline query of the task has."""
    for guard in guards:
        for key, value in guard.conditions:
            values = sorted({q.strata[key] for q in headline if key in q.strata})
            if not values:
                known = sorted({k for q in headline for k in q.strata})
                known = ", ".join(known)
                raise UsageError(f"{guard.label()}: no stratum {short(key)!r} in {task.name}; known: {known}")
            if value not in values:
                known = ", ".join(values)
                raise UsageError(f"{guard.label()}: no {key} {short(value)!r} in {task.name}; known: {known}")


def gate_settings(guards: object, sample: int | None, seed: int | None) -> GateSettings:
    """Settings from a TOML path or a list of Guards or (metric, stratum, margin) tuples; `sample`/`seed` override."""
    if isinstance(guards, (str, Path)):
        settings = read_gate_toml(Path(guards))
    else:
        items = []
        for number, item in enumerate(guards or (), start=1):
            if isinstance(item, Guard):
                item = (item.metric, item.stratum, item.margin)
            if not isinstance(item, (tuple, list)) or len(item) != 3 or not isinstance(item[1], str):
                raise UsageError(f"guard {number}: expected a Guard or (metric, stratum, margin)")
            parse_stratum(item[1])
            where = f"guard {number}"
            items.append(Guard(metric_name(item[0], where), item[1].strip(), margin_value(item[2], where)))
        settings = GateSettings(tuple(items))
    if not settings.guards:
        raise UsageError("no guards: give at least one metric with its margin (--metric and --margin, or --config)")
    for key, value, low in (("sample", sample, 1), ("seed", seed, 0)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < low):
            raise UsageError(f"{key} must be a whole number from {low}")
    return GateSettings(
        settings.guards,
        sample if sample is not None else settings.sample,
        seed if seed is not None else settings.seed,
    )
