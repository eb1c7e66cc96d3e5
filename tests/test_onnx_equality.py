"""onnx fp32 against torch: every EpiRec v2 vector within cosine 0.99999, and the same dense rankings."""

from pathlib import Path

import numpy as np
import pytest
from conftest import LOCOMO_MISSING, SHARED_DATA

from memrecall.benchmarks import get_benchmark
from memrecall.data.model import Task
from memrecall.encoding.backends import EncoderBackend
from memrecall.encoding.embeddings import Encoder, resolve_model
from memrecall.running.agreement import dense_rankings, untied_differences

ROOT = Path(__file__).resolve().parents[1]
LOCOMO = SHARED_DATA / "locomo10.json"


@pytest.fixture(scope="module")
def encoders(embedding_cache, onnx_cache):
    """The torch encoder (shared test cache) and the onnx fp32 one (cache holding the exports)."""
    source = resolve_model()
    return Encoder(source, embedding_cache), Encoder(source, onnx_cache, backend=EncoderBackend("onnx", "fp32"))


def texts_of(task: Task) -> list[str]:
    """Every document and query text of a task, once, sorted."""
    return sorted({d.text for store in task.stores.values() for d in store} | {q.text for q in task.queries})


@pytest.mark.slow
def test_every_epirec_v2_vector_is_within_cosine_0_99999_of_torch(encoders):
    task = get_benchmark("epirec").load(ROOT / "data" / "epirec_v2.json").task
    texts = texts_of(task)
    torch_vectors, onnx_vectors = (encoder.encode(texts) for encoder in encoders)
    cosines = (torch_vectors * onnx_vectors).sum(axis=1)
    assert len(texts) == len(cosines) > 600
    assert np.all(np.abs(np.linalg.norm(onnx_vectors, axis=1) - 1.0) < 1e-5)
    worst = int(np.argmin(cosines))
    assert cosines[worst] >= 0.99999, f"cosine {cosines[worst]:.7f} for {texts[worst][:80]!r}"


def assert_same_rankings(encoders, task: Task, policy: str) -> None:
    """Identical rankings, or differences that are all ties."""
    torch_runs, onnx_runs = (dense_rankings(encoder, task, policy) for encoder in encoders)
    assert set(torch_runs) == set(onnx_runs) == {q.id for q in task.queries}
    different, untied = untied_differences(torch_runs, onnx_runs)
    assert untied == [], f"{different} queries rank differently, {len(untied)} not by ties: {untied[:5]}"


@pytest.mark.parametrize("release", ["epirec_v2.json", "epirec_v1.json"])
@pytest.mark.slow
def test_dense_rankings_on_epirec_are_the_same_as_torch(encoders, release):
    benchmark = get_benchmark("epirec")
    assert_same_rankings(encoders, benchmark.load(ROOT / "data" / release).task, benchmark.dense_policy)


def first_conversations(task: Task, count: int) -> Task:
    """The task cut to its first `count` stores (LoCoMo conversations) and their queries."""
    keep = list(task.stores)[:count]
    queries = tuple(q for q in task.queries if q.store_id in keep)
    return Task(task.name, task.version, task.source_sha256, {s: task.stores[s] for s in keep}, queries)


@pytest.mark.skipif(not LOCOMO.exists(), reason=LOCOMO_MISSING)
@pytest.mark.parametrize(("granularity", "conversations"), [("session", 3), ("turn", 2)])
@pytest.mark.slow
def test_dense_rankings_on_locomo_are_the_same_as_torch(encoders, granularity, conversations):
    benchmark = get_benchmark("locomo" if granularity == "session" else "locomo-turn")
    task = first_conversations(benchmark.load(LOCOMO).task, conversations)
    assert len(task.stores) == conversations
    assert_same_rankings(encoders, task, benchmark.dense_policy)


def test_a_swap_of_clearly_different_scores_is_not_a_tie():
    from memrecall.data.model import Ranking

    reference = {"q": Ranking("q", ("a", "b", "c"), (0.9, 0.5, 0.4999999))}
    assert untied_differences(reference, {"q": Ranking("q", ("a", "c", "b"), (0.9, 0.5, 0.5))}) == (1, [])
    assert untied_differences(reference, {"q": Ranking("q", ("b", "a", "c"), (0.9, 0.5, 0.4))}) == (1, ["q"])
    assert untied_differences(reference, reference) == (0, [])
