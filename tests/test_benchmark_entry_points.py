"""Other packages register whole benchmarks under `memrecall.benchmarks`; clashes and broken ones are one line."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import pytest
from conftest import run

from memrecall.benchmarks import BENCHMARKS, RELEASE_ALIASES, get_benchmark
from memrecall.errors import ConfigError

SAMPLE = Path(__file__).resolve().parents[1] / "examples" / "data" / "beir_memory"
PACKAGE = """
from dataclasses import replace

from memrecall.benchmarks import get_benchmark

LOGS = replace(get_benchmark("beir"), name="acme-logs", summary="Acme's support logs in BEIR's layout")
NOT_A_BENCHMARK = 3
MISNAMED = replace(LOGS, name="something-else")


def make_logs():
    return replace(LOGS, name="acme-factory")
"""


def install(tmp_path: Path, monkeypatch, entries: str) -> Path:
    """A fake installed distribution (a *.dist-info folder with entry_points.txt) on sys.path."""
    site = tmp_path / "site"
    (site / "acme_bench").mkdir(parents=True)
    (site / "acme_bench" / "__init__.py").write_text(textwrap.dedent(PACKAGE))
    info = site / "acme_bench-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: acme-bench\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[memrecall.benchmarks]\n" + textwrap.dedent(entries))
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.delitem(sys.modules, "acme_bench", raising=False)
    return site


def test_a_registered_benchmark_runs_and_evaluates_by_its_name(tmp_path, monkeypatch):
    install(tmp_path, monkeypatch, "acme-logs = acme_bench:LOGS\nacme-factory = acme_bench:make_logs\n")
    assert get_benchmark("acme-factory").name == "acme-factory"
    result = run("run", "acme-logs", "--data", SAMPLE, "--system", "fts5", "--quiet", "--output", tmp_path / "r.json",
                 "--export-rankings", tmp_path / "r.jsonl")  # fmt: skip
    assert result.exit_code == 0, result.output
    content = json.loads((tmp_path / "r.json").read_text())["content"]
    assert content["benchmark"] == "acme-logs" and content["task"]["queries"] == 9
    scored = run("evaluate", tmp_path / "r.jsonl", "--benchmark", "acme-logs", "--data", SAMPLE, "--name", "fts5",
                 "--output", tmp_path / "e.json")  # fmt: skip
    assert scored.exit_code == 0, scored.output
    unknown = run("run", "acme-log", "--data", SAMPLE, "--system", "fts5", "--quiet")
    assert unknown.exit_code == 2
    known = ", ".join([*BENCHMARKS, *RELEASE_ALIASES, "acme-factory", "acme-logs"])
    assert f"unknown benchmark 'acme-log'; choose from {known}" in unknown.output


@pytest.mark.parametrize("taken", ["epirec", "beir", "epirec-v2"])  # a built-in benchmark and a release alias
def test_a_name_that_clashes_with_a_built_in_is_one_line(tmp_path, monkeypatch, taken):
    install(tmp_path, monkeypatch, f"{taken} = acme_bench:LOGS\n")
    result = run("run", "beir", "--data", SAMPLE, "--system", "fts5", "--quiet", "--output", tmp_path / "r.json")
    assert result.exit_code == 1 and result.output.strip().count("\n") == 0, result.output
    assert (
        f"benchmark entry point '{taken}' (acme_bench:LOGS, group memrecall.benchmarks) has the name of a built-in "
        "benchmark; rename it" in result.output
    )
    assert not (tmp_path / "r.json").exists()


@pytest.mark.parametrize(
    ("target", "expected"),
    [
        ("acme_missing:LOGS", "cannot load it: ModuleNotFoundError: No module named 'acme_missing'"),
        ("acme_bench:NOPE", "cannot load it: AttributeError"),
        ("acme_bench:NOT_A_BENCHMARK", "expected a memrecall.benchmarks.Benchmark, got int"),
        ("acme_bench:MISNAMED", "the object it gives is named 'something-else'; the names must agree"),
    ],
)
def test_a_broken_entry_point_is_one_line_naming_it(tmp_path, monkeypatch, target, expected):
    install(tmp_path, monkeypatch, f"acme-logs = {target}\n")
    with pytest.raises(ConfigError) as caught:
        get_benchmark("acme-logs")
    prefix = f"benchmark entry point 'acme-logs' ({target}, group memrecall.benchmarks): "
    assert str(caught.value).startswith(prefix + expected), str(caught.value)
    result = run("run", "acme-logs", "--data", SAMPLE, "--system", "fts5", "--quiet", "--output", tmp_path / "r.json")
    assert result.exit_code == 1 and result.output.strip().count("\n") == 0, result.output
    assert expected in result.output and not (tmp_path / "r.json").exists()
    assert get_benchmark("beir").name == "beir"  # a broken plug-in never blocks the others
