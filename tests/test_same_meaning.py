"""Numbers that mean the same everywhere: one scoring depth, trivial cut-offs counted, official data recognised,
and gzip rankings read as plain ones."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys

import pytest
from conftest import FIXTURES, MINI_RELEASE, SHARED_DATA, doc, query, run

from memrecall.api import evaluate_rankings
from memrecall.benchmarks import get_benchmark
from memrecall.data.formats import input_kind
from memrecall.data.model import Ranking, Task
from memrecall.data.official import NOT_OFFICIAL, official_note, official_record, published_files
from memrecall.errors import DatasetError
from memrecall.io import deflated, write_jsonl
from memrecall.reports.notes import trivial_text
from memrecall.scoring.policy import ScoringConfig, score_task

LOCOMO = FIXTURES / "locomo_mini.json"


def ranking(query_id: str, ids: list[str]) -> Ranking:
    """A ranking with scores counting down."""
    return Ranking(query_id, tuple(ids), tuple(float(len(ids) - i) for i in range(len(ids))))


@pytest.mark.parametrize("target_rank", [1, 3, 10, 11, 40])
def test_a_prefix_and_a_whole_ranking_score_alike_at_the_depth(target_rank):
    docs = tuple(doc(f"d{i}", "x") for i in range(50))
    task = Task("t", "1", "0" * 64, {"s": docs}, (query("q", targets=(f"d{target_rank - 1}",)),))
    whole = [d.id for d in docs]
    config = ScoringConfig(metrics=("mrr", "map", "recall@10"), groupings=((),), depth=10)
    full = score_task(task, {"q": ranking("q", whole)}, config)["overall"]
    prefix = score_task(task, {"q": ranking("q", whole[:10])}, config)["overall"]
    assert full == prefix
    assert full["mrr"]["value"] == (1 / target_rank if target_rank <= 10 else 0.0)
    unbounded = score_task(task, {"q": ranking("q", whole)}, ScoringConfig(metrics=("mrr",), groupings=((),)))
    assert unbounded["overall"]["mrr"]["value"] == 1 / target_rank


@pytest.mark.parametrize(
    ("benchmark", "depth"), [("epirec", None), ("locomo", 10), ("locomo-turn", 10), ("longmemeval", 10), ("beir", 10)]
)
def test_each_benchmark_states_its_depth_and_metrics_never_move_it(benchmark, depth):
    bench = get_benchmark(benchmark)
    assert bench.scoring().depth == depth
    assert bench.scoring(metrics=["ndcg@50", "map@40"]).depth == depth
    assert ("depth" in bench.scoring().describe()) == (depth is not None)


def test_a_run_stores_rankings_down_to_the_depth_unless_an_official_log_is_asked(tmp_path):
    lme = tmp_path / "lme.json"
    generate = [sys.executable, str(FIXTURES.parents[1] / "benchmarks" / "generate_longmemeval.py"), "--out", lme]
    sizes = ["--questions", "6", "--sessions", "14", "--turns", "2", "--user-words", "8", "--assistant-words", "8"]
    subprocess.run([*map(str, generate), *sizes], check=True, capture_output=True)
    common = ["run", "longmemeval", "--system", "fts5", "--data", lme, "--quiet"]
    assert run(*common, "--output", tmp_path / "a.json", "--export-rankings", tmp_path / "a.jsonl").exit_code == 0
    logged = run(*common, "--output", tmp_path / "b.json", "--export-official-log", tmp_path / "b.log")
    assert logged.exit_code == 0, logged.output
    rows = [json.loads(line) for line in (tmp_path / "a.jsonl").read_text().splitlines()]
    stores = {q.id: len(get_benchmark("longmemeval").load(lme).task.stores[q.store_id])
              for q in get_benchmark("longmemeval").load(lme).task.queries}  # fmt: skip
    assert all(len(r["ranked_ids"]) == min(10, stores[r["query_id"]]) for r in rows)
    assert any(stores[r["query_id"]] > 10 for r in rows), "the fixture needs a store of more than 10 sessions"
    logs = [json.loads(line) for line in (tmp_path / "b.log").read_text().splitlines()]
    assert all(len(line["retrieval_results"]["ranked_items"]) == stores[line["question_id"]] for line in logs)
    a, b = (json.loads((tmp_path / n).read_text())["content"] for n in ("a.json", "b.json"))
    assert a["systems"]["fts5"]["results"] == b["systems"]["fts5"]["results"]


@pytest.mark.parametrize(("size", "k", "expected"), [(3, 1, 0), (3, 3, 3), (8, 3, 2), (8, 5, 2), (8, 10, 3)])
def test_stores_within_k_counts_the_queries_whose_store_the_top_k_covers(size, k, expected):
    small = tuple(doc(f"a{i}", "x") for i in range(3))
    large = tuple(doc(f"b{i}", "x") for i in range(size))
    queries = (
        query("q1", targets=("a0",), query_id="q1"),
        query("q2", targets=("a1",), query_id="q2"),
        type(query("q3"))("q3", "t", "q3", None, frozenset({"b0"})),
    )
    task = Task("t", "1", "0" * 64, {"s": small, "t": large}, queries)
    rankings = {q.id: ranking(q.id, [d.id for d in task.stores[q.store_id]]) for q in queries}
    cell = score_task(task, rankings, ScoringConfig(metrics=(f"recall@{k}",), groupings=((),)))["overall"]
    assert cell[f"recall@{k}"]["stores_within_k"] == expected
    words = trivial_text(cell[f"recall@{k}"], cell["n"])
    some = f"k reaches the store for {expected} of 3"
    assert words == ("" if expected == 0 else "k reaches every store" if expected == 3 else some)


def test_a_card_marks_a_cut_off_that_reaches_every_store(tmp_path):
    out = tmp_path / "r.json"
    assert run("run", "epirec", "--system", "fts5", "--data", MINI_RELEASE, "--quiet", "--output", out).exit_code == 0
    report = json.loads(out.read_text())
    sizes = {len(s) for s in get_benchmark("epirec").load(MINI_RELEASE).task.stores.values()}
    overall = report["content"]["systems"]["fts5"]["results"]["overall"]
    expected = "k reaches every store" if max(sizes) <= 3 else ""
    assert trivial_text(overall["recall@3"], overall["n"]) == expected
    assert run("report", out, "--out", tmp_path / "card").exit_code == 0
    card = (tmp_path / "card" / "README.md").read_text()
    assert ("(k reaches every store)" in card) == bool(expected)


@pytest.mark.parametrize("entry", published_files(), ids=lambda f: f["file"])
def test_every_published_digest_is_recognised_and_one_changed_byte_is_not(entry):
    found = official_record(entry["benchmark"], entry["sha256"])
    assert found == {"official": {"file": entry["file"], "variant": entry["variant"]}, "sha256": entry["sha256"]}
    changed = entry["sha256"][:-1] + ("0" if entry["sha256"][-1] != "0" else "1")
    assert official_record(entry["benchmark"], changed) == {"official": False, "sha256": changed}
    assert official_note({"official": False, "sha256": changed}).startswith(NOT_OFFICIAL)


@pytest.mark.parametrize(
    ("benchmark", "data", "official"),
    [
        ("epirec", MINI_RELEASE, False),
        ("locomo", LOCOMO, False),
        ("longmemeval", FIXTURES / "lme_format_mini.json", False),
        ("beir", FIXTURES.parents[1] / "examples" / "data" / "beir_tiny", None),
        ("epirec", None, {"file": "epirec_v3.json", "variant": "v3"}),
        ("epirec", FIXTURES.parents[1] / "data" / "epirec_v2.json", {"file": "epirec_v2.json", "variant": "v2"}),
        ("locomo", SHARED_DATA / "locomo10.json", {"file": "locomo10.json", "variant": "the 10-conversation release"}),
    ],
)
def test_reports_record_whether_their_data_is_an_official_file(tmp_path, benchmark, data, official):
    if data is not None and not data.exists():
        pytest.skip(f"{data} is not here")
    out = tmp_path / "r.json"
    args = ["run", benchmark, "--system", "fts5", "--quiet", "--output", out]
    result = run(*args, *(["--data", data] if data else []))
    assert result.exit_code == 0, result.output
    content = json.loads(out.read_text())["content"]
    assert content["data"] == {"official": official, "sha256": content["task"]["source_sha256"]}
    assert run("report", out, "--out", tmp_path / "card").exit_code == 0
    card = (tmp_path / "card" / "README.md").read_text()
    assert (NOT_OFFICIAL in card) == (official is False)


def test_gzip_rankings_score_as_the_plain_file_and_are_written_deterministically(tmp_path):
    plain, packed = tmp_path / "r.jsonl", tmp_path / "r.jsonl.gz"
    made = run("run", "epirec", "--system", "recency", "--data", MINI_RELEASE, "--quiet",
               "--output", tmp_path / "a.json", "--export-rankings", plain)  # fmt: skip
    assert made.exit_code == 0, made.output
    rows = [json.loads(line) for line in plain.read_text().splitlines()]
    write_jsonl(packed, rows)
    assert gzip.decompress(packed.read_bytes()) == plain.read_bytes()
    assert packed.read_bytes() == deflated(plain.read_bytes())
    assert packed.read_bytes()[4:8] == b"\0\0\0\0"  # mtime 0
    assert input_kind(packed) == input_kind(plain) == "rankings"
    a = evaluate_rankings(plain, "epirec", data=MINI_RELEASE).report["content"]
    b = evaluate_rankings(packed, "epirec", data=MINI_RELEASE).report["content"]
    assert a["systems"]["r"]["results"] == b["systems"]["r"]["results"]


@pytest.mark.parametrize("damage", [lambda b: b[:20], lambda b: b[:10] + b"\0" * 30 + b[40:]])
def test_a_broken_gzip_rankings_file_is_one_line_naming_it(tmp_path, damage):
    packed = tmp_path / "r.jsonl.gz"
    packed.write_bytes(damage(deflated(b'{"query_id": "x", "ranked_ids": []}\n' * 50)))
    with pytest.raises(DatasetError, match="is not a readable gzip file"):
        evaluate_rankings(packed, "epirec", data=MINI_RELEASE)
