"""Cost beside quality: every run records index time, per-query latency and peak memory in env, never in content."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import MINI_RELEASE, doc, query

from memrecall.api import run_system
from memrecall.data.model import Ranking
from memrecall.io import canonical_json
from memrecall.running.cost import PER_BATCH, PER_CALL, TimedSystem, percentile, run_cost
from memrecall.systems.contract import adapt


class Plain:
    """rank() only: every query is timed on its own."""

    name = "plain"

    def index(self, documents):
        self.ids = [d.id for d in documents]

    def rank(self, q):
        return list(self.ids)


class Batched(Plain):
    """rank_many(): the store's batch time is shared out over its queries."""

    name = "batched"

    def rank_many(self, queries):
        return [list(self.ids) for _ in queries]


@pytest.mark.parametrize("values", [[3.0], [1.0, 2.0], [5.0, 1.0, 4.0, 2.0, 3.0], list(np.linspace(0, 1, 37))])
@pytest.mark.parametrize("q", [0, 50, 95, 100])
def test_percentile_matches_numpy_linear(values, q):
    assert percentile(values, q) == pytest.approx(float(np.percentile(values, q)), abs=1e-15)


def test_percentile_of_nothing_is_zero():
    assert percentile([], 50) == 0.0


@pytest.mark.parametrize(("system", "basis"), [(Plain(), PER_CALL), (Batched(), PER_BATCH)])
def test_timed_system_answers_carry_one_latency_per_query(system, basis):
    timed = TimedSystem(adapt(system))
    timed.index([doc("a", "x"), doc("b", "y")])
    answers = timed.rank_many([query("x", query_id="q1"), query("y", query_id="q2"), query("z", query_id="q3")])
    assert list(answers) == [["a", "b"]] * 3
    assert len(answers.query_seconds) == 3 and all(s >= 0 for s in answers.query_seconds)
    assert answers.basis == basis and answers.index_seconds >= 0
    cost = run_cost({"s": answers}, 0.5, 2.0)
    assert cost["queries"] == 3 and cost["prepare_seconds"] == 0.5 and cost["total_seconds"] == 2.0
    assert cost["latency_basis"] == basis
    assert cost["query_latency_ms"]["p50"] <= cost["query_latency_ms"]["p95"]
    assert cost["peak_rss_mib"] > 1


def test_timed_system_keeps_the_plug_in_visible_for_ray_shipping():
    system = Plain()
    assert TimedSystem(adapt(system)).system is system


def test_run_records_cost_in_env_only_and_the_fingerprint_does_not_move():
    result = run_system(Plain(), "epirec", data=MINI_RELEASE, resamples=200)
    cost = result.report["env"]["cost"]["plain"]
    assert cost["queries"] == result.report["content"]["task"]["queries"]
    assert set(cost) == {
        "prepare_seconds",
        "index_seconds",
        "queries",
        "query_latency_ms",
        "latency_basis",
        "total_seconds",
        "peak_rss_mib",
        "peak_rss_scope",
    }
    again = run_system(Plain(), "epirec", data=MINI_RELEASE, resamples=200)
    assert again.report["content_sha256"] == result.report["content_sha256"]
    text = canonical_json(result.report["content"])
    assert "latency" not in text and "peak_rss" not in text and "index_seconds" not in text
    assert all(isinstance(r, Ranking) for r in result.rankings["plain"].values())


def test_the_report_card_shows_cost(tmp_path):
    from memrecall.reports.cards.card import write_report_card

    result = run_system(Plain(), "epirec", data=MINI_RELEASE, resamples=200, name="a|b")
    write_report_card(result.report, tmp_path)
    card = (tmp_path / "README.md").read_text()
    assert "## Cost" in card and "| a\\|b | " in card
    assert "rank() timed per query" in card
