"""memrecall run: a system written outside the repo, on every benchmark, checked like a rankings file."""

import hashlib
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from conftest import FIXTURES, MINI_RELEASE, run

LME = FIXTURES / "lme_format_mini.json"
LOCOMO = FIXTURES / "locomo_mini.json"
DATA = {
    "epirec": MINI_RELEASE,
    "longmemeval": LME,
    "longmemeval-official": LME,
    "locomo": LOCOMO,
    "locomo-turn": LOCOMO,
}

OUTSIDE_SYSTEM = '''
class WordOverlap:
    """Documents sharing more lowercase words with the query first; ties keep store order."""

    name = "overlap"

    def index(self, documents):
        self.docs = [(d.id, set(d.text.lower().split())) for d in documents]

    def rank(self, query):
        words = set(query.text.lower().split())
        order = sorted(range(len(self.docs)), key=lambda i: (-len(words & self.docs[i][1]), i))
        return [self.docs[i][0] for i in order]


class Batched(WordOverlap):
    name = "batched"
    calls = 0

    def rank_many(self, queries):
        Batched.calls += 1
        return [self.rank(q) for q in queries]


def make_overlap():
    return WordOverlap()


class UnknownId(WordOverlap):
    def rank(self, query):
        return ["ghost-doc"] + super().rank(query)[1:]


class RepeatedId(WordOverlap):
    def rank(self, query):
        ids = super().rank(query)
        return [ids[0]] + ids[:-1]


class Crashes(WordOverlap):
    def rank(self, query):
        raise RuntimeError("model server is down")


class NotASystem:
    pass
'''


@pytest.fixture
def outside(tmp_path, monkeypatch):
    """A module in a folder outside the repository, importable from the current directory."""
    (tmp_path / "my_memory.py").write_text(textwrap.dedent(OUTSIDE_SYSTEM))
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


@pytest.mark.parametrize("benchmark", list(DATA))
def test_outside_class_runs_on_every_benchmark_and_replays_through_evaluate(outside, benchmark):
    out = outside / benchmark
    result = run(
        "run",
        benchmark,
        "--system",
        "my_memory:WordOverlap",
        "--data",
        DATA[benchmark],
        "--quiet",
        "--output",
        out / "report.json",
        "--export-rankings",
        out / "rk.jsonl",
        "--per-query",
        out / "pq.jsonl",
    )
    assert result.exit_code == 0, result.output
    report = json.loads((out / "report.json").read_text())
    assert report["content"]["system_order"] == ["overlap"]
    replay = run(
        "evaluate",
        out / "rk.jsonl",
        "--benchmark",
        benchmark,
        "--data",
        DATA[benchmark],
        "--name",
        "overlap",
        "--output",
        out / "replay.json",
    )
    assert replay.exit_code == 0, replay.output
    replayed = json.loads((out / "replay.json").read_text())
    ran, scored = report["content"]["systems"]["overlap"], replayed["content"]["systems"]["overlap"]
    assert scored.pop("identity") == {"origin": "rankings file"}
    identity = ran.pop("identity")
    assert (identity["origin"], identity["isolation"], identity["spec"]) == ("run", "sandbox", "my_memory:WordOverlap")
    assert identity["class"] == "my_memory.WordOverlap" and identity["source_file"] == "my_memory.py"
    assert identity["source_sha256"] == hashlib.sha256((outside / "my_memory.py").read_bytes()).hexdigest()
    assert replayed["content"] == report["content"]  # all else alike: the same rankings give the same numbers
    rows = [json.loads(line) for line in (out / "pq.jsonl").read_text().splitlines()]
    assert len(rows) == report["content"]["task"]["queries"]


