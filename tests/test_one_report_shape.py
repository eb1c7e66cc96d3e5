"""Every command writes the one report shape (systems / system_order, kind "systems"), every report replays with
`verify --rankings`, and verify, compare, report and power still read the old shapes, saying so (issue #44)."""

from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path

import pytest
from conftest import MINI_RELEASE, run

from memrecall.data.jsonfile import read_json
from memrecall.reports.rankings_files import report_files, report_stem

ROOT = Path(__file__).resolve().parents[1]
TINY = ROOT / "examples" / "data"
OLD = Path(__file__).parent / "fixtures" / "old_shapes"
NOTE = "read as an old report shape"


def shape_of(path: Path) -> tuple:
    """(kind, report_schema, the content keys that hold systems) of a written report."""
    content = read_json(Path(path))["content"]
    held = sorted(
        k for k in ("systems", "system_order", "strategies", "strategy_order", "modes", "mode_order") if k in content
    )
    return content["kind"], content["report_schema"], held


def replays(report: Path, rankings: list[Path], data: Path) -> str:
    """The output of `verify --rankings` on the report; it must end `replayed`."""
    result = run("verify", report, "--data", data, *(x for f in rankings for x in ("--rankings", f)))
    assert result.exit_code == 0, result.output
    assert "ok replay:" in result.output and result.output.strip().endswith(": replayed")
    return result.output


ONE_SHAPE = ("systems", 3, ["system_order", "systems"])


def test_run_with_a_comma_list_writes_one_report_paired_against_the_first_and_replays(tmp_path):
    out, rk = tmp_path / "r.json", tmp_path / "rk.jsonl"
    result = run("run", "epirec", "--system", "recency,hashing", "--data", MINI_RELEASE, "--resamples", "100",
                 "--quiet", "--output", out, "--export-rankings", rk)  # fmt: skip
    assert result.exit_code == 0, result.output
    assert shape_of(out) == ONE_SHAPE
    content = json.loads(out.read_text())["content"]
    assert content["system_order"] == ["recency", "hashing"]
    assert [(c["system"], c["baseline"]) for c in content["comparisons"]] == [("hashing", "recency")]
    replays(out, [tmp_path / "rk.recency.jsonl", tmp_path / "rk.hashing.jsonl"], MINI_RELEASE)


def test_run_refuses_one_name_for_several_systems(tmp_path):
    result = run("run", "epirec", "--system", "recency,hashing", "--name", "x", "--data", MINI_RELEASE,
                 "--output", tmp_path / "r.json")  # fmt: skip
    assert result.exit_code == 2 and "names one system; --system lists 2" in result.output
    assert not (tmp_path / "r.json").exists()


def test_baseline_is_run_with_the_ablations_and_replays(tmp_path):
    out, folder = tmp_path / "b.json", tmp_path / "rk"
    names = ["recency", "hashing", "fts5"]
    result = run("baseline", "--data", MINI_RELEASE, "--strategies", ",".join(names), "--resamples", "100",
                 "--quiet", "--output", out, "--export-rankings", folder)  # fmt: skip
    assert result.exit_code == 0, result.output
    assert shape_of(out) == ONE_SHAPE
    same = tmp_path / "same.json"
    ran = run("run", "epirec", "--system", ",".join(names), "--data", MINI_RELEASE, "--resamples", "100",
              "--quiet", "--output", same)  # fmt: skip
    assert ran.exit_code == 0, ran.output
    # no ablation pair among these three: the preset's report is run's, byte for byte in content
    assert json.loads(out.read_text())["content_sha256"] == json.loads(same.read_text())["content_sha256"]
    replays(out, [folder / f"{n}.jsonl" for n in names], MINI_RELEASE)


