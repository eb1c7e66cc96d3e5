"""Shared cases for the memory-stack adapter tests: a tiny store, the real EpiRec v2 task, dense cosines."""

from __future__ import annotations

from datetime import UTC, datetime
from functools import lru_cache
from types import SimpleNamespace

TINY = {
    "cat": "I adopted a cat named Milo last spring.",
    "hike": "We went hiking in the Alps and got caught in the rain.",
    "tuna": "Milo the cat only eats tuna for dinner.",
    "meeting": "The quarterly budget meeting moved to Tuesday afternoon.",
    "piano": "My sister practises the piano every evening.",
}
TIE_TOLERANCE = 1e-5  # cosines this close may swap between float32 paths (batched vs single encoding)


def tiny_documents() -> list[SimpleNamespace]:
    """Documents with only the public fields an adapter may read: id, text, timestamp."""
    return [
        SimpleNamespace(id=doc_id, text=text, timestamp=datetime(2025, 1, day, tzinfo=UTC))
        for day, (doc_id, text) in enumerate(TINY.items(), start=1)
    ]


def ask(text: str, query_id: str = "q") -> SimpleNamespace:
    """A query with only the public fields: id, store_id, text, time."""
    return SimpleNamespace(id=query_id, store_id="s", text=text, time=datetime(2025, 2, 1, tzinfo=UTC))


@lru_cache(maxsize=1)
def epirec_task():
    """The real EpiRec v2 release as a Task (named: the default `epirec` is v3)."""
    from memrecall.benchmarks import get_benchmark
    from memrecall.data.releases import bundled_release

    return get_benchmark("epirec").load(bundled_release("epirec_v2.json")).task


@lru_cache(maxsize=1)
def dense_cosines() -> dict[str, dict[str, float]]:
    """memrecall's dense built-in: cosine of every EpiRec v2 query against every document of its store."""
    import tempfile

    from memrecall.encoding.embeddings import Encoder, resolve_model
    from memrecall.systems.builtin.dense import DenseRetriever

    task = epirec_task()
    dense = DenseRetriever(Encoder(resolve_model(None), tempfile.mkdtemp(prefix="memrecall-dense-")))
    dense.prepare(task)
    cosines = {}
    for store_id, store in task.stores.items():
        dense.index(store)
        for query in (q for q in task.queries if q.store_id == store_id):
            cosines[query.id] = dict(zip([d.id for d in store], dense.similarities(query).tolist(), strict=True))
    return cosines


def run_on_epirec(adapter) -> dict[str, list[str]]:
    """The adapter's full ranking of every EpiRec v2 query, store by store."""
    task = epirec_task()
    rankings = {}
    for store_id, store in task.stores.items():
        adapter.index(store)
        for query in (q for q in task.queries if q.store_id == store_id):
            rankings[query.id] = list(adapter.rank(query))
    adapter.close()
    return rankings


def untied_differences(ranking: list[str], expected: list[str], scores: dict[str, float]) -> int:
    """Positions where two rankings differ by more than swaps of near-tied scores (TIE_TOLERANCE)."""
    return sum(
        1
        for got, want in zip(ranking, expected, strict=True)
        if got != want and abs(scores[got] - scores[want]) > TIE_TOLERANCE
    )


def documents(texts: dict[str, str]) -> list[SimpleNamespace]:
    """Documents with only the public fields, no timestamps."""
    return [SimpleNamespace(id=doc_id, text=text, timestamp=None) for doc_id, text in texts.items()]


def repo_files() -> set[str]:
    """The repository's files outside .git, .venv and bytecode caches."""
    import os
    from pathlib import Path

    repo = Path(__file__).resolve().parents[2]
    found = set()
    for root, dirs, names in os.walk(repo):
        dirs[:] = [d for d in dirs if d not in {".git", ".venv", "__pycache__"}]
        found.update(os.path.relpath(os.path.join(root, name), repo) for name in names)
    return found


def check_writes_only_its_folder(adapter, store, text: str, top: str | None, tmp_path, monkeypatch, env=()) -> None:
    """Index `store` and rank `text` (`top` first, unless None) with cwd, HOME and each `env` variable pointing at
    empty folders: none of them, nor the repository, gets a file, and all are as they were after."""
    import os

    folders = {name: tmp_path / name.lower() for name in ("cwd", "HOME", *env)}
    for folder in folders.values():
        folder.mkdir()
    monkeypatch.chdir(folders["cwd"])
    for name in ("HOME", *env):
        monkeypatch.setenv(name, str(folders[name]))
    before = repo_files()
    adapter.index(store)
    ranking = adapter.rank(ask(text))
    assert sorted(ranking) == sorted(d.id for d in store) and ranking[0] == (top or ranking[0])
    assert os.getcwd() == str(folders["cwd"]) and all(os.environ[n] == str(folders[n]) for n in ("HOME", *env))
    assert all(list(folder.iterdir()) == [] for folder in folders.values())
    # other work may add .py files to the tree meanwhile; a product never writes those
    assert {path for path in repo_files() - before if not path.endswith(".py")} == set()


def check_dense_order(rankings: dict[str, list[str]], label: str, recalled: dict[str, int] | None = None) -> int:
    """Every EpiRec v2 ranking (or its first `recalled[query]` ids) is dense's cosine order up to near-ties;
    prints how many are identical and returns that count."""
    cosines = dense_cosines()
    untied = identical = 0
    for query in epirec_task().queries:
        scores = cosines[query.id]
        n = None if recalled is None else recalled[query.id]
        expected = sorted(scores, key=lambda d: -scores[d])[:n]
        identical += rankings[query.id][:n] == expected
        untied += untied_differences(rankings[query.id][:n], expected, scores)
    assert (len(rankings), untied) == (504, 0)
    print(f"{label} vs dense on EpiRec v2: {identical}/504 identical")
    return identical
