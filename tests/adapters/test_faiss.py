"""FAISS adapters: flat is exact cosine (dense's rankings), HNSW is counted against it; offline, deterministic."""

from __future__ import annotations

import pytest

pytest.importorskip("faiss", reason="faiss-cpu is not installed (pip install 'memrecall[faiss]')")

import crosscheck as cc  # noqa: E402
import vector_cases as vc  # noqa: E402

from memrecall.systems.adapters.faiss import FaissFlatAdapter, FaissHnswAdapter  # noqa: E402


@pytest.mark.parametrize("adapter_class", [FaissFlatAdapter, FaissHnswAdapter])
@pytest.mark.slow
def test_tiny_task_ranks_every_document_the_same_way_twice(adapter_class):
    vc.check_tiny(adapter_class())


@pytest.mark.parametrize("adapter_class", [FaissFlatAdapter, FaissHnswAdapter])
def test_missing_faiss_names_the_extra(monkeypatch, adapter_class):
    vc.check_missing_stack(monkeypatch, adapter_class(), "faiss", "faiss")


def test_config_states_index_settings():
    assert vc.check_config(FaissFlatAdapter(), "faiss-cpu")["index"] == "IndexFlatIP"
    config = vc.check_config(FaissHnswAdapter(), "faiss-cpu")
    assert (config["index"], config["M"], config["efConstruction"], config["efSearch"]) == ("IndexHNSWFlat", 32, 40, 16)


@pytest.mark.slow
def test_flat_on_the_same_vectors_as_dense_gives_dense_rankings(tmp_path):
    """Fed dense's own vectors, IndexFlatIP reproduces every EpiRec v2 ranking of dense exactly."""
    import faiss
    import numpy as np

    from memrecall.data.releases import bundled_release
    from memrecall.encoding.embeddings import Encoder, resolve_model
    from memrecall.systems.builtin.dense import DenseRetriever

    task = cc.load_task("epirec", bundled_release("epirec_v2.json"))
    dense = DenseRetriever(Encoder(resolve_model(None), tmp_path, device="cpu"))
    dense.prepare(task)
    faiss.omp_set_num_threads(1)
    same = 0
    for store_id, queries in cc.by_store(task).items():
        store = task.stores[store_id]
        dense.index(store)
        index = faiss.IndexFlatIP(dense._matrix.shape[1])
        index.add(dense._matrix)
        vectors = np.stack([dense.vector("query", q.text) for q in queries])
        _, rows = index.search(vectors, len(store))
        for q, row in zip(queries, rows, strict=True):
            same += [store[i].id for i in row] == list(dense.rank(q).doc_ids)
    assert same == len(task.queries) == 504