def test_per_query_rows_give_target_ranks_hits_and_top_ids(outside):
    result = run(
        "run",
        "epirec",
        "--system",
        "my_memory:WordOverlap",
        "--data",
        MINI_RELEASE,
        "--quiet",
        "--output",
        outside / "r.json",
        "--per-query",
        outside / "pq.jsonl",
    )
    assert result.exit_code == 0, result.output
    rows = {r["query_id"]: r for r in map(json.loads, (outside / "pq.jsonl").read_text().splitlines())}
    row = rows["t01e01-f"]
    assert set(row) == {
        "system",
        "query_id",
        "store_id",
        "strata",
        "text",
        "target_ranks",
        "first_target_rank",
        "hit",
        "top",
        "report_content_sha256",
        "benchmark",
    }
    report = json.loads((outside / "r.json").read_text())
    assert (row["report_content_sha256"], row["benchmark"]) == (report["content_sha256"], "epirec")
    rank = row["target_ranks"]["t01e01"]
    assert row["first_target_rank"] == rank and row["hit"] == {"@1": rank <= 1, "@3": rank <= 3}
    assert len(row["top"]) == 4 and row["strata"]["probe_type"] == "factual"  # the mini stores hold 4 episodes
    report = json.loads((outside / "r.json").read_text())
    hits = sum(r["hit"]["@3"] for r in rows.values())
    assert report["content"]["systems"]["overlap"]["results"]["overall"]["recall@3"]["value"] == hits / len(rows)


def test_a_zero_argument_factory_a_registered_name_and_rank_many_all_work(outside):
    factory = run(
        "run",
        "epirec",
        "--system",
        "my_memory:make_overlap",
        "--data",
        MINI_RELEASE,
        "--quiet",
        "--output",
        outside / "f.json",
    )
    assert factory.exit_code == 0, factory.output
    builtin = run(
        "run", "epirec", "--system", "fts5", "--data", MINI_RELEASE, "--quiet", "--output", outside / "b.json"
    )
    assert builtin.exit_code == 0, builtin.output
    assert json.loads((outside / "b.json").read_text())["content"]["system_order"] == ["fts5"]
    batched = run(
        "run",
        "epirec",
        "--system",
        "my_memory:Batched",
        "--data",
        MINI_RELEASE,
        "--quiet",
        "--output",
        outside / "m.json",
        "--name",
        "my-batched",
        "--in-process",
    )
    assert batched.exit_code == 0, batched.output
    import my_memory

    assert my_memory.Batched.calls == 2  # once per store of the mini release (in this process: --in-process)
    content = json.loads((outside / "m.json").read_text())["content"]
    assert content["system_order"] == ["my-batched"]
    reference = json.loads((outside / "f.json").read_text())["content"]["systems"]["overlap"]["results"]
    assert content["systems"]["my-batched"]["results"] == reference


@pytest.mark.parametrize(
    "spec, expected",
    [
        ("my_memory:UnknownId", "ranked 'ghost-doc', which is not an id of a document in store 't01'"),
        ("my_memory:RepeatedId", "query t01e01-f: t01e01-f ranks t01e01 more than once"),
        ("my_memory:Crashes", "error: system overlap: rank() on query 't01e0"),
        ("my_memory:Crashes", "raised RuntimeError: model server is down (at "),
        ("my_memory:NotASystem", "NotASystem has neither an index(documents) nor a rank(query) method"),
        ("my_memory:Missing", "my_memory has no attribute Missing"),
        ("no_such_module:X", "cannot import no_such_module: ModuleNotFoundError"),
        ("bogus", "unknown system 'bogus': give MODULE:ATTR or one of recency, hashing"),
    ],
)
def test_a_bad_system_gets_one_clean_error_naming_the_query_and_nothing_is_written(outside, spec, expected):
    output = outside / "never.json"
    result = run(
        "run",
        "epirec",
        "--system",
        spec,
        "--data",
        MINI_RELEASE,
        "--quiet",
        "--output",
        output,
        "--export-rankings",
        outside / "never.jsonl",
    )
    assert result.exit_code == (2 if spec == "bogus" else 1)  # a name that names nothing is a usage error
    assert expected in result.output
    assert "Traceback" not in result.output
    assert not output.exists() and not (outside / "never.jsonl").exists()


