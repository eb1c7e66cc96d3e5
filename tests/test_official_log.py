"""LongMemEval parity: the official retrieval log out and in, turn granularity, bm25-official, manifests."""

import json

import numpy as np
import pytest
from conftest import FIXTURES, LONGMEMEVAL_MISSING, SHARED_DATA, run

from memrecall.data.loaders.longmemeval import load_longmemeval
from memrecall.reports.exports.official_log import dcg, evaluate_retrieval, evaluate_turn2session

MINI = FIXTURES / "lme_format_mini.json"
SAMPLE = SHARED_DATA / "longmemeval_oracle_sample.json"
KS = (1, 3, 5, 10)


def print_retrieval_metrics(log_path, level="session"):
    """LongMemEval's evaluation/print_retrieval_metrics.py logic, written from its definition: the mean of
    each metric over the logged questions, abstention questions (`_abs`) left out. Questions whose answer
    sessions hold no user turn marked has_answer are left out too, as memrecall's official protocol does."""
    sums, count = {}, 0
    for line in log_path.read_text().splitlines():
        entry = json.loads(line)
        if "_abs" in entry["question_id"]:
            continue
        positions = {s: i for i, s in enumerate(entry["haystack_session_ids"])}
        if not any(
            t["role"] == "user" and t.get("has_answer")
            for s in entry["answer_session_ids"]
            for t in entry["haystack_sessions"][positions[s]]
        ):
            continue
        count += 1
        for name, value in entry["retrieval_results"]["metrics"][level].items():
            sums[name] = sums.get(name, 0.0) + value
    return {name: value / count for name, value in sums.items()}, count


def harness(tmp_path, *extra):
    result = run(
        "longmemeval",
        "--data",
        MINI,
        "--protocol",
        "official",
        "--modes",
        "fts5",
        "--quiet",
        "--output",
        tmp_path / "r.json",
        *extra,
    )
    assert result.exit_code == 0, result.output
    return json.loads((tmp_path / "r.json").read_text())["content"]


def test_official_dcg_weighs_rank_one_and_two_alike():
    assert dcg([1, 1, 0, 1], 4) == pytest.approx(1 + 1 / np.log2(2) + 1 / np.log2(4))
    assert evaluate_retrieval(["a", "b", "c"], {"c"}, ["a", "b", "c"], 2) == (0.0, 0.0, 0.0)
    assert evaluate_retrieval(["a", "b", "c"], set(), ["a", "b", "c"], 2)[:2] == (0.0, 1.0)


def test_turn2session_reads_turns_until_k_distinct_sessions():
    ranked = ["s1_1", "s1_3", "s2_1", "s3_1"]
    # k = 2 needs three turns to reach two distinct sessions (s1, s2): s2 is then covered
    assert evaluate_turn2session(ranked, {"s2_1"}, ranked, 2)[0] == 1.0
    assert evaluate_turn2session(ranked, {"s3_1"}, ranked, 2)[0] == 0.0


def test_an_exported_session_log_scored_the_official_way_gives_memrecalls_numbers(tmp_path):
    content = harness(tmp_path, "--export-official-log", tmp_path / "log.jsonl")
    official, count = print_retrieval_metrics(tmp_path / "log.jsonl")
    overall = content["systems"]["fts5"]["results"]["overall"]
    assert count == overall["n"] == 5
    for k in KS:
        assert official[f"recall_all@{k}"] == pytest.approx(overall[f"recall_all@{k}"]["value"], abs=1e-11)
        assert official[f"recall_any@{k}"] == pytest.approx(overall[f"recall@{k}"]["value"], abs=1e-11)
        assert official[f"ndcg_any@{k}"] == pytest.approx(overall[f"ndcg_lme@{k}"]["value"], abs=1e-11)
    line = json.loads((tmp_path / "log.jsonl").read_text().splitlines()[0])
    raw = json.loads(MINI.read_text())[0]
    assert {k: line[k] for k in raw} == raw  # every instance field, unchanged
    results = line["retrieval_results"]
    assert results["query"] == raw["question"] and results["metrics"]["turn"] == {}
    assert set(results["metrics"]["session"]) == {
        f"{m}@{k}" for m in ("recall_any", "recall_all", "ndcg_any") for k in (1, 3, 5, 10, 30, 50)
    }
    assert set(results["ranked_items"][0]) == {"corpus_id", "text", "timestamp"}


