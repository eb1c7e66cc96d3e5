"""The beir benchmark: BEIR folders (one store, or one per store_id) load, run, evaluate and sweep."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import run

from memrecall.benchmarks import get_benchmark
from memrecall.data.loaders.beir import load_beir
from memrecall.errors import DatasetError

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "data"
MEMORY = EXAMPLES / "beir_memory"
TINY = EXAMPLES / "beir_tiny"


def test_the_per_user_sample_is_one_store_per_user_with_graded_targets():
    task, dataset = load_beir(MEMORY)
    assert {sid: [d.id for d in docs][:1] + [len(docs)] for sid, docs in task.stores.items()} == {
        "ana": ["ana-01", 6],
        "ben": ["ben-01", 6],
        "chi": ["chi-01", 6],
    }
    assert [q.id for q in task.queries][::4] == ["ana-q1", "ben-q2", "chi-q3"]
    trip = task.queries[1]
    assert (trip.store_id, trip.targets, dict(trip.grades)) == (
        "ana",
        {"ana-02", "ana-04", "ana-06"},
        {"ana-02": 1, "ana-04": 2, "ana-06": 1},
    )
    assert trip.gain("ana-04") == 2 and trip.gain("ana-03") == 0  # ana-03 is judged 0: not a target
    assert trip.time.isoformat() == "2025-03-26T18:00:00+00:00"
    assert task.stores["chi"][-1].timestamp.isoformat() == "2025-05-20T10:40:00+00:00"
    assert dataset == {
        "family": "beir",
        "folder": "beir_memory",
        "stores": "one per store_id",
        "judgements": 16,
        "judged_not_relevant": 1,
        "graded": True,
    }


def test_the_single_store_sample_is_one_store_and_titles_lead_the_text():
    task, dataset = load_beir(TINY)
    assert list(task.stores) == ["corpus"] and len(task.stores["corpus"]) == 8
    assert task.stores["corpus"][0].text.startswith("Sourdough basics\nA starter is flour")
    assert task.stores["corpus"][7].text.startswith("Rye flour")  # no title: the text alone
    assert {q.store_id for q in task.queries} == {"corpus"} and dataset["stores"] == "one"
    assert [len(q.targets) for q in task.queries] == [2, 1, 1, 2, 1]


def test_other_benchmarks_keep_ungraded_targets():
    from conftest import MINI_RELEASE

    task = get_benchmark("epirec").load(MINI_RELEASE).task
    assert all(dict(q.grades) == {} for q in task.queries)
    first = task.queries[0]
    assert [first.gain(t) for t in sorted(first.targets)] == [1] * len(first.targets)


def test_the_headline_is_ndcg_at_10_then_recall_at_k():
    assert get_benchmark("beir").headline() == ["ndcg@10", "recall@1", "recall@3", "recall@5", "recall@10"]


@pytest.mark.parametrize("folder", [MEMORY, TINY], ids=["per-user", "single-store"])
def test_run_then_evaluate_of_its_rankings_give_the_same_numbers(tmp_path, folder):
    ran = run("run", "beir", "--data", folder, "--system", "fts5", "--quiet", "--output", tmp_path / "r.json",
              "--export-rankings", tmp_path / "r.jsonl")  # fmt: skip
    assert ran.exit_code == 0, ran.output
    scored = run("evaluate", tmp_path / "r.jsonl", "--benchmark", "beir", "--data", folder, "--name", "fts5",
                 "--output", tmp_path / "e.json")  # fmt: skip
    assert scored.exit_code == 0, scored.output
    report, again = (json.loads((tmp_path / n).read_text()) for n in ("r.json", "e.json"))
    assert again["content"]["systems"]["fts5"].pop("identity") == {"origin": "rankings file"}
    assert "identity" not in report["content"]["systems"]["fts5"]  # memrecall's own fts5, by its reserved name
    assert again["content"] == report["content"]
    content = report["content"]
    assert content["benchmark"] == "beir" and content["headline_metrics"][0] == "ndcg@10"
    assert content["systems"]["fts5"]["results"]["overall"]["n"] == (9 if folder == MEMORY else 5)
    rows = [json.loads(line) for line in (tmp_path / "r.jsonl").read_text().splitlines()]
    assert {r["store_id"] for r in rows} == ({"ana", "ben", "chi"} if folder == MEMORY else {"corpus"})


def test_a_sweep_runs_the_beir_sample(tmp_path):
    result = run("sweep", "--systems", "recency,fts5", "--benchmarks", "beir", "--data", f"beir={MEMORY}",
                 "--out", tmp_path / "sweep", "--quiet", "--resamples", "100")  # fmt: skip
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in (tmp_path / "sweep" / "beir").glob("*.report.json")) == [
        "fts5.report.json",
        "recency.report.json",
    ]


def test_a_file_as_data_and_an_output_inside_the_folder_are_refused(tmp_path):
    shutil.copytree(MEMORY, tmp_path / "logs")
    as_file = run("run", "beir", "--data", tmp_path / "logs" / "corpus.jsonl", "--system", "recency", "--quiet")
    assert as_file.exit_code == 2 and "is a file; beir reads a folder" in as_file.output
    inside = run("run", "beir", "--data", tmp_path / "logs", "--system", "recency", "--quiet",
                 "--output", tmp_path / "logs" / "r.json")  # fmt: skip
    assert inside.exit_code == 1 and "must not change" in inside.output
    assert sorted(p.name for p in (tmp_path / "logs").iterdir()) == ["corpus.jsonl", "qrels", "queries.jsonl"]


def test_the_loader_never_leaks_a_grade_of_zero_or_a_judged_document_into_the_public_view():
    task, _ = load_beir(MEMORY)
    public = task.public()
    assert public.queries[1]._fields == ("id", "store_id", "text", "time")
    with pytest.raises(AttributeError):
        public.queries[1].grades  # noqa: B018 - the attribute must not exist


def test_an_unreadable_folder_layout_names_what_is_missing(tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(DatasetError, match=r"empty/corpus.jsonl: is missing; a BEIR folder holds corpus.jsonl"):
        load_beir(tmp_path / "empty")


def test_a_beir_report_replays_from_its_folder_and_renders_a_card(tmp_path):
    ran = run("run", "beir", "--data", MEMORY, "--system", "fts5", "--quiet", "--output", tmp_path / "r.json",
              "--export-rankings", tmp_path / "r.jsonl")  # fmt: skip
    assert ran.exit_code == 0, ran.output
    verified = run("verify", tmp_path / "r.json", "--rankings", tmp_path / "r.jsonl", "--data", MEMORY)
    assert (
        verified.exit_code == 0
        and "ok replay: 1 rankings file(s) scored again give identical content" in verified.output
    )
    other = run("verify", tmp_path / "r.json", "--rankings", tmp_path / "r.jsonl", "--data", TINY)
    assert other.exit_code == 1 and "FAIL replay" in other.output
    bare = run("verify", tmp_path / "r.json", "--rankings", tmp_path / "r.jsonl")
    assert "--data is required to replay a beir report (made from the folder beir_memory)" in bare.output
    card = run(
        "report", tmp_path / "r.json", "--rankings", tmp_path / "r.jsonl", "--data", MEMORY, "--out", tmp_path / "c"
    )
    assert card.exit_code == 0, card.output
    assert "ndcg@10" in (tmp_path / "c" / "README.md").read_text(encoding="utf-8")
