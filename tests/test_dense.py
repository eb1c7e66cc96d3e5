import numpy as np
import pytest
from conftest import doc, query

from memrecall.data.model import Task
from memrecall.encoding.embeddings import HUB_MODEL, MODEL_ENV, Encoder, resolve_model, weights_sha256
from memrecall.systems.builtin.dense import DenseRetriever


def test_model_resolution_order(monkeypatch, tmp_path):
    monkeypatch.delenv(MODEL_ENV, raising=False)
    packaged = resolve_model()
    assert (packaged.model_id, packaged.origin) == (HUB_MODEL, "package")
    monkeypatch.setenv(MODEL_ENV, str(tmp_path))
    assert resolve_model().origin == "environment"
    assert resolve_model().location == str(tmp_path.resolve())
    explicit = resolve_model("some/hub-name")
    assert (explicit.model_id, explicit.origin) == ("some/hub-name", "option")


def test_weights_sha256_covers_weight_files_only(tmp_path):
    assert weights_sha256(str(tmp_path)) is None
    (tmp_path / "config.json").write_text("{}")
    (tmp_path / "model.safetensors").write_bytes(b"abc")
    first = weights_sha256(str(tmp_path))
    (tmp_path / "config.json").write_text('{"x": 1}')
    assert weights_sha256(str(tmp_path)) == first
    (tmp_path / "model.safetensors").write_bytes(b"abd")
    assert weights_sha256(str(tmp_path)) != first


@pytest.fixture(scope="module")
def encoder(embedding_cache):
    return Encoder(resolve_model(), embedding_cache)


def test_encoder_vectors_are_normalised_and_cached_on_disk(encoder, embedding_cache):
    texts = ["A dog chased the ball.", "Quarterly tax forms.", "A dog chased the ball."]
    vectors = encoder.encode(texts)
    assert vectors.shape == (3, 384)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert np.array_equal(vectors[0], vectors[2])
    again = Encoder(resolve_model(), embedding_cache)
    assert np.array_equal(again.encode(texts[:2]), vectors[:2])
    assert again.encoded_count == 0
    assert len(encoder.weights_sha256) == 64


def test_dense_prepare_encodes_the_task_once_and_ranks_by_meaning(encoder):
    store = (doc("pet", "My puppy learned to fetch a stick in the park."), doc("tax", "I filed the tax return."))
    task = Task("t", "1", "0" * 64, {"s": store}, (query("the young dog playing outside", ("pet",)),))
    retriever = DenseRetriever(encoder)
    retriever.prepare(task)
    retriever.index(store)
    ranking = retriever.rank(task.queries[0])
    assert ranking.doc_ids == ("pet", "tax")
    assert ranking.scores[0] > ranking.scores[1]
    assert retriever.config()["model"]["id"] == HUB_MODEL