def test_an_exported_turn_log_matches_turn_and_turn_to_session_numbers(tmp_path):
    content = harness(tmp_path, "--granularity", "turn", "--export-official-log", tmp_path / "log.jsonl")
    mode = content["systems"]["fts5"]
    turn, _ = print_retrieval_metrics(tmp_path / "log.jsonl", "turn")
    session, _ = print_retrieval_metrics(tmp_path / "log.jsonl", "session")
    for k in KS:
        assert turn[f"recall_any@{k}"] == pytest.approx(mode["results"]["overall"][f"recall@{k}"]["value"], abs=1e-11)
        expected = mode["turn_to_session_results"]["overall"][f"recall_all@{k}"]["value"]
        assert session[f"recall_all@{k}"] == pytest.approx(expected, abs=1e-11)
    ids = [
        item["corpus_id"]
        for item in json.loads((tmp_path / "log.jsonl").read_text().splitlines()[0])["retrieval_results"][
            "ranked_items"
        ]
    ]
    assert all(i.rsplit("_", 1)[1].isdigit() for i in ids)


@pytest.mark.parametrize("granularity", ["session", "turn"])
def test_evaluate_reads_an_official_log_and_says_which_granularity(tmp_path, granularity):
    content = harness(tmp_path, "--granularity", granularity, "--export-official-log", tmp_path / "log.jsonl")
    result = run(
        "evaluate",
        tmp_path / "log.jsonl",
        "--benchmark",
        "longmemeval-official",
        "--data",
        MINI,
        "--output",
        tmp_path / "e.json",
        "--name",
        "fts5",
    )
    assert result.exit_code == 0, result.output
    assert f"read as official LongMemEval retrieval log, {granularity} corpus ids" in result.output
    replayed = json.loads((tmp_path / "e.json").read_text())["content"]["systems"]["fts5"]["results"]
    key = "results" if granularity == "session" else "turn_to_session_results"
    assert replayed["overall"] == content["systems"]["fts5"][key]["overall"]


def test_a_log_from_another_retriever_scores_to_the_official_definitions(tmp_path):
    records = json.loads(MINI.read_text())
    lines = []
    for record in records:
        ids = list(reversed(record["haystack_session_ids"]))  # a deliberately poor retriever
        items = [{"corpus_id": i, "text": "", "timestamp": ""} for i in ids]
        lines.append(
            json.dumps(
                {
                    **record,
                    "retrieval_results": {
                        "query": record["question"],
                        "ranked_items": items,
                        "metrics": {"session": {}, "turn": {}},
                    },
                }
            )
        )
    (tmp_path / "other.jsonl").write_text("\n".join(lines) + "\n")
    result = run(
        "evaluate",
        tmp_path / "other.jsonl",
        "--benchmark",
        "longmemeval",
        "--data",
        MINI,
        "--output",
        tmp_path / "e.json",
    )
    assert result.exit_code == 0, result.output
    overall = json.loads((tmp_path / "e.json").read_text())["content"]["systems"]["other"]["results"]["overall"]
    expected = np.mean(
        [
            evaluate_retrieval(
                list(reversed(r["haystack_session_ids"])), set(r["answer_session_ids"]), r["haystack_session_ids"], 3
            )[0]
            for r in records
        ]
    )
    assert overall["recall@3"]["value"] == pytest.approx(expected, abs=1e-11)


def test_bm25_official_ranks_exactly_as_rank_bm25_run_the_official_way(tmp_path):
    from rank_bm25 import BM25Okapi

    result = run(
        "longmemeval",
        "--data",
        MINI,
        "--protocol",
        "official",
        "--modes",
        "bm25-official",
        "--quiet",
        "--output",
        tmp_path / "r.json",
        "--export-rankings",
        tmp_path / "rk.jsonl",
    )
    assert result.exit_code == 0, result.output
    exported = {
        r["query_id"]: r["ranked_ids"] for r in map(json.loads, (tmp_path / "rk.jsonl").read_text().splitlines())
    }
    for record in json.loads(MINI.read_text()):
        corpus = [" ".join(t["content"] for t in s if t["role"] == "user") for s in record["haystack_sessions"]]
        bm25 = BM25Okapi([text.split(" ") for text in corpus])
        order = np.argsort(bm25.get_scores(record["question"].split(" ")))[::-1]
        assert exported[record["question_id"]] == [record["haystack_session_ids"][i] for i in order]


def test_official_session_text_is_the_user_turns_joined_by_one_space():
    task = load_longmemeval(MINI, "official")
    for record in json.loads(MINI.read_text()):
        texts = {d.id: d.text for d in task.stores[record["question_id"]]}
        for session_id, turns in zip(record["haystack_session_ids"], record["haystack_sessions"], strict=True):
            expected = " ".join(t["content"] for t in turns if t["role"] == "user")
            assert texts[session_id].encode("utf-8") == expected.encode("utf-8")


