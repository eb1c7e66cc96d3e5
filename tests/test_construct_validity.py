"""scripts/construct_validity.py on committed leaderboard entries: its tau is the reports' own numbers' tau."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from scipy.stats import kendalltau

ROOT = Path(__file__).resolve().parents[1]
ENTRIES = ROOT / "docs" / "leaderboard" / "entries"
SCRIPT = ROOT / "scripts" / "construct_validity.py"
SYSTEMS = ("dense", "fts5", "hashing", "hybrid", "recency")


def copy_runs(target: Path, folder: str, systems=SYSTEMS, into: str | None = None) -> None:
    """Copy the committed files of some systems' runs on one benchmark into target/(into or folder)."""
    (target / (into or folder)).mkdir(parents=True, exist_ok=True)
    for system in systems:
        for path in (ENTRIES / folder).glob(f"{system}.*"):
            if path.name.split(".")[1] in ("report", "rankings", "scores"):
                shutil.copyfile(path, target / (into or folder) / path.name)


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, cwd=ROOT)


def value(folder: str, system: str, group: str | None, metric: str) -> float:
    results = json.loads((ENTRIES / folder / f"{system}.report.json").read_text())["content"]["systems"][system]
    row = results["results"]["by_probe_type"][group] if group else results["results"]["overall"]
    return row[metric]["value"]


@pytest.fixture(scope="module")
def outcome(tmp_path_factory) -> tuple[Path, dict, str]:
    runs = tmp_path_factory.mktemp("runs")
    copy_runs(runs, "epirec-v3")
    copy_runs(runs, "locomo")
    out = runs / "out.json"
    done = run("--runs", str(runs), "--out", str(out))
    assert done.returncode == 0, done.stderr
    return runs, json.loads(out.read_text()), out.read_text()


def test_the_factual_locomo_tau_is_that_of_the_reports_numbers(outcome) -> None:
    _, result, _ = outcome
    (found,) = [c for c in result["comparisons"] if c["kind"] == "primary" and c["outside"] == "locomo recall@3"]
    shared = found["shared_rows"]
    assert sorted(shared["values"]) == sorted(SYSTEMS)
    epirec = [value("epirec-v3", s, "factual", "recall@3") for s in sorted(SYSTEMS)]
    locomo = [value("locomo", s, None, "recall@3") for s in sorted(SYSTEMS)]
    assert [shared["values"][s] for s in sorted(SYSTEMS)] == [
        [round(a, 6), round(b, 6)] for a, b in zip(epirec, locomo, strict=True)
    ]
    assert shared["tau_b"] == round(kendalltau(epirec, locomo).statistic, 6)
    assert shared["ci_low"] <= shared["ci_high"]
    assert found["rows_every_primary_benchmark_shares"] is None  # no Locomo-Plus or REALTALK runs given


def test_benchmarks_without_runs_are_named_and_the_output_repeats_byte_for_byte(outcome) -> None:
    runs, result, text = outcome
    missing = {c["outside"] for c in result["comparisons"] if c.get("missing")}
    assert "locomo-plus recall@3" in missing and "realtalk recall@3" in missing
    again = runs / "again.json"
    assert run("--runs", str(runs), "--out", str(again)).returncode == 0
    assert again.read_text() == text


def test_a_run_in_the_wrong_benchmark_folder_is_refused(tmp_path) -> None:
    copy_runs(tmp_path, "epirec-v3", ("dense",))
    copy_runs(tmp_path, "locomo", ("dense",), into="realtalk")
    out = tmp_path / "out.json"
    done = run("--runs", str(tmp_path), "--out", str(out))
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        f"construct_validity: {tmp_path / 'realtalk' / 'dense.report.json'}: a run of locomo session, not of realtalk"
    ]
    assert not out.exists()
