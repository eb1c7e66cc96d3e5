"""A determined cheater's plug-ins, one per kind of leak: each falls back to its honest numbers or is refused.

Every cheat ranks first whatever its leak names, and keeps store order when the leak gives nothing; so a
cheat the boundary stops scores exactly what the honest store-order plug-in scores. Run locally and on Ray.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from conftest import FIXTURES, MINI_RELEASE, run

from memrecall.reports.proof.verification import verify_report

LME = FIXTURES / "lme_format_mini.json"

CHEATS = '''
import gc
import inspect
import json
import os
import sys

from memrecall.data.model import Ranking


class StoreOrder:
    """The honest reference: every document in store order."""

    def index(self, documents):
        self.ids = [d.id for d in documents]

    def rank(self, query):
        return list(self.ids)


class GoldFirst(StoreOrder):
    """Ranks first the documents its leak names (none: store order)."""

    def leak(self, query):
        return set()

    def rank(self, query):
        found = self.leak(query)
        return sorted(self.ids, key=lambda i: i not in found)


def gold_by_text(objects):
    """Targets by query text from any scorer-side query among `objects`."""
    return {o.text: set(o.targets) for o in objects if type(o).__name__ == "JudgedQuery"}


class IdLeak(GoldFirst):
    """EpiRec: a probe id is <episode id>-<f|x|i>, so the target is in the query id."""

    def leak(self, query):
        return {query.id.rsplit("-", 1)[0]}


class AnswerPrefix(GoldFirst):
    """LongMemEval: evidence sessions have ids starting with answer_."""

    def leak(self, query):
        return {i for i in self.ids if "answer_" in i}


class OrderLeak(GoldFirst):
    """EpiRec: the i-th query of a store asks about document i // 3."""

    def index(self, documents):
        super().index(documents)
        self.asked = 0

    def leak(self, query):
        self.asked += 1
        return {self.ids[(self.asked - 1) // 3]} if (self.asked - 1) // 3 < len(self.ids) else set()


class GcLeak(GoldFirst):
    """Finds the scorer's judged queries among the interpreter's objects, and the map to the ids it is shown."""

    def prepare(self, task):
        objects = gc.get_objects()
        self.gold = gold_by_text(objects)
        self.tokens = {}
        for sealed in (o for o in objects if type(o).__name__ == "Sealed"):
            for store, docs in sealed.doc_ids.items():
                self.tokens.update({(store, real): token for token, real in docs.items()})

    def leak(self, query):
        return {self.tokens.get((query.store_id, real), real) for real in self.gold.get(query.text, set())}


class FrameLeak(GoldFirst):
    """Walks up the caller frames from prepare to the scorer's Task."""

    def prepare(self, task):
        self.gold = {}
        for frame in inspect.stack():
            for value in list(frame.frame.f_locals.values()):
                queries = getattr(value, "queries", None)
                if isinstance(queries, tuple):
                    self.gold.update(gold_by_text(queries))

    def leak(self, query):
        return self.gold.get(query.text, set())


class PatchLeak(StoreOrder):
    """Rewrites the rankings after they are checked, by patching the pipeline's check."""

    def prepare(self, task):
        import memrecall.running.pipeline as pipeline

        original = pipeline.check_rows

        def forged(rows, task, require_full):
            rankings, problems = original(rows, task, require_full)
            for query in task.queries:
                ranked = rankings[query.id]
                order = sorted(ranked.doc_ids, key=lambda i: i not in query.targets)
                rankings[query.id] = Ranking(query.id, tuple(order), ranked.scores)
            return rankings, problems

        pipeline.check_rows = forged


class LateRanking(StoreOrder):
    """A Ranking whose ids change each time they are read: store order first, reversed afterwards."""

    def rank(self, query):
        ids = list(self.ids)

        class Shifty(Ranking):
            reads = 0

            @property
            def doc_ids(self):
                Shifty.reads += 1
                return tuple(ids if Shifty.reads == 1 else ids[::-1])

        shifty = object.__new__(Shifty)
        object.__setattr__(shifty, "query_id", query.id)
        object.__setattr__(shifty, "scores", tuple(0.0 for _ in ids))
        return shifty


class FlagFlip(StoreOrder):
    """Says it reads labels the first time it is asked, and that it doesn't afterwards."""

    asked = 0

    @property
    def uses_gold_labels(self):
        FlagFlip.asked += 1
        return FlagFlip.asked == 1

    def receive_gold_labels(self, labels):
        self.labels = labels


class KeyThief(StoreOrder):
    """Looks for the signing key everywhere a plug-in can reach, and says what it found in its config."""

    def config(self):
        found = []
        if "MEMRECALL_SIGN_KEY" in os.environ:
            found.append("environment: " + os.environ["MEMRECALL_SIGN_KEY"])
        found += ["argv: " + a for a in sys.argv if "key" in a.lower()]
        try:
            import click

            context = click.get_current_context(silent=True)
            if context is not None:
                found.append("click context: " + repr(context.params.get("sign_key")))
        except ImportError:
            pass
        found += ["object: " + type(o).__name__ for o in gc.get_objects() if "PrivateKey" in type(o).__name__]
        return {"found": found}


class Impersonator(StoreOrder):
    """Calls itself by a built-in's name."""

    name = "dense"
'''

SLOW = '''
import time

time.sleep(0.6)  # work done at import


class Slow:
    """Costly to build, cheap to run."""

    def __init__(self):
        time.sleep(0.4)

    def index(self, documents):
        self.ids = [d.id for d in documents]

    def rank(self, query):
        return list(self.ids)
'''

FALLS_BACK = {
    "epirec": ["IdLeak", "GcLeak", "FrameLeak", "PatchLeak", "LateRanking"],
    "longmemeval": ["AnswerPrefix", "GcLeak", "FrameLeak", "PatchLeak", "LateRanking"],
}
DATA = {"epirec": MINI_RELEASE, "longmemeval": LME}
EXECUTORS = {"epirec": ("local", "ray"), "longmemeval": ("local",)}  # Ray's boundary code is the same for both


@pytest.fixture
def cheats(tmp_path, monkeypatch):
    """The cheats' module in a folder outside the repo, which is also the working folder."""
    (tmp_path / "cheats.py").write_text(textwrap.dedent(CHEATS), encoding="utf-8")
    (tmp_path / "slow_plugin.py").write_text(textwrap.dedent(SLOW), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


def run_cheat(folder: Path, benchmark: str, attr: str, *extra, module: str = "cheats"):
    """`memrecall run` of one class; (result, report or None)."""
    output = folder / f"{benchmark}-{attr}-{'-'.join(map(str, extra)) or 'plain'}.json"
    args = ["run", benchmark, "--system", f"{module}:{attr}", "--data", DATA[benchmark], "--quiet"]
    result = run(*args, "--resamples", "100", "--output", output, *extra)
    return result, (json.loads(output.read_text(encoding="utf-8")) if output.exists() else None)


def results_of(report: dict) -> dict:
    """The one system's results."""
    (entry,) = report["content"]["systems"].values()
    return entry["results"]


@pytest.mark.parametrize(
    ("benchmark", "cheat", "executor"),
    [(b, c, e) for b, names in sorted(FALLS_BACK.items()) for c in names for e in EXECUTORS[b]],
    ids=str,
)
@pytest.mark.slow
def test_a_cheat_scores_what_the_honest_plug_in_scores(cheats, benchmark, cheat, executor):
    extra = ("--executor", "ray", "--workers", "2") if executor == "ray" else ()
    honest, reference = run_cheat(cheats, benchmark, "StoreOrder", *extra)
    assert honest.exit_code == 0, honest.output
    result, report = run_cheat(cheats, benchmark, cheat, *extra)
    assert result.exit_code == 0, result.output
    assert results_of(report) == results_of(reference)
    identity = report["content"]["systems"][cheat]["identity"]
    assert (identity["isolation"], identity["spec"], identity["class"]) == (
        "sandbox",
        f"cheats:{cheat}",
        f"cheats.{cheat}",
    )


@pytest.mark.parametrize("executor", ["local", "ray"])
@pytest.mark.slow
def test_queries_arrive_in_a_fresh_order_so_order_says_nothing(cheats, executor):
    """OrderLeak would find every target at rank 1 in file order; shuffled afresh, it finds some by chance."""
    extra = ("--executor", "ray", "--workers", "2") if executor == "ray" else ()
    seen = []
    for _ in range(2):
        result, report = run_cheat(cheats, "epirec", "OrderLeak", *extra)
        assert result.exit_code == 0, result.output
        by_type = results_of(report)["by_probe_type"]
        seen.append([by_type[t]["recall@1"]["value"] for t in sorted(by_type)])
        assert min(seen[-1]) < 1.0
    assert seen[0] != seen[1] or seen[0][0] < 0.5


@pytest.mark.parametrize("cheat", ["IdLeak", "OrderLeak", "GcLeak", "PatchLeak"])
def test_the_same_cheats_win_in_process_and_the_report_says_so(cheats, cheat, monkeypatch):
    """--in-process shares the interpreter: ids and order are still sealed, gc and patching are not."""
    import memrecall.running.pipeline as pipeline

    monkeypatch.setattr(pipeline, "check_rows", pipeline.check_rows)  # PatchLeak's patch is undone afterwards
    honest, reference = run_cheat(cheats, "epirec", "StoreOrder")
    result, report = run_cheat(cheats, "epirec", cheat, "--in-process")
    assert result.exit_code == 0, result.output
    assert report["content"]["systems"][cheat]["identity"]["isolation"] == "none"
    shared = cheat in ("GcLeak", "PatchLeak")
    implicit = results_of(report)["by_probe_type"]["reflective_implicit"]["recall@1"]["value"]
    assert (implicit == 1.0) is shared
    assert (results_of(report) == results_of(reference)) is (cheat == "IdLeak")


@pytest.mark.parametrize("executor", ["local", "ray"])
def test_a_flag_read_twice_is_read_once_and_the_report_is_marked(cheats, executor):
    extra = ("--executor", "ray", "--workers", "2") if executor == "ray" else ()
    result, report = run_cheat(cheats, "epirec", "FlagFlip", *extra)
    assert result.exit_code == 0, result.output
    assert report["content"]["systems"]["FlagFlip"]["uses_gold_labels"] is True


@pytest.mark.parametrize("executor", ["local", "ray"])
def test_no_key_path_or_key_reaches_a_plug_in(cheats, executor, monkeypatch):
    keys = cheats / "keys"
    assert run("keys", "new", "--out", keys, "--name", "lab").exit_code == 0
    monkeypatch.setenv("MEMRECALL_SIGN_KEY", str(keys / "lab.key"))
    extra = ("--executor", "ray", "--workers", "2") if executor == "ray" else ()
    result, report = run_cheat(cheats, "epirec", "KeyThief", *extra)
    assert result.exit_code == 0, result.output
    assert report["content"]["systems"]["KeyThief"]["identity"]["config"] == {"found": []}
    checks = verify_report(report, [keys / "lab.pub"])
    assert [c.name for c in checks if c.ok][-1].startswith("trusted key ") and all(c.ok for c in checks)


@pytest.mark.parametrize(
    ("how", "args", "expected"),
    [
        ("its own name", ("Impersonator",), "'dense' is the name of a registered system"),
        ("--name", ("StoreOrder", "--name", "dense"), "'dense' is the name of a registered system"),
        ("--name of an adapter", ("StoreOrder", "--name", "chroma"), "'chroma' is the name of a registered system"),
    ],
)
def test_a_plug_in_cannot_report_under_a_registered_name(cheats, how, args, expected):
    result, report = run_cheat(cheats, "epirec", *args)
    assert result.exit_code != 0 and report is None
    assert expected in result.output.strip().splitlines()[-1]


def test_a_built_in_cannot_report_under_another_built_ins_name(tmp_path):
    output = tmp_path / "r.json"
    result = run("run", "epirec", "--system", "recency", "--name", "fts5", "--data", MINI_RELEASE, "--output", output)
    assert result.exit_code != 0 and not output.exists()
    assert "'fts5' is the name of a registered system" in result.output


def test_import_and_construction_count_as_preparation(cheats):
    result, report = run_cheat(cheats, "epirec", "Slow", module="slow_plugin")
    assert result.exit_code == 0, result.output
    assert report["env"]["cost"]["Slow"]["prepare_seconds"] >= 1.0


def test_in_process_refuses_a_key_ray_and_memrecalls_own_systems(cheats, tmp_path):
    keys = tmp_path / "keys"
    run("keys", "new", "--out", keys)
    cases = [
        (("StoreOrder", "--in-process", "--sign-key", keys / "memrecall.key"), "sign afterwards"),
        (("StoreOrder", "--in-process", "--executor", "ray"), "not on --executor ray"),
    ]
    for args, expected in cases:
        result, report = run_cheat(cheats, "epirec", *args)
        assert result.exit_code == 2 and report is None, result.output
        assert expected in result.output
    output = tmp_path / "d.json"
    result = run("run", "epirec", "--system", "recency", "--in-process", "--data", MINI_RELEASE, "--output", output)
    assert result.exit_code == 2 and "memrecall's own code" in result.output and not output.exists()


def test_a_plug_in_wrapped_in_memrecalls_adapter_is_still_a_plug_in(cheats):
    """The Python API trusts an object by its own class, never by the wrapper around it."""
    import cheats as module

    from memrecall import run_system
    from memrecall.systems.contract import adapt

    result = run_system(adapt(module.IdLeak(), "wrapped"), "epirec", data=MINI_RELEASE, resamples=100)
    entry = result.report["content"]["systems"]["wrapped"]
    assert entry["identity"]["isolation"] == "none" and entry["identity"]["class"] == "cheats.IdLeak"
    assert entry["identity"]["source_file"] == "cheats.py"
    assert entry["results"]["by_probe_type"]["factual"]["recall@1"]["value"] < 1.0  # its ids were sealed
