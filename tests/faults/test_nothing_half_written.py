"""Promise: a command's outputs land together or not at all; bad locations are found before any work."""

import json
import os
import time

from conftest import MINI_RELEASE, run
from helpers import assert_one_line_error, assert_usage_error, export_hashing


def test_a_report_dir_that_is_a_file_is_found_before_any_work(tmp_path):
    blocker = tmp_path / "card"
    blocker.write_text("not a folder")
    result = run(
        "baseline",
        "--data",
        MINI_RELEASE,
        "--strategies",
        "hashing",
        "--quiet",
        "--output",
        tmp_path / "r.json",
        "--report-dir",
        blocker,
    )
    assert_usage_error(result, "is a file")
    assert not (tmp_path / "r.json").exists()


def test_an_export_folder_that_is_a_file_is_found_before_any_work(tmp_path):
    blocker = tmp_path / "rk"
    blocker.write_text("x")
    result = run(
        "baseline",
        "--data",
        MINI_RELEASE,
        "--strategies",
        "hashing",
        "--quiet",
        "--output",
        tmp_path / "r.json",
        "--export-rankings",
        blocker,
    )
    assert_one_line_error(result, "--export-rankings")
    assert not (tmp_path / "r.json").exists()


def test_a_failure_after_the_first_write_leaves_no_output_at_all(tmp_path, monkeypatch):
    import memrecall.reports.cards.card as report_card

    def broken(report, out):
        raise RuntimeError("figure backend crashed")

    monkeypatch.setattr(report_card, "epirec_figures", broken)
    result = run(
        "baseline",
        "--data",
        MINI_RELEASE,
        "--strategies",
        "hashing",
        "--quiet",
        "--output",
        tmp_path / "r.json",
        "--per-query",
        tmp_path / "pq.jsonl",
        "--export-rankings",
        tmp_path / "rk",
        "--report-dir",
        tmp_path / "card",
    )
    assert isinstance(result.exception, RuntimeError)
    assert not (tmp_path / "r.json").exists() and not (tmp_path / "pq.jsonl").exists()
    assert not (tmp_path / "rk" / "hashing.jsonl").exists()
    assert [p for p in tmp_path.rglob("*") if p.is_file()] == []


def test_ctrl_c_leaves_no_output_and_exits_130(tmp_path, monkeypatch):
    import memrecall.reports.cards.card as report_card

    def interrupted(report, out):
        raise KeyboardInterrupt

    monkeypatch.setattr(report_card, "epirec_figures", interrupted)
    result = run(
        "baseline",
        "--data",
        MINI_RELEASE,
        "--strategies",
        "hashing",
        "--quiet",
        "--output",
        tmp_path / "r.json",
        "--report-dir",
        tmp_path / "card",
    )
    assert result.exit_code == 130 and "interrupted" in result.output
    assert [p for p in tmp_path.rglob("*") if p.is_file()] == []


def test_a_coverage_verdict_still_lands_the_complete_report(tmp_path):
    from helpers import LME

    result = run(
        "longmemeval",
        "--data",
        LME,
        "--modes",
        "fts5",
        "--quiet",
        "--output",
        tmp_path / "r.json",
        "--min-coverage-at",
        "1:1.0",
    )
    assert result.exit_code == 1 and "coverage below floor" in result.output
    assert json.loads((tmp_path / "r.json").read_text())["content"]["systems"]["fts5"]["coverage"]


def test_stale_temp_files_of_an_output_are_cleaned_up(tmp_path):
    rankings = export_hashing(tmp_path)
    stale = tmp_path / ".r.json.abc123.tmp"
    stale.write_text("left by a killed run")
    old = time.time() - 3600
    os.utime(stale, (old, old))
    result = run("evaluate", rankings, "--data", MINI_RELEASE, "--output", tmp_path / "r.json")
    assert result.exit_code == 0, result.output
    assert not stale.exists() and (tmp_path / "r.json").exists()


def test_validate_names_an_interrupted_build_and_build_repairs_it(tmp_path):
    from corpus_factory import persona, write_checkout

    root = write_checkout(tmp_path, [persona(1), persona(2)])
    assert run("build", "--root", root).exit_code == 0
    source = root / "data" / "personas" / "p01.json"
    edited = json.loads(source.read_text())
    edited["episodes"][0]["emotion"] = "content"
    source.write_text(json.dumps(edited))
    from memrecall.corpus.build import generated_files
    from memrecall.corpus.sources import Layout
    from memrecall.corpus.validate import validate_sources

    layout = Layout(root)
    files = generated_files(layout, validate_sources(layout).sources)
    release = layout.release_file(layout.current)
    release.write_text(files[release], encoding="utf-8")  # killed after the first of three renames:
    for staged in (layout.checksums, layout.croissant):  # the other two are still staged beside their targets
        (staged.parent / f".{staged.name}.k1ll3d.tmp").write_text(files[staged], encoding="utf-8")
    result = run("validate", "--root", root)
    assert result.exit_code == 1
    assert "older than the releases: a build was interrupted; `memrecall build` repairs it" in result.output
    assert run("build", "--root", root).exit_code == 0
    assert run("validate", "--root", root).exit_code == 0