def test_a_prefix_ranking_is_refused_on_epirec_and_accepted_elsewhere(outside):
    (outside / "prefix.py").write_text(
        "from my_memory import WordOverlap\n\nclass Top2(WordOverlap):\n"
        "    def rank(self, query):\n        return super().rank(query)[:2]\n"
    )
    epirec = run(
        "run", "epirec", "--system", "prefix:Top2", "--data", MINI_RELEASE, "--quiet", "--output", outside / "e.json"
    )
    assert epirec.exit_code == 1 and "leaves out" in epirec.output
    locomo = run(
        "run", "locomo", "--system", "prefix:Top2", "--data", LOCOMO, "--quiet", "--output", outside / "l.json"
    )
    assert locomo.exit_code == 0, locomo.output


def test_an_installed_package_registers_a_system_through_the_entry_point_group(tmp_path):
    package = tmp_path / "site"
    (package / "acme_memory").mkdir(parents=True)
    (package / "acme_memory" / "__init__.py").write_text(textwrap.dedent(OUTSIDE_SYSTEM))
    info = package / "acme_memory-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: acme-memory\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[memrecall.systems]\nacme = acme_memory:WordOverlap\n")
    command = [
        sys.executable,
        "-m",
        "memrecall",
        "run",
        "epirec",
        "--system",
        "acme",
        "--data",
        str(MINI_RELEASE),
        "--quiet",
        "--output",
        str(tmp_path / "r.json"),
    ]
    env = {"PYTHONPATH": str(package), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    done = subprocess.run(command, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
    assert done.returncode == 0, done.stderr
    content = json.loads((tmp_path / "r.json").read_text())["content"]
    assert content["system_order"] == ["overlap"]
    identity = content["systems"]["overlap"]["identity"]
    assert (identity["spec"], identity["distribution"], identity["distribution_version"]) == (
        "acme",
        "acme-memory",
        "0.1",
    )
    assert identity["source_file"] == "__init__.py" and identity["isolation"] == "sandbox"


@pytest.mark.parametrize("benchmark", ["epirec", "locomo"])
@pytest.mark.parametrize("spec", ["examples.bm25s_system:BM25sSystem", "examples.tfidf_system:TfidfSystem"])
def test_the_example_adapters_run(tmp_path, monkeypatch, benchmark, spec):
    monkeypatch.chdir(Path(__file__).resolve().parents[1])
    data = MINI_RELEASE if benchmark == "epirec" else LOCOMO
    result = run("run", benchmark, "--system", spec, "--data", data, "--quiet", "--output", tmp_path / "r.json")
    assert result.exit_code == 0, result.output
    content = json.loads((tmp_path / "r.json").read_text())["content"]
    name = content["system_order"][0]
    assert name in ("bm25s", "tfidf")
    overall = content["systems"][name]["results"]["overall"]
    assert overall["n"] == (24 if benchmark == "epirec" else 7)
    # both are lexical: every factual probe of the mini release names its episode's words
    if benchmark == "epirec":
        assert content["systems"][name]["results"]["by_probe_type"]["factual"]["recall@3"]["value"] == 1.0


def test_a_backend_the_system_never_uses_is_named_in_a_warning_and_changes_nothing(tmp_path, monkeypatch):
    monkeypatch.chdir(Path(__file__).resolve().parents[1])
    args = ["run", "epirec", "--system", "examples.tfidf_system:TfidfSystem", "--data", MINI_RELEASE, "--quiet"]
    plain = run(*args, "--output", tmp_path / "torch.json")
    onnx = run(*args, "--output", tmp_path / "onnx.json", "--encoder-backend", "onnx", "--precision", "int8")
    assert plain.exit_code == 0 and onnx.exit_code == 0, onnx.output
    assert "warning" not in plain.stderr
    assert onnx.stderr.strip().splitlines() == [
        "warning: --encoder-backend onnx --precision int8 was not used: tfidf never asked memrecall for an "
        "encoder (it ranks without one, or embeds through its own stack)"
    ]
    reports = [json.loads((tmp_path / f"{name}.json").read_text()) for name in ("torch", "onnx")]
    assert reports[0]["content_sha256"] == reports[1]["content_sha256"]