def test_turn_granularity_ids_gold_and_noans_renames():
    task = load_longmemeval(MINI, "official", granularity="turn")
    query = task.queries[0]
    store = [d.id for d in task.stores[query.store_id]]
    assert store == ["d_garden_1", "e_cat_1", "d_laptop_1", "d_recipe_1"]  # user turns only, index + 1
    assert query.targets == frozenset({"e_cat_1"})
    renamed = [d.id for store in task.stores.values() for d in store if d.id.startswith("noans")]
    assert renamed and all(d.labels["session"] for s in task.stores.values() for d in s)


@pytest.mark.skipif(not SAMPLE.exists(), reason=LONGMEMEVAL_MISSING)
def test_turn_granularity_and_the_oracle_warning_on_the_real_sample(tmp_path):
    task = load_longmemeval(SAMPLE, "official", granularity="turn")
    first = task.queries[0]
    assert sorted(first.targets) == ["answer_a25d4a91_1_5", "answer_a25d4a91_2_1"]
    assert len(task.stores[first.store_id]) == 12
    result = run(
        "longmemeval",
        "--data",
        SAMPLE,
        "--protocol",
        "official",
        "--modes",
        "fts5",
        "--output",
        tmp_path / "r.json",
        "--report-dir",
        tmp_path / "card",
        "--quiet",
    )
    assert result.exit_code == 0, result.output
    assert "oracle split: every haystack session is gold" in result.output
    assert json.loads((tmp_path / "r.json").read_text())["content"]["dataset"]["oracle_split"] is True
    assert "Oracle split: retrieval is trivial; do not quote" in (tmp_path / "card" / "README.md").read_text()


def test_reports_carry_the_manifest_and_compare_names_the_fields_that_differ(tmp_path):
    official = harness(tmp_path)
    assert official["comparability"]["protocol"] == "official"
    assert official["comparability"]["denominator"]["headline_queries"] == 5
    perseus = run("longmemeval", "--data", MINI, "--modes", "fts5", "--quiet", "--output", tmp_path / "p.json")
    assert perseus.exit_code == 0
    refused = run("compare", tmp_path / "r.json", tmp_path / "p.json", "--output", tmp_path / "c.json")
    assert refused.exit_code == 1 and "not like-for-like" in refused.output
    assert "differs: protocol: 'official' vs 'perseus'" in refused.output
    assert "differs: session_representation" in refused.output and not (tmp_path / "c.json").exists()
    allowed = run(
        "compare", tmp_path / "r.json", tmp_path / "p.json", "--output", tmp_path / "c.json", "--allow-mismatch"
    )
    assert allowed.exit_code == 0 and "comparison: not like-for-like" in allowed.output
    assert json.loads((tmp_path / "c.json").read_text())["content"]["label"] == "not like-for-like"
    same = run("compare", tmp_path / "r.json", tmp_path / "r.json", "--output", tmp_path / "s.json")
    assert same.exit_code == 0 and "comparison: like-for-like" in same.output


def test_sufficiency_curves_by_question_type(tmp_path):
    content = harness(tmp_path, "--coverage-k", "5")
    block = content["systems"]["fts5"]["sufficiency"]
    assert block["ks"] == [1, 3, 5]
    update = block["by_group"]["knowledge-update"]
    assert set(update) >= {"any", "all", "latest", "worst_required_rank", "missing_evidence", "partial_evidence"}
    assert "latest" not in block["by_group"]["single-session-user"]
    assert sum(g["n"] for g in block["by_group"].values()) == 5


def test_run_exports_the_official_log_too(tmp_path):
    result = run(
        "run",
        "longmemeval-official",
        "--system",
        "fts5",
        "--data",
        MINI,
        "--quiet",
        "--output",
        tmp_path / "r.json",
        "--export-official-log",
        tmp_path / "log.jsonl",
    )
    assert result.exit_code == 0, result.output
    official, count = print_retrieval_metrics(tmp_path / "log.jsonl")
    overall = json.loads((tmp_path / "r.json").read_text())["content"]["systems"]["fts5"]["results"]["overall"]
    assert count == overall["n"]
    assert official["recall_all@5"] == pytest.approx(overall["recall_all@5"]["value"], abs=1e-11)
    refused = run("run", "epirec", "--system", "fts5", "--export-official-log", tmp_path / "x.jsonl")
    assert refused.exit_code == 2 and "only for the longmemeval benchmarks" in refused.output
