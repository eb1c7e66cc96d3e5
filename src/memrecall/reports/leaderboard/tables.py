"""The leaderboard's tables: one per benchmark and version, rows apart by comparability and oracle, and each
row's paired test against the best row (sign-flip randomisation on per-query values, Holm-adjusted) and the
smallest difference from it the queries can detect (reports/power.py)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from memrecall.benchmarks import BENCHMARKS
from memrecall.errors import DatasetError
from memrecall.io import canonical_json
from memrecall.progress import progress_bar
from memrecall.reports.comparability import conditions, mismatches
from memrecall.reports.leaderboard.entries import Entry
from memrecall.reports.notes import trivial_text
from memrecall.reports.power import ALPHA, POWER, paired_power
from memrecall.scoring.metrics import group_rng
from memrecall.scoring.paired import PERMUTATIONS, holm_adjust, randomisation_p

DENSE_ROW = "dense"  # the plain-cosine baseline on MiniLM: every other comparable row is also tested against it
SEED = 0
TITLES = {
    "epirec": "EpiRec {version}, by probe type",
    "locomo": "LoCoMo, session documents",
    "locomo-turn": "LoCoMo, turn documents",
    "longmemeval": "LongMemEval, Perseus protocol",
    "longmemeval-official": "LongMemEval, official protocol",
    "beir": "BEIR",
    "realtalk": "REALTALK, session documents",
    "realtalk-turn": "REALTALK, turn documents",
    "locomo-plus": "Locomo-Plus, one cue per store, session documents",
    "locomo-plus-turn": "Locomo-Plus, one cue per store, turn documents",
    "locomo-plus-all": "Locomo-Plus, a conversation's cues together, session documents",
    "locomo-plus-all-turn": "Locomo-Plus, a conversation's cues together, turn documents",
    "beam": "BEAM-128K, message documents",
    "beam-pairs": "BEAM-128K, user and assistant turn pairs",
}
# metrics a table leads with before its benchmark's headline: LongMemEval's recall@10 is near 1.0 for today's
# systems (docs/longmemeval.md), so recall@1 and MRR@10 are what can still separate them
LEADING_METRICS = {"longmemeval": ("recall@1", "mrr@10")}

# EpiRec's probe types in plain words (GENERATION_SPEC.md): both reflective types are emotional resurfacing
GROUP_CAPTIONS = {
    "factual": "factual lookup",
    "reflective_explicit": "emotional resurfacing, feeling named",
    "reflective_implicit": "emotional resurfacing, feeling unnamed",
}
GROUPS_SENTENCE = (
    "factual probes ask for a concrete detail of a past episode; both reflective types are emotional resurfacing, "
    "a first-person reflection that points at the episode through how it felt: reflective_explicit names the "
    "feeling, reflective_implicit only conveys it, with no feeling word and no word of the episode's own"
)


DETECTABLE_NOTE = (
    "detectable Δ: the smallest paired difference from the best row of its column that this many queries detect "
    "(two-sided, McNemar's paired-proportions formula at the pair's observed discordance, Connor 1987, for hit "
    "metrics; a seeded paired bootstrap sd otherwise); a smaller gap is one this benchmark cannot tell from "
    "noise; - means the two rows disagree on too few queries for any difference to be detectable. "
    "memrecall power gives it for any pair."
)


@dataclass
class Versus:
    """A row against a reference row of one group (its best, or dense): whether it is that row, its Holm-adjusted p,
    the smallest paired difference its queries detect at ALPHA with POWER (None: none) and its mean difference."""

    best: bool
    p_holm: float | None = None
    detectable: float | None = None
    difference: float | None = None

    @property
    def separable(self) -> bool:
        """True when the Holm-adjusted p is below 0.05."""
        return self.p_holm is not None and self.p_holm < ALPHA


@dataclass
class Table:
    """One benchmark and version: comparable rows (ranked), rows apart with the manifest fields that differ,
    oracle rows, and each comparable row's test against the best and against `dense`."""

    slug: str
    title: str
    benchmark: str
    groups: list[str]
    metrics: list[str]
    primary: str
    rows: list[Entry] = field(default_factory=list)
    apart: list[tuple[Entry, list[str]]] = field(default_factory=list)
    oracle: list[Entry] = field(default_factory=list)
    versus: dict[tuple[str, str], Versus] = field(default_factory=dict)
    against_dense: dict[tuple[str, str], Versus] = field(default_factory=dict)

    @property
    def leading(self) -> list[str]:
        """Metrics the page shows in a column of their own after the primary one (LEADING_METRICS; a table of one
        group only: an EpiRec table's columns are its probe types)."""
        if self.groups != ["overall"]:
            return []
        return [m for m in LEADING_METRICS.get(self.benchmark, ()) if m != self.primary]

    def row(self, entry: Entry, group: str) -> dict:
        """The results row of a group (overall, or a primary-stratum group), or {}."""
        results = entry.results
        row = (
            results.get("overall")
            if group == "overall"
            else results.get(f"by_{entry.content['primary_stratum']}", {}).get(group)
        )
        return row or {}

    def cell(self, entry: Entry, group: str, metric: str) -> dict | None:
        """{value, ci_low, ci_high} of a metric in a group, or None."""
        return self.row(entry, group).get(metric)

    def trivial(self, entry: Entry, group: str, metric: str) -> str:
        """The cell's trivial cut-off in words (see reports.notes.trivial_text), or ""."""
        return trivial_text(self.cell(entry, group, metric), self.row(entry, group).get("n"))


