"""scripts/construct_validity.py on committed leaderboard entries: its tau is the reports' own numbers' tau."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from scipy.stats import kendalltau

from memrecall.data.jsonfile import read_json

ROOT = Path(__file__).resolve().parents[1]
ENTRIES = ROOT / "site" / "leaderboard" / "entries"
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
    results = read_json(ENTRIES / folder / f"{system}.report.json.gz")["content"]["systems"][system]
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
        f"construct_validity: {tmp_path / 'realtalk' / 'dense.report.json.gz'}: a run of locomo session, not of "
        "realtalk"
    ]
    assert not out.exists()


def test_the_committed_page_shows_the_committed_json() -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location("construct_validity", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks itself up there
    spec.loader.exec_module(module)
    result = json.loads(module.OUT.read_text(encoding="utf-8"))
    page = module.DOC.read_text(encoding="utf-8")
    assert module.with_table(module.DOC, module.markdown(result)) == page
    primary = [c for c in result["comparisons"] if c["kind"] == "primary"]
    assert [(c["epirec"], c["outside"]) for c in primary] == [
        ("epirec-v3 reflective_implicit recall@3", "locomo-plus recall@3"),
        ("epirec-v3 factual recall@3", "realtalk recall@3"),
        ("epirec-v3 factual recall@3", "locomo recall@3"),
    ]


def test_a_page_without_the_table_markers_is_refused_and_nothing_is_written(tmp_path) -> None:
    copy_runs(tmp_path, "epirec-v3", ("dense", "fts5", "recency"))
    copy_runs(tmp_path, "locomo", ("dense", "fts5", "recency"))
    page = tmp_path / "page.md"
    page.write_text("# no markers\n", encoding="utf-8")
    out = tmp_path / "out.json"
    done = run("--runs", str(tmp_path), "--out", str(out), "--doc", str(page))
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        f"construct_validity: {page}: needs one <!-- construct-validity-table --> line and one "
        "<!-- /construct-validity-table --> line after it"
    ]
    assert not out.exists() and page.read_text(encoding="utf-8") == "# no markers\n"
