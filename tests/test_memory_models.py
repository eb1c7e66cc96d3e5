import numpy as np
import pytest
from conftest import MINI_RELEASE, query

from memrecall.data.loaders.epirec import load_epirec
from memrecall.data.model import Document
from memrecall.encoding.embeddings import Encoder, resolve_model
from memrecall.running.pipeline import rank_task
from memrecall.systems.builtin.affect import vader_intensity
from memrecall.systems.builtin.dense import DenseRetriever
from memrecall.systems.builtin.memory_models import (
    band_salience,
    build_memory_model,
    exponential_decay,
    fuse,
    gate_open,
    memory_model_config,
)
from memrecall.systems.contract import adapt


def test_decay_is_one_at_age_zero_and_half_at_one_half_life():
    assert exponential_decay(0.0, 30.0) == 1.0
    assert exponential_decay(30.0, 30.0) == 0.5
    assert exponential_decay(60.0, 30.0) == 0.25
    assert exponential_decay(-5.0, 30.0) == 1.0  # future-dated documents are not boosted above 1
    with pytest.raises(ValueError):
        exponential_decay(1.0, 0.0)


def test_fuse_is_a_convex_combination_and_weight_zero_is_identity():
    cosine, prior = np.array([0.2, 0.8]), np.array([1.0, 0.0])
    assert fuse(cosine, prior, 0.25).tolist() == pytest.approx([0.75 * 0.2 + 0.25, 0.75 * 0.8])
    assert fuse(cosine, prior, 0.0) is cosine


def test_gate_below_and_above_threshold():
    plain, charged = query("Bought bread and milk."), query("I was so happy and proud, it was wonderful!")
    assert vader_intensity(plain.text) == 0.0
    assert vader_intensity(charged.text) > 0.8
    assert not gate_open(plain, 0.3)
    assert gate_open(charged, 0.3)


def test_band_salience_reads_the_authored_band():
    values = memory_model_config()["salience-oracle"]["band_values"]
    assert band_salience({"a": {"intensity_band": "mild"}}, Document("a", "x"), values) == 0.5
    with pytest.raises(Exception, match="no intensity_band label"):
        band_salience({"a": {"intensity_band": "mild"}}, Document("b", "unlabelled"), values)


def test_committed_settings_are_the_preregistered_ones():
    config = memory_model_config()
    assert config["time-decay"]["half_life_days"] == 30.0
    assert {config[n]["weight"] for n in ("time-decay", "salience-oracle", "salience-vader", "gated")} == {0.25}
    assert config["gated"]["threshold"] == 0.3


@pytest.fixture(scope="module")
def mini_task_and_encoder(embedding_cache):
    return load_epirec(MINI_RELEASE), Encoder(resolve_model(), embedding_cache)


@pytest.mark.parametrize("name", ["time-decay", "salience-oracle", "salience-vader", "gated"])
@pytest.mark.slow
def test_weight_zero_ablation_equals_plain_dense_exactly(mini_task_and_encoder, name):
    task, encoder = mini_task_and_encoder
    dense = run_task(task, DenseRetriever(encoder))
    ablated = run_task(task, build_memory_model(name, DenseRetriever(encoder), weight=0.0))
    assert ablated == dense


def test_oracle_salience_lifts_high_band_episodes(mini_task_and_encoder):
    task, encoder = mini_task_and_encoder
    retriever = build_memory_model("salience-oracle", DenseRetriever(encoder), weight=0.9)
    rankings = run_task(task, retriever)
    # with nearly all weight on the band, both high episodes of t01 lead every t01 ranking
    assert set(rankings["t01e01-f"].doc_ids[:2]) == {"t01e02", "t01e03"}


def run_task(task, retriever):
    """Rankings of a built-in retriever over the task, through the one pipeline."""
    return rank_task(adapt(retriever), task, require_full=True).rankings


def test_vader_prior_scores_each_text_once_however_many_queries_ask(monkeypatch):
    import memrecall.systems.builtin.memory_models as models

    calls: list[str] = []
    monkeypatch.setattr(models, "vader_intensity", lambda text: calls.append(text) or float(len(text)))
    prior = models._vader_prior()
    store = [Document("a", "calm morning", None), Document("b", "a furious, awful night", None)]
    first = prior(store, query("how was it?", query_id="q1"))
    for n in range(2, 6):
        assert list(prior(store, query("how was it?", query_id=f"q{n}"))) == list(first)
    assert sorted(calls) == ["a furious, awful night", "calm morning"]
