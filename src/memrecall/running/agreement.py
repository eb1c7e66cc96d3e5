"""Whether two encoders rank alike: the queries ranked differently, and those not explained by ties."""

from __future__ import annotations

from collections.abc import Mapping

from memrecall.data.model import Ranking, Task
from memrecall.encoding.embeddings import Encoder

TIE = 1e-5  # two reference scores this close are a tie that either backend's float noise may order either way


def untied_differences(reference: Mapping[str, Ranking], other: Mapping[str, Ranking]) -> tuple[int, list[str]]:
    """How many queries rank differently, and the ids of those where a swapped pair is not a tie in `reference`."""
    different, untied = 0, []
    for query_id, ranking in reference.items():
        candidate = other[query_id]
        if candidate.doc_ids == ranking.doc_ids:
            continue
        different += 1
        scores = dict(zip(ranking.doc_ids, ranking.scores, strict=True))
        swapped = [(a, b) for a, b in zip(ranking.doc_ids, candidate.doc_ids, strict=True) if a != b]
        if any(abs(scores[a] - scores[b]) > TIE for a, b in swapped):
            untied.append(query_id)
    return different, untied


def dense_rankings(encoder: Encoder, task: Task, policy: str) -> dict[str, Ranking]:
    """The built-in dense system's rankings of a task through the pipeline, with `encoder`."""
    from memrecall.running.pipeline import rank_task
    from memrecall.systems.contract import adapt
    from memrecall.systems.registry import SystemContext, build_builtin

    system = adapt(build_builtin("dense", SystemContext(lambda: encoder, policy)), "dense")
    return rank_task(system, task, True).rankings