def table_key(entry: Entry) -> tuple[int, str, str]:
    """(benchmark order, version descending, task name): the order tables appear in."""
    task = entry.content["task"]
    order = list(BENCHMARKS).index(entry.content["benchmark"])
    inverted = "".join(chr(0x10FFFF - ord(c)) for c in str(task["version"]))
    return order, inverted, str(task["name"])


def build_tables(entries: Sequence[Entry], show_progress: bool = False) -> list[Table]:
    """The tables of a set of entries, in table_key order; two entries naming one system in one table is an error."""
    by_key: dict[tuple, list[Entry]] = {}
    for entry in entries:
        by_key.setdefault(table_key(entry), []).append(entry)
    tables = []
    with progress_bar(len(by_key), "leaderboard: testing rows", show_progress, unit="table") as bar:
        for key in sorted(by_key):
            members = by_key[key]
            seen: dict[str, Entry] = {}
            for entry in members:
                if entry.row in seen:
                    raise DatasetError(
                        str(entry.report_path), "", f"row {entry.row!r} is also in {seen[entry.row].report_path}"
                    )
                seen[entry.row] = entry
            tables.append(_table(members))
            bar.update(1)
    return tables


def slug(text: str) -> str:
    """Lower-case letters, digits and dashes only."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "x"


def _table(members: list[Entry]) -> Table:
    """A table from its entries: oracle rows apart, then rows measured under other conditions than the reference.

    The encoder is part of every manifest but not a condition (comparability.SUBJECT): rows of different encoders
    share a table, so it ranks encoders as it ranks systems.
    """
    first = members[0].content
    version = str(first["task"]["version"])
    stratum = first.get("primary_stratum")
    grouped = first["benchmark"] == "epirec"
    groups = sorted({g for e in members for g in e.results.get(f"by_{stratum}", {})}) if grouped else ["overall"]
    table = Table(
        slug=slug(f"{first['benchmark']}-{version}"),
        title=TITLES[first["benchmark"]].format(version=version),
        benchmark=first["benchmark"],
        groups=groups,
        metrics=list(dict.fromkeys([*LEADING_METRICS.get(first["benchmark"], ()), *first["headline_metrics"]])),
        primary=first["primary_metric"],
    )
    ordinary = [e for e in members if not e.oracle]
    table.oracle = _ranked(table, [e for e in members if e.oracle])
    reference = reference_manifest(ordinary)
    comparable = []
    for entry in ordinary:
        fields = [name for name, _, _ in mismatches(conditions(entry.content["comparability"]), conditions(reference))]
        (table.apart.append((entry, fields)) if fields else comparable.append(entry))
    table.apart.sort(key=lambda item: item[0].row)
    table.rows = _ranked(table, comparable)
    for group in groups:
        table.versus.update(_against_best(table, group))
        table.against_dense.update(_against_dense(table, group))
    return table


def reference_manifest(entries: Sequence[Entry]) -> dict:
    """The conditions most entries share (comparability.conditions; ties: the smallest canonical JSON); {} for none."""
    if not entries:
        return {}
    counts = Counter(canonical_json(conditions(e.content["comparability"])) for e in entries)
    best = min(counts, key=lambda text: (-counts[text], text))
    return next(
        conditions(e.content["comparability"])
        for e in entries
        if canonical_json(conditions(e.content["comparability"])) == best
    )


def _value(table: Table, entry: Entry, group: str) -> float:
    cell = table.cell(entry, group, table.primary)
    return cell["value"] if cell else float("-inf")


def ranking_groups(table: Table, entries: Sequence[Entry]) -> list[str]:
    """The table's groups, hardest first: by the mean primary value over the entries, ascending; ties by name."""

    def mean(group: str) -> float:
        values = [c["value"] for e in entries if (c := table.cell(e, group, table.primary)) is not None]
        return sum(values) / len(values) if values else float("inf")

    return sorted(table.groups, key=lambda g: (mean(g), g))


