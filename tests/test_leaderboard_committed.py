"""site/leaderboard/ is exactly what its committed entries rebuild to, and its entries are ours to commit."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest

from memrecall.reports.rankings_files import report_files, report_stem

ROOT = Path(__file__).resolve().parents[1]
ENTRIES = ROOT / "site" / "leaderboard" / "entries"


@pytest.mark.slow
def test_the_committed_page_rebuilds_byte_for_byte():
    command = [sys.executable, "scripts/site.py", "check", "leaderboard"]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "site check: leaderboard: site/ is what its commands make" in done.stdout


def test_committed_locomo_files_hold_ids_and_numbers_only():
    folders = [ENTRIES / "locomo", ENTRIES / "locomo-turn"]
    assert all(f.is_dir() for f in folders)
    for folder in folders:
        rankings = sorted(folder.glob("*.rankings.jsonl.gz"))
        reports = report_files(folder)
        assert len(reports) >= 24 and not list(folder.glob("*.rankings.jsonl")), folder
        stems = [r.name.removesuffix(".rankings.jsonl.gz") for r in rankings]
        assert [report_stem(r) for r in reports] == stems, folder  # one gzip rankings file per report, nothing else
        for path in rankings:
            stores = {}
            for line in gzip.decompress(path.read_bytes()).decode("utf-8").splitlines():
                row = json.loads(line)
                assert sorted(row) == ["query_id", "ranked_ids", "store_id"], path
                assert all(":" in i or i.startswith("session_") for i in row["ranked_ids"][:3]), path
                stores[row["query_id"]] = row["store_id"]
            scores = path.with_name(path.name.replace(".rankings.jsonl.gz", ".scores.jsonl.gz"))
            for line in gzip.decompress(scores.read_bytes()).decode("utf-8").splitlines():
                row = json.loads(line)
                # LoCoMo resamples whole conversations, so each score row names its store
                assert sorted(row) == ["group", "query_id", "store_id", "values"] and row["group"] is None, scores
                assert row["store_id"] == stores[row["query_id"]], scores
                assert all(isinstance(v, float) for v in row["values"].values()), scores


@pytest.mark.slow
def test_committed_rankings_are_deterministic_gzip_at_the_scoring_depth():
    for path in sorted(ENTRIES.rglob("*.rankings.jsonl.gz")):
        data = path.read_bytes()
        # gzip header: deflate, no file name or other flags, mtime 0, maximum compression (the OS byte is Python's)
        assert data[:9] == b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02", path
        if path.parent.name.startswith("locomo"):
            rows = [json.loads(line) for line in gzip.decompress(data).decode("utf-8").splitlines()]
            assert max(len(r["ranked_ids"]) for r in rows) == 10, path


def test_committed_scores_are_one_deterministic_gzip_file_per_report():
    from memrecall.io import deflated

    reports = report_files(ENTRIES, pattern="**/*")
    assert len(reports) > 200 and not list(ENTRIES.rglob("*.scores.jsonl"))  # no plain scores file is left
    for report in reports:
        path = report.with_name(f"{report_stem(report)}.scores.jsonl.gz")
        data = path.read_bytes()
        assert data[:9] == b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02", path  # as the rankings: no name, mtime 0
        assert deflated(gzip.decompress(data)) == data, path  # so a rescore writes the same bytes


def test_committed_reports_are_one_deterministic_gzip_json_line_each():
    """As scripts/leaderboard.py store_entry writes them: SYSTEM.report.json.gz, the deflated bytes of the report's
    one canonical JSON line (io.write_json_line), and no plain SYSTEM.report.json left beside them."""
    from memrecall.io import deflated, jsonl_line

    reports = sorted(ENTRIES.rglob("*.report.json*"))
    assert len(reports) > 200 and all(p.name.endswith(".report.json.gz") for p in reports)
    for path in reports:
        data = path.read_bytes()
        assert data[:9] == b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02", path
        text = gzip.decompress(data)
        assert deflated(text) == data, path
        assert text.decode("utf-8") == jsonl_line(json.loads(text)) + "\n", path


def test_only_tables_of_too_few_stores_warn_that_nothing_can_separate():
    page = (ENTRIES.parent / "index.html").read_text(encoding="utf-8")
    sections = {part.split('"', 1)[0]: part for part in page.split('<h2 id="')[1:]}
    warned = sorted(slug for slug, text in sections.items() if "too few independent stores" in text)
    assert {"locomo-session", "locomo-turn-turn"} <= set(warned)  # 10 conversations, 44 rows
    stores = {
        slug: int(text.split("Its queries come from ", 1)[1].split(" stores", 1)[0])
        for slug, text in sections.items()
        if slug in warned
    }
    assert all(count <= 10 for count in stores.values()), stores  # a warned table is one of few stores
    assert {"epirec-3-0", "locomo-plus-session", "beam-message"}.isdisjoint(warned)  # 48, 401 and 20 stores
