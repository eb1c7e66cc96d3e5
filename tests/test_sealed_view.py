"""Systems see a sealed view: no targets, strata or labels anywhere, and nothing they mutate changes a number."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from conftest import FIXTURES, MINI_RELEASE, run

from memrecall.data.model import Document, PublicTask, Query

DATA = {
    "epirec": MINI_RELEASE,
    "longmemeval": FIXTURES / "lme_format_mini.json",
    "locomo": FIXTURES / "locomo_mini.json",
    "beir": Path(__file__).resolve().parents[1] / "examples" / "data" / "beir_memory",
}
GOLD_WORDS = ("targets", "strata", "labels", "gold", "answer", "evidence", "probe_type", "in_headline", "grade", "gain")

PLUGINS = '''
from types import MappingProxyType

GOLD_WORDS = {gold_words!r}


def snoop(obj, where, fields_are_plain=True):
    """Raise when any attribute of obj names gold, or (for documents and queries) a field holds a collection."""
    names = [n for n in dir(obj) if not n.startswith("__")]
    leaked = [n for n in names if any(w in n.lower() for w in GOLD_WORDS)]
    if leaked:
        raise RuntimeError(f"{{where}} exposes {{leaked}}")
    for value in getattr(obj, "_asdict", lambda: {{}})().values() if fields_are_plain else ():
        if isinstance(value, (dict, set, frozenset, MappingProxyType)):
            raise RuntimeError(f"{{where}} carries a collection: {{value!r}}")


class Clean:
    """Store order reversed, whatever the query says."""

    name = "plain"

    def index(self, documents):
        self.ids = [d.id for d in documents][::-1]

    def rank(self, query):
        return list(self.ids)


class Snoop(Clean):
    """Looks for gold on everything it is handed, and fails loudly when it finds any."""

    def prepare(self, task):
        snoop(task, "the prepared task", fields_are_plain=False)
        for store in task.stores.values():
            for document in store:
                snoop(document, "a document")
        for query in task.queries:
            snoop(query, "a query")

    def index(self, documents):
        for document in documents:
            snoop(document, "a document")
        super().index(documents)

    def rank(self, query):
        snoop(query, "a query")
        return super().rank(query)


class Tamper(Clean):
    """Tries every way of changing what it was handed, then ranks like Clean."""

    def prepare(self, task):
        attempts = [
            lambda: task.stores.clear(),
            lambda: task.stores.__setitem__("x", ()),
            lambda: object.__setattr__(task, "queries", ()),
        ]
        for store in task.stores.values():
            for document in store:
                attempts.append(lambda d=document: object.__setattr__(d, "text", "changed"))
                attempts.append(lambda d=document: object.__setattr__(d, "id", "changed"))
        for query in task.queries:
            attempts.append(lambda q=query: object.__setattr__(q, "store_id", "elsewhere"))
            attempts.append(lambda q=query: setattr(q, "strata", {{"probe_type": "factual"}}))
            attempts.append(lambda q=query: setattr(q, "targets", frozenset()))
            attempts.append(lambda q=query: setattr(q, "grades", {{}}))
        for attempt in attempts:
            try:
                attempt()
            except Exception:
                pass

    def rank(self, query):
        for attempt in (
            lambda: object.__setattr__(query, "id", "q-other"),
            lambda: setattr(query, "strata", {{"in_headline": "no"}}),
        ):
            try:
                attempt()
            except Exception:
                pass
        return super().rank(query)
'''


@pytest.fixture
def plugins(tmp_path, monkeypatch):
    """A plug-in module written outside the repo, importable as `sealed_plugins`."""
    (tmp_path / "sealed_plugins.py").write_text(textwrap.dedent(PLUGINS.format(gold_words=GOLD_WORDS)))
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


def run_plugin(folder, benchmark: str, attr: str, executor: str) -> dict:
    """`memrecall run` of one plug-in class; the report as a dict."""
    output = folder / f"{benchmark}-{attr}-{executor}.json"
    args = ["run", benchmark, "--system", f"sealed_plugins:{attr}", "--name", "plain", "--data", DATA[benchmark]]
    args += ["--quiet", "--output", output, "--executor", executor]
    result = run(*args, *(["--workers", "2"] if executor == "ray" else []))
    assert result.exit_code == 0, result.output
    return json.loads(output.read_text(encoding="utf-8"))


@pytest.mark.parametrize("executor", ["local", "ray"])
@pytest.mark.parametrize("benchmark", sorted(DATA))
def test_a_snooping_plug_in_finds_no_gold_and_a_tampering_one_changes_nothing(plugins, benchmark, executor):
    clean = run_plugin(plugins, benchmark, "Clean", executor)["content"]["systems"]["plain"]
    for attr in ("Snoop", "Tamper"):
        entry = run_plugin(plugins, benchmark, attr, executor)["content"]["systems"]["plain"]
        assert entry["identity"]["class"] == f"sealed_plugins.{attr}"  # the code differs, the rankings do not
        assert (entry["rankings_sha256"], entry["results"]) == (clean["rankings_sha256"], clean["results"])


def test_the_public_types_hold_exactly_the_public_fields():
    assert Document._fields == ("id", "text", "timestamp")
    assert Query._fields == ("id", "store_id", "text", "time")
    assert PublicTask._fields == ("stores", "queries", "depth")


def test_each_run_gets_a_fresh_copy_and_the_task_keeps_its_gold():
    from memrecall.data.loaders.epirec import load_epirec

    task = load_epirec(MINI_RELEASE)
    first, second = task.public(), task.public()
    assert first.queries == second.queries and first.queries[0] is not second.queries[0]
    assert task.queries[0].targets and task.queries[0].strata["probe_type"] in {
        "factual",
        "reflective_explicit",
        "reflective_implicit",
    }
    with pytest.raises(TypeError):
        first.stores["p01"] = ()  # type: ignore[index]


def test_only_a_system_that_declares_it_is_handed_the_labels(tmp_path):
    from memrecall import run_system

    class Declares:
        uses_gold_labels = True
        received = None

        def receive_gold_labels(self, labels):
            Declares.received = labels

        def index(self, documents):
            self.ids = [d.id for d in documents]

        def rank(self, query):
            return self.ids

    class Silent(Declares):
        uses_gold_labels = False

    oracle = run_system(Declares(), "epirec", data=MINI_RELEASE, name="o", resamples=100)
    bands = {label["intensity_band"] for store in Declares.received.values() for label in store.values()}
    assert bands == {"high", "mild", "low"}
    assert oracle.report["content"]["systems"]["o"]["uses_gold_labels"] is True
    Declares.received = None
    honest = run_system(Silent(), "epirec", data=MINI_RELEASE, name="o", resamples=100)
    assert Declares.received is None
    assert "uses_gold_labels" not in honest.report["content"]["systems"]["o"]


def test_the_salience_oracle_baseline_is_marked_in_signed_content(tmp_path):
    output = tmp_path / "mm.json"
    result = run(
        "baseline",
        "--data",
        MINI_RELEASE,
        "--strategies",
        "recency,salience-oracle",
        "--quiet",
        "--output",
        output,
        "--resamples",
        "100",
    )
    assert result.exit_code == 0, result.output
    strategies = json.loads(output.read_text(encoding="utf-8"))["content"]["systems"]
    assert strategies["salience-oracle"]["uses_gold_labels"] is True
    assert "uses_gold_labels" not in strategies["recency"]


def test_graded_judgements_stay_on_the_scorer_side():
    from memrecall.data.loaders.beir import load_beir

    task, _ = load_beir(DATA["beir"])
    graded = next(q for q in task.queries if q.id == "ana-q2")
    assert dict(graded.grades) == {"ana-02": 1, "ana-04": 2, "ana-06": 1}
    public = next(q for q in task.public().queries if q.id == "ana-q2")
    assert public == Query("ana-q2", "ana", graded.text, graded.time) and not hasattr(public, "grades")