def _ranked(table: Table, entries: list[Entry]) -> list[Entry]:
    """Best first on the primary metric of the hardest group, then of the next hardest; ties by system name."""
    order = ranking_groups(table, entries)
    return sorted(entries, key=lambda e: (*(-_value(table, e, g) for g in order), e.row))


def _values(entry: Entry, group: str, metric: str) -> dict[str, float]:
    """Per-query values of a metric in a group, by query id."""
    return {
        r["query_id"]: float(r["values"][metric])
        for r in entry.scores
        if group == "overall" or str(r.get("group")) == group
    }


def _paired(table: Table, base: Entry, others: Sequence[Entry], group: str, label: str, power: bool) -> list[Versus]:
    """Each of `others` minus `base` on the primary metric, paired by query: Holm-adjusted p across `others`,
    and (with `power`) the smallest paired difference its queries detect."""
    reference = _values(base, group, table.primary)
    p_values, detectable, means = [], [], []
    for entry in others:
        mine = _values(entry, group, table.primary)
        if set(mine) != set(reference):
            raise DatasetError(str(entry.report_path), "", f"its scored queries differ from {base.report_path}'s")
        ids = sorted(reference)
        diff = np.array([mine[q] - reference[q] for q in ids], dtype=np.float64)
        rng = group_rng(SEED, f"{label}:{table.slug}:{group}:{entry.row}")
        p_values.append(randomisation_p(diff, rng, PERMUTATIONS, base.clusters(ids)))
        means.append(float(diff.mean()))
        values = [np.array([scores[q] for q in ids], dtype=np.float64) for scores in (mine, reference)]
        where = f"leaderboard-power:{table.slug}:{group}:{entry.row}"
        found = paired_power(table.primary, *values, ALPHA, POWER, seed=SEED, label=where) if power else None
        detectable.append(None if found is None else found.detectable)
    tested = zip(holm_adjust(p_values), detectable, means, strict=True)
    return [Versus(False, adjusted, smallest, mean) for adjusted, smallest, mean in tested]


def _against_best(table: Table, group: str) -> dict[tuple[str, str], Versus]:
    """Each comparable row minus the group's best row, paired by query; Holm across the rows of the group."""
    if not table.rows:
        return {}
    best = min(table.rows, key=lambda e: (-_value(table, e, group), e.row))
    others = [e for e in table.rows if e is not best]
    out = {(best.row, group): Versus(True)}
    out.update(
        {
            (e.row, group): v
            for e, v in zip(others, _paired(table, best, others, group, "leaderboard", True), strict=True)
        }
    )
    return out


def _against_dense(table: Table, group: str) -> dict[tuple[str, str], Versus]:
    """Each other comparable row minus `dense` (MiniLM), paired by query; Holm across those rows; {} without dense."""
    dense = next((e for e in table.rows if e.row == DENSE_ROW), None)
    if dense is None:
        return {}
    others = [e for e in table.rows if e is not dense]
    tested = _paired(table, dense, others, group, "leaderboard-dense", False)
    return {(e.row, group): v for e, v in zip(others, tested, strict=True)}
