import json

import pytest
from click.testing import CliRunner
from conftest import MINI_RELEASE

from memrecall.cli import main
from memrecall.reports.content import verify


@pytest.fixture(scope="module")
def baseline_run(tmp_path_factory, embedding_cache):
    out = tmp_path_factory.mktemp("baseline")
    args = [
        "baseline",
        "--data",
        str(MINI_RELEASE),
        "--output",
        str(out / "report.json"),
        "--export-rankings",
        str(out / "rankings"),
        "--cache-dir",
        str(embedding_cache),
    ]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    return out, result


def test_help_lists_commands_and_version_prints():
    runner = CliRunner()
    assert "baseline" in runner.invoke(main, ["--help"]).output
    assert runner.invoke(main, ["--version"]).output.strip() == "memrecall, version 0.1.0"


@pytest.mark.slow
def test_baseline_report_numbers_match_hand_computation(baseline_run):
    out, _ = baseline_run
    report = json.loads((out / "report.json").read_text())
    assert verify(report)
    content = report["content"]
    assert content["system_order"] == ["recency", "hashing", "dense", "fts5", "hybrid"]
    recency = content["systems"]["recency"]["results"]
    # each 4-episode store is ranked newest first: only the oldest episode misses the top 3
    for probe_type in ("factual", "reflective_explicit", "reflective_implicit"):
        row = recency["by_probe_type"][probe_type]
        assert row["n"] == 8
        assert row["recall@3"]["value"] == 0.75
        assert row["recall@1"]["value"] == 0.25
        assert row["mrr"]["value"] == pytest.approx((1 + 1 / 2 + 1 / 3 + 1 / 4) / 4)
    assert recency["overall"]["n"] == 24
    assert (
        recency["by_probe_type_x_age_bucket"]["factual/short"]["recall@1"]["value"] == 0.666666666667
    )  # 2/3 to 12 digits
    assert content["task"]["queries"] == 24
    assert content["systems"]["dense"]["encoder"]["id"] == "sentence-transformers/all-MiniLM-L6-v2"
    assert len(content["task"]["source_sha256"]) == 64


@pytest.mark.slow
def test_baseline_prints_the_table_with_every_strategy(baseline_run):
    _, result = baseline_run
    for name in ("recency", "hashing", "dense", "fts5", "hybrid", "reflective_implicit", "recall@3 [95% CI]"):
        assert name in result.output


def test_exported_rankings_are_full_permutations(baseline_run):
    out, _ = baseline_run
    lines = (out / "rankings" / "hashing.jsonl").read_text().splitlines()
    assert len(lines) == 24
    row = json.loads(lines[0])
    assert sorted(row) == ["persona_id", "probe_id", "ranked_episode_ids"]
    assert sorted(row["ranked_episode_ids"]) == ["t01e01", "t01e02", "t01e03", "t01e04"]


@pytest.mark.slow
def test_same_inputs_give_a_byte_identical_report_content(baseline_run, tmp_path, embedding_cache):
    out, _ = baseline_run
    args = [
        "baseline",
        "--data",
        str(MINI_RELEASE),
        "--output",
        str(tmp_path / "again.json"),
        "--quiet",
        "--strategies",
        "recency,hashing,dense,fts5,hybrid",
        "--cache-dir",
        str(embedding_cache),
    ]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0
    first = json.loads((out / "report.json").read_text())
    second = json.loads((tmp_path / "again.json").read_text())
    assert first["content_sha256"] == second["content_sha256"]
    assert json.dumps(first["content"], sort_keys=True) == json.dumps(second["content"], sort_keys=True)


def test_unknown_strategy_and_missing_data_fail_with_one_line(tmp_path):
    runner = CliRunner()
    bad = runner.invoke(
        main,
        [
            "baseline",
            "--data",
            str(MINI_RELEASE),
            "--strategies",
            "recency,bogus",
            "--output",
            str(tmp_path / "r.json"),
        ],
    )
    assert bad.exit_code == 2
    assert "unknown strategy 'bogus'" in bad.output
    assert not (tmp_path / "r.json").exists()
    missing = runner.invoke(main, ["baseline", "--data", str(tmp_path / "nope.json")])
    assert missing.exit_code == 2
    assert "does not exist" in missing.output


def test_broken_release_exits_1_naming_the_path(tmp_path):
    broken = json.loads(MINI_RELEASE.read_text())
    broken["personas"][0]["episodes"][2]["date_time"] = "yesterday"
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(broken))
    result = CliRunner().invoke(main, ["baseline", "--data", str(path), "--output", str(tmp_path / "r.json")])
    assert result.exit_code == 1
    assert "personas[0].episodes[2].date_time" in result.output
    assert not (tmp_path / "r.json").exists()