@pytest.mark.parametrize(
    ("command", "data", "extra"),
    [
        ("longmemeval", TINY / "longmemeval_tiny.json", []),
        ("longmemeval", TINY / "longmemeval_tiny.json", ["--granularity", "turn"]),
        ("locomo", TINY / "locomo_tiny.json", ["--granularity", "session"]),
        ("locomo", TINY / "locomo_tiny.json", ["--granularity", "turn"]),
    ],
)
def test_the_harness_presets_write_the_one_shape_with_diagnostics_and_replay(tmp_path, command, data, extra):
    out, rk = tmp_path / "h.json", tmp_path / "h.jsonl"
    result = run(command, "--data", data, "--modes", "fts5,bm25-official", *extra, "--coverage-k", "5",
                 "--resamples", "100", "--quiet", "--output", out, "--export-rankings", rk)  # fmt: skip
    assert result.exit_code == 0, result.output
    assert shape_of(out) == ONE_SHAPE
    content = json.loads(out.read_text())["content"]
    assert content["diagnostics"] == {"ks": [1, 3, 5, 10], "coverage_depth": 5}
    for name in ("fts5", "bm25-official"):
        entry = content["systems"][name]
        assert {"results", "rankings_sha256", "recall_curve", "token_efficiency", "coverage", "sufficiency"} <= set(
            entry
        )
        assert ("turn_to_session_results" in entry) == (extra[-1:] == ["turn"])
    replays(out, [tmp_path / "h.fts5.jsonl", tmp_path / "h.bm25-official.jsonl"], data)


def test_evaluate_and_compare_write_the_one_shape(tmp_path):
    rk = tmp_path / "rk.jsonl"
    made = run("run", "epirec", "--system", "recency,hashing", "--data", MINI_RELEASE, "--resamples", "100",
               "--quiet", "--output", tmp_path / "r.json", "--export-rankings", rk)  # fmt: skip
    assert made.exit_code == 0, made.output
    files = [tmp_path / "rk.recency.jsonl", tmp_path / "rk.hashing.jsonl"]
    evaluated = run("evaluate", files[0], "--benchmark", "epirec", "--data", MINI_RELEASE, "--resamples", "100",
                    "--output", tmp_path / "e.json")  # fmt: skip
    assert evaluated.exit_code == 0, evaluated.output
    assert shape_of(tmp_path / "e.json") == ONE_SHAPE
    compared = run("compare", *files, "--names", "recency,hashing", "--data", MINI_RELEASE, "--resamples", "100",
                   "--output", tmp_path / "c.json")  # fmt: skip
    assert compared.exit_code == 0, compared.output
    assert shape_of(tmp_path / "c.json") == ONE_SHAPE


def test_sweep_writes_the_one_shape(tmp_path):
    result = run("sweep", "--systems", "recency", "--benchmarks", "epirec-v1", "--resamples", "100",
                 "--out", tmp_path / "sweep")  # fmt: skip
    assert result.exit_code == 0, result.output
    assert shape_of(tmp_path / "sweep" / "epirec-v1" / "recency.report.json") == ONE_SHAPE


# --- the old shapes, read by verify, compare, report and power through the one normaliser -----------------------


@pytest.mark.parametrize(("name", "shape"), [("baseline_strategies", "strategies"), ("locomo_modes", "modes")])
def test_verify_reads_an_old_shape_and_says_so(name, shape):
    result = run("verify", OLD / f"{name}.json")
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[0] == f"note: {NOTE} ({shape}); regenerate it for a replay with this version"
    assert "ok fingerprint:" in result.output
    assert ("code fts5:" if shape == "modes" else "code recency:") in result.output


def test_an_old_shape_is_not_replayed_but_says_why(tmp_path):
    rankings = [tmp_path / "recency.jsonl", tmp_path / "hashing.jsonl"]
    old = json.loads((OLD / "baseline_strategies.json").read_text())["content"]
    made = run("run", "epirec", "--system", "recency,hashing", "--data", MINI_RELEASE, "--resamples", "100",
               "--quiet", "--output", tmp_path / "r.json", "--export-rankings", tmp_path / "x.jsonl")  # fmt: skip
    assert made.exit_code == 0 and old["strategy_order"] == ["recency", "hashing"]
    for name, path in zip(old["strategy_order"], rankings, strict=True):
        shutil.copyfile(tmp_path / f"x.{name}.jsonl", path)
    result = run("verify", OLD / "baseline_strategies.json", "--data", MINI_RELEASE,
                 *(x for f in rankings for x in ("--rankings", f)))  # fmt: skip
    assert result.exit_code == 1
    assert f"FAIL replay: {NOTE} (strategies)" in result.output


