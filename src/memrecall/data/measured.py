"""The scored population without the queries a system's answers could not be mapped back on (not measurable)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from memrecall.data.model import Task
from memrecall.errors import ConfigError

KEY = "not_measurable"


def measured_view(task: Task, dataset: Mapping, unmeasured: Mapping[str, str] | None) -> tuple[Task, dict]:
    """The task without the `unmeasured` queries (id -> reason) and dataset facts that record them and their count.

    Such queries are outside the denominator, never scored as misses; with none, the task and facts are unchanged.
    """
    if not unmeasured:
        return task, dict(dataset)
    known = {query.id for query in task.queries}
    unknown = sorted(set(unmeasured) - known)
    if unknown:
        raise ConfigError(f"{KEY}: query {unknown[0]!r} is not a query of the task")
    kept = tuple(query for query in task.queries if query.id not in unmeasured)
    if not kept:
        raise ConfigError(f"{KEY}: no query of the task could be measured ({len(unmeasured)} of {len(known)})")
    queries = {key: unmeasured[key] for key in sorted(unmeasured)}
    facts = {"count": len(unmeasured), "of": len(known), "queries": queries}
    return replace(task, queries=kept), {**dataset, KEY: facts}


def recorded_unmeasured(dataset: Mapping) -> dict[str, str]:
    """The not-measurable queries (id -> reason) a report's dataset facts record; none when the key is absent."""
    facts = dataset.get(KEY) or {}
    return dict(facts.get("queries") or {})
