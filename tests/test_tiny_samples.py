"""The tiny hand-written LongMemEval and LoCoMo samples in examples/data/ run straight after Quick start."""

import json
from pathlib import Path

from conftest import run

from memrecall.benchmarks import get_benchmark

DATA = Path(__file__).resolve().parents[1] / "examples" / "data"


def test_longmemeval_tiny_loads_in_the_official_format():
    loaded = get_benchmark("longmemeval").load(DATA / "longmemeval_tiny.json")
    task = loaded.task
    assert [q.id for q in task.queries] == ["tiny_bike", "tiny_move", "tiny_piano_abs"]
    assert task.queries[0].targets == frozenset({"answer_bike"})
    assert task.queries[-1].targets == frozenset() and task.queries[-1].strata["abstention"] == "yes"
    assert sum(len(s) for s in task.stores.values()) == 12 and loaded.dataset["oracle_split"] is False


def test_locomo_tiny_loads_with_an_adversarial_question_apart():
    task = get_benchmark("locomo-turn").load(DATA / "locomo_tiny.json").task
    assert len(task.stores["tiny-conv"]) == 8
    assert task.queries[2].targets == frozenset({"D1:3", "D2:2"})
    assert task.queries[-1].strata == {
        "category": "5-adversarial",
        "in_headline": "no",
        "left_out_because": "5-adversarial",
    }


def test_the_quick_start_follow_up_command_runs_on_the_tiny_sample(tmp_path):
    args = ["--modes", "fts5", "--quiet", "--output", tmp_path / "r.json", "--per-query", tmp_path / "pq.jsonl"]
    result = run("longmemeval", "--data", DATA / "longmemeval_tiny.json", *args)
    assert result.exit_code == 0, result.output
    overall = json.loads((tmp_path / "r.json").read_text())["content"]["systems"]["fts5"]["results"]["overall"]
    assert overall["n"] == 2  # the abstention question has no gold session: counted, not scored
    rows = {r["query_id"]: r for r in map(json.loads, (tmp_path / "pq.jsonl").read_text().splitlines())}
    # only the bicycle session shares the question's words "old bicycle": keyword search puts it first
    assert rows["tiny_bike"]["first_target_rank"] == 1
    assert overall["recall@1"]["value"] == sum(r["hit"]["@1"] for r in rows.values() if r["hit"]) / 2
    locomo = run(
        "locomo", "--data", DATA / "locomo_tiny.json", "--modes", "fts5", "--quiet", "--output", tmp_path / "l.json"
    )
    assert locomo.exit_code == 0, locomo.output