@pytest.mark.parametrize(("name", "shape"), [("baseline_strategies", "strategies"), ("locomo_modes", "modes")])
def test_report_renders_an_old_shape_and_says_so(tmp_path, name, shape):
    result = run("report", OLD / f"{name}.json", "--out", tmp_path / "card")
    assert result.exit_code == 0, result.output
    assert f"note: {OLD / f'{name}.json'}: {NOTE} ({shape})" in result.output
    card = (tmp_path / "card" / "README.md").read_text()
    first = "recency" if shape == "strategies" else "fts5"
    assert f"| {first} |" in card


def test_compare_reads_an_old_baseline_beside_a_new_run_and_says_so(tmp_path):
    made = run("run", "epirec", "--system", "recency", "--data", MINI_RELEASE, "--resamples", "100", "--quiet",
               "--output", tmp_path / "r.json")  # fmt: skip
    assert made.exit_code == 0, made.output
    old = OLD / "baseline_strategies.json"
    result = run("compare", old, tmp_path / "r.json", "--allow-mismatch", "--output", tmp_path / "c.json")
    assert result.exit_code == 0, result.output
    assert f"note: {old}: {NOTE} (strategies)" in result.output
    headline = json.loads((tmp_path / "c.json").read_text())["content"]["reports"][0]["headline"]
    assert sorted(headline) == ["hashing", "recency"]


def test_power_reads_an_old_shape_says_so_and_names_the_binding_it_lacks(tmp_path):
    rankings = tmp_path / "recency.jsonl"
    made = run("run", "epirec", "--system", "recency,hashing", "--data", MINI_RELEASE, "--resamples", "100",
               "--quiet", "--output", tmp_path / "r.json", "--export-rankings", tmp_path / "x.jsonl")  # fmt: skip
    assert made.exit_code == 0, made.output
    shutil.copyfile(tmp_path / "x.recency.jsonl", rankings)
    shutil.copyfile(tmp_path / "x.hashing.jsonl", tmp_path / "hashing.jsonl")
    old = OLD / "baseline_strategies.json"
    result = run("power", old, "--rankings", rankings, "--rankings", tmp_path / "hashing.jsonl", "--data",
                 MINI_RELEASE)  # fmt: skip
    assert f"note: {old}: {NOTE} (strategies)" in result.output


# --- the committed leaderboard entries replay from their own rankings --------------------------------------------

ENTRIES = ROOT / "site" / "leaderboard" / "entries"
LEADERBOARD = importlib.util.spec_from_file_location("leaderboard_script", ROOT / "scripts" / "leaderboard.py")
leaderboard_script = importlib.util.module_from_spec(LEADERBOARD)
LEADERBOARD.loader.exec_module(leaderboard_script)
SHARED_FILES = leaderboard_script.SHARED_FILES  # each benchmark's real data under ../shared/data, named once
COMMITTED = [p for p in report_files(ENTRIES, pattern="*/*") if p.parent.name.startswith(("epirec", "locomo"))]


@pytest.mark.slow
@pytest.mark.parametrize("path", COMMITTED, ids=lambda p: f"{p.parent.name}/{report_stem(p)}")
def test_every_committed_entry_replays_from_its_rankings(path):
    from memrecall.reports.proof.verification import report_state, verify_report
    from memrecall.reports.rankings_files import rankings_beside_report

    report = read_json(path)
    assert shape_of(path) == ONE_SHAPE
    data = ROOT / "data" / f"epirec_{path.parent.name.removeprefix('epirec-')}.json"
    if not report["content"]["benchmark"].startswith("epirec"):
        from conftest import shared_file

        data = shared_file(SHARED_FILES[report["content"]["benchmark"]])
    checks = verify_report(report, rankings=[rankings_beside_report(path)], data=data)
    assert report_state(report, checks) == "replayed", checks[-1]
