"""The rank a benchmark's rankings are scored down to, and the cut-offs of metric names."""

from __future__ import annotations

from collections.abc import Sequence

from memrecall.data.model import Ranking
from memrecall.scoring.metrics import parse_metric


def cut_offs(names: Sequence[str]) -> list[int]:
    """The cut-offs k of the named metrics that have one (map@10 -> 10; map -> none)."""
    return [k for k in (parse_metric(n).k for n in names) if k is not None]


def scoring_depth(metrics: Sequence[str], require_full: bool) -> int | None:
    """The rank a benchmark's metrics without a cut-off (mrr, map, r_precision) read down to.

    It is the deepest cut-off of the benchmark's own metrics, unless the benchmark requires full rankings.
    One depth for every system of a benchmark makes mrr and map mean the same on every row: a store that
    returns a top-k prefix and a system that ranks the whole store are both read down to the same rank.
    Metrics with a cut-off read their own k, and --metrics never moves the depth.
    """
    return None if require_full else max(cut_offs(metrics), default=None)


def check_measurable(metrics: Sequence[str], depth: int | None, benchmark: str) -> None:
    """Refuse a full-depth metric (mrr, map, r_precision: no cut-off) where rankings are scored to `depth`.

    Such a value read from rankings cut at the depth is not what ir_measures and trec_eval mean by the name
    (AP and RR over the whole ranking, Rprec at R): it is refused, never silently cut. Ask for mrr@k or map@k.
    """
    if depth is None:
        return
    full = [name for name in metrics if parse_metric(name).k is None]
    if full:
        from memrecall.errors import ConfigError

        cut = ", ".join(f"{n}@{depth}" for n in full if n != "r_precision") or "a metric with a cut-off"
        raise ConfigError(
            f"{', '.join(full)}: not measurable on {benchmark}, whose rankings are scored to depth {depth} "
            f"(a store answers with its top {depth}); {full[0]} without a depth means the whole ranking, as in "
            f"trec_eval; ask for {cut}"
        )


def at_depth(ranking: Ranking, depth: int | None) -> Ranking:
    """The ranking cut to its first `depth` ids (itself when it is no longer, or depth is None)."""
    if depth is None or len(ranking.doc_ids) <= depth:
        return ranking
    return Ranking(ranking.query_id, ranking.doc_ids[:depth], ranking.scores[:depth])
