import json

import numpy as np
import pytest
from conftest import MINI_RELEASE, run

from memrecall.reports.content import verify
from memrecall.scoring.metrics import group_rng
from memrecall.scoring.paired import randomisation_p


@pytest.fixture(scope="module")
def exported(tmp_path_factory, embedding_cache):
    out = tmp_path_factory.mktemp("export")
    result = run(
        "baseline",
        "--data",
        MINI_RELEASE,
        "--output",
        out / "baseline.json",
        "--quiet",
        "--strategies",
        "recency,hashing,fts5",
        "--export-rankings",
        out / "rk",
        "--cache-dir",
        embedding_cache,
    )
    assert result.exit_code == 0, result.output
    return out


def evaluate(exported, name, *extra):
    output = exported / f"{name}.eval.json"
    result = run("evaluate", exported / "rk" / f"{name}.jsonl", "--data", MINI_RELEASE, "--output", output, *extra)
    return result, output


@pytest.mark.parametrize("name", ["recency", "hashing", "fts5"])
def test_exported_rankings_replay_to_exactly_the_baseline_numbers(exported, name):
    result, output = evaluate(exported, name)
    assert result.exit_code == 0, result.output
    report = json.loads(output.read_text())
    baseline = json.loads((exported / "baseline.json").read_text())
    assert verify(report)
    assert report["content"]["system_order"] == [name]
    assert report["content"]["systems"][name]["results"] == baseline["content"]["systems"][name]["results"]
    assert report["content"]["task"]["source_sha256"] == baseline["content"]["task"]["source_sha256"]
    assert len(report["content"]["systems"][name]["rankings_sha256"]) == 64


def test_compare_reports_paired_differences_by_probe_type(exported):
    result, output = evaluate(exported, "hashing", "--compare", exported / "rk" / "recency.jsonl")
    assert result.exit_code == 0, result.output
    content = json.loads(output.read_text())["content"]
    assert content["system_order"] == ["hashing", "recency"]
    (only,) = content["comparisons"]
    assert (only["system"], only["baseline"]) == ("recency", "hashing")
    comparison = only["by_group"]
    assert sorted(comparison) == ["factual", "overall", "reflective_explicit", "reflective_implicit"]
    factual = comparison["factual"]["recall@1"]
    # hashing puts every factual target first (8/8); recency only the newest episode of each store (2/8)
    assert (factual["a"], factual["b"], factual["difference"]) == (0.25, 1.0, -0.75)
    assert factual["ci_low"] <= -0.75 <= factual["ci_high"]
    # EpiRec resamples whole stores, and the fixture has two: flipping them can never give p below about 1/2
    assert 0.45 < factual["p_value"] < 0.55
    assert factual["p_holm"] == factual["p_value"]  # one comparison: Holm changes nothing
    assert comparison["overall"]["n"] == 24


def test_trec_run_is_accepted(exported, tmp_path):
    lines = []
    for row in map(json.loads, (exported / "rk" / "hashing.jsonl").read_text().splitlines()):
        for rank, doc in enumerate(row["ranked_episode_ids"], start=1):
            lines.append(f"{row['probe_id']} Q0 {doc} {rank} {10 - rank}.5 hashing")
    trec = tmp_path / "hashing.trec"
    trec.write_text("\n".join(reversed(lines)) + "\n")
    result = run("evaluate", trec, "--data", MINI_RELEASE, "--output", tmp_path / "t.json")
    assert result.exit_code == 0, result.output
    report = json.loads((tmp_path / "t.json").read_text())
    baseline = json.loads((exported / "baseline.json").read_text())
    assert report["content"]["systems"]["hashing"]["results"] == baseline["content"]["systems"]["hashing"]["results"]


def test_every_problem_is_reported_with_its_line_and_no_report_is_written(exported, tmp_path):
    rows = [json.loads(x) for x in (exported / "rk" / "recency.jsonl").read_text().splitlines()]
    rows[1]["ranked_episode_ids"] = rows[1]["ranked_episode_ids"][:3]  # line 2: partial
    rows[2]["ranked_episode_ids"][0] = rows[2]["ranked_episode_ids"][1]  # line 3: repeat
    rows[3]["ranked_episode_ids"][0] = "t01e99"  # line 4: unknown doc
    rows[4]["probe_id"] = "t01e01-f"  # line 5: duplicate query
    rows[5]["persona_id"] = "t02"  # line 6: wrong store
    lines = [json.dumps(r) for r in rows] + ["[1, 2]", "{not json", json.dumps({"probe_id": "x"})]
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join(lines) + "\n")
    output = tmp_path / "never.json"
    result = run("evaluate", bad, "--data", MINI_RELEASE, "--output", output)
    assert result.exit_code == 1
    text = result.output
    for expected in [
        "2 ranking(s) leave out documents of their store; epirec-mini needs every document of the store ranked",
        "(first: line 2: t01e01-x ranks 3 of 4 and leaves out 1 document(s)",
        "line 3: t01e01-i ranks",
        "line 4: t01e02-f ranks unknown id(s) 't01e99'",
        "line 5: query 't01e01-f' already ranked at line 1",
        "line 6: 't01e02-i' belongs to store 't01', not 't02'",
        "line 25: expected a JSON object, got list",
        "line 26 column 2: invalid JSON: Expecting property name enclosed in double quotes",
        "line 27: missing persona_id, ranked_episode_ids",
        "missing query t01e02-x",
    ]:
        assert expected in text, expected
    assert not output.exists()


def test_randomisation_p_values():
    rng = group_rng(0, "x")
    assert randomisation_p(np.zeros(10), rng, 500) == 1.0
    # all 12 differences +1: only the all-plus flip (prob 2^-12) is as extreme in either direction
    assert randomisation_p(np.ones(12), group_rng(0, "y"), 2000) < 0.01


def test_rankings_line_schema_accepts_exported_lines_and_rejects_bad_ones(exported):
    from jsonschema import Draft202012Validator

    from memrecall.corpus.sources import schema

    validator = Draft202012Validator(schema("rankings_line"))
    for line in (exported / "rk" / "fts5.jsonl").read_text().splitlines():
        assert validator.is_valid(json.loads(line))
    assert validator.is_valid({"store_id": "q1", "query_id": "q1", "ranked_ids": ["s1", "s2"]})
    assert not validator.is_valid({"persona_id": "p01", "probe_id": "p01e01-f", "ranked_episode_ids": []})
    assert not validator.is_valid({"persona_id": "p01", "probe_id": "p01e01-f", "ranked_ids": ["x"]})
