"""memrecall compare: named systems, paired differences against the first, Holm across comparisons."""

import json

import pytest
from conftest import FIXTURES, MINI_RELEASE, run

from memrecall.scoring.paired import format_p, holm_adjust

LOCOMO = FIXTURES / "locomo_mini.json"


def test_holm_adjustment_is_step_down_and_monotone():
    assert holm_adjust([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert holm_adjust([0.5, 0.9]) == [1.0, 1.0]
    assert holm_adjust([0.02]) == [0.02]


def test_p_values_at_the_permutation_floor_print_as_a_bound():
    assert format_p(1 / 2001) == "p < 0.0005"
    assert format_p(0.0312) == "p=0.031"


@pytest.fixture(scope="module")
def three_runs(tmp_path_factory, embedding_cache):
    out = tmp_path_factory.mktemp("three")
    result = run(
        "baseline",
        "--data",
        MINI_RELEASE,
        "--quiet",
        "--strategies",
        "hashing,fts5,recency",
        "--output",
        out / "b.json",
        "--export-rankings",
        out / "rk",
        "--cache-dir",
        embedding_cache,
    )
    assert result.exit_code == 0, result.output
    return out


def test_three_systems_each_against_the_first_with_names_and_holm(three_runs, tmp_path):
    rk = three_runs / "rk"
    result = run(
        "compare",
        rk / "hashing.jsonl",
        rk / "fts5.jsonl",
        rk / "recency.jsonl",
        "--names",
        "hash,bm25,newest",
        "--data",
        MINI_RELEASE,
        "--output",
        tmp_path / "c.json",
        "--report-dir",
        tmp_path / "card",
    )
    assert result.exit_code == 0, result.output
    content = json.loads((tmp_path / "c.json").read_text())["content"]
    assert content["system_order"] == ["hash", "bm25", "newest"]
    assert [(c["system"], c["baseline"]) for c in content["comparisons"]] == [("bm25", "hash"), ("newest", "hash")]
    baseline = json.loads((three_runs / "b.json").read_text())["content"]["systems"]
    for name, strategy in (("hash", "hashing"), ("bm25", "fts5"), ("newest", "recency")):
        assert content["systems"][name]["results"] == baseline[strategy]["results"]
    first, second = (c["by_group"]["factual"]["recall@1"] for c in content["comparisons"])
    raw = sorted([first["p_value"], second["p_value"]])
    assert sorted([first["p_holm"], second["p_holm"]]) == pytest.approx(
        [min(1, 2 * raw[0]), max(min(1, 2 * raw[0]), raw[1])]
    )
    card = (tmp_path / "card" / "README.md").read_text()
    assert "## Paired differences against hash (recall@3)" in card
    assert "| newest - hash | factual |" in card
    assert "newest minus hash" in result.output


def test_compare_overall_covers_the_headline_queries_only(tmp_path):
    export = run(
        "locomo",
        "--data",
        LOCOMO,
        "--modes",
        "fts5",
        "--quiet",
        "--output",
        tmp_path / "r.json",
        "--export-rankings",
        tmp_path / "a.jsonl",
    )
    assert export.exit_code == 0, export.output
    rows = [json.loads(line) for line in (tmp_path / "a.jsonl").read_text().splitlines()]
    (tmp_path / "b.jsonl").write_text(
        "".join(json.dumps({**r, "ranked_ids": r["ranked_ids"][::-1]}) + "\n" for r in rows)
    )
    result = run(
        "compare",
        tmp_path / "a.jsonl",
        tmp_path / "b.jsonl",
        "--benchmark",
        "locomo",
        "--data",
        LOCOMO,
        "--output",
        tmp_path / "c.json",
    )
    assert result.exit_code == 0, result.output
    content = json.loads((tmp_path / "c.json").read_text())["content"]
    overall = content["systems"]["a"]["results"]["overall"]
    paired = content["comparisons"][0]["by_group"]["overall"]
    # 8 questions with evidence, one of them category 5 (adversarial): 7 in the headline
    assert overall["n"] == paired["n"] == 7
    assert paired["recall@1"]["b"] == overall["recall@1"]["value"]


def test_names_must_match_the_runs_and_differ(three_runs, tmp_path):
    rk = three_runs / "rk"
    short = run(
        "compare",
        rk / "hashing.jsonl",
        rk / "fts5.jsonl",
        "--names",
        "one",
        "--data",
        MINI_RELEASE,
        "--output",
        tmp_path / "c.json",
    )
    assert short.exit_code == 1 and "1 name(s) for 2 rankings source(s)" in short.output
    same = run(
        "compare",
        rk / "hashing.jsonl",
        rk / "fts5.jsonl",
        "--names",
        "x,x",
        "--data",
        MINI_RELEASE,
        "--output",
        tmp_path / "c.json",
    )
    assert same.exit_code == 1 and "system names must differ" in same.output
    assert not (tmp_path / "c.json").exists()
