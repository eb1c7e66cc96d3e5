"""epirec-v1, epirec-v2 and epirec-v3 name EpiRec on one bundled release wherever a benchmark name is taken."""

from __future__ import annotations

import json

import pytest
from conftest import run

from memrecall.benchmarks import RELEASE_ALIASES, get_benchmark
from memrecall.data.releases import RELEASES, bundled_release

VERSIONS = {"epirec-v1": "1.0", "epirec-v2": "2.0", "epirec-v3": "3.0"}


def test_there_is_one_alias_per_bundled_release_and_each_defaults_to_its_file():
    assert sorted(RELEASE_ALIASES) == sorted(VERSIONS)
    for alias, release in zip(sorted(RELEASE_ALIASES), sorted(RELEASES), strict=True):
        bench = get_benchmark(alias)
        assert bench.name == "epirec"  # reports name the benchmark, the dataset names the release
        assert bench.resolve_data(None).resolve() == bundled_release(release).resolve()
        assert bench.require_full_rankings and bench.scoring() == get_benchmark("epirec").scoring()


def test_an_unknown_name_lists_the_aliases():
    with pytest.raises(Exception, match="epirec-v1, epirec-v2, epirec-v3"):
        get_benchmark("epirec-v9")


@pytest.mark.parametrize("alias", ["epirec-v1", "epirec-v2"])
def test_run_evaluate_compare_and_qrels_take_an_alias(tmp_path, alias):
    report_path, rankings = tmp_path / "r.json", tmp_path / "r.jsonl"
    options = ["--resamples", "100", "--quiet", "--output", report_path, "--export-rankings", rankings]
    ran = run("run", alias, "--system", "recency", *options)
    assert ran.exit_code == 0, ran.output
    content = json.loads(report_path.read_text())["content"]
    assert content["benchmark"] == "epirec" and content["task"]["version"] == VERSIONS[alias]
    again = run("evaluate", rankings, "--benchmark", alias, "--resamples", "100", "--output", tmp_path / "e.json")
    assert again.exit_code == 0, again.output
    evaluated = json.loads((tmp_path / "e.json").read_text())["content"]
    (name,) = evaluated["system_order"]
    assert evaluated["systems"][name]["results"] == content["systems"]["recency"]["results"]
    compared = run("compare", rankings, rankings, "--names", "a,b", "--benchmark", alias, "--resamples", "100")
    assert compared.exit_code == 0, compared.output
    qrels = run("qrels", alias, "--out", tmp_path / "q.txt")
    assert qrels.exit_code == 0, qrels.output
    assert len((tmp_path / "q.txt").read_text().splitlines()) == content["task"]["queries"] == 504


def test_the_api_takes_an_alias():
    from memrecall import run_system

    result = run_system("recency", "epirec-v1", resamples=100)
    assert result.report["content"]["task"]["version"] == "1.0"
