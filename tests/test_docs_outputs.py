"""Docs that can't drift: every command output in README and docs/ is a block scripts/doc_outputs.py regenerates
from a run, and every fingerprint outside those blocks is a committed report's (or a bundled release's sha256)."""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SPEC = importlib.util.spec_from_file_location("doc_outputs", ROOT / "scripts" / "doc_outputs.py")
doc_outputs = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(doc_outputs)
PAGES = [ROOT / n for n in ("README.md", "README.ko.md", "README.zh-CN.md")] + sorted((ROOT / "docs").glob("*.md"))
HEX = re.compile(r"(?<![0-9a-f])([0-9a-f]{12}|[0-9a-f]{40}|[0-9a-f]{64})(?![0-9a-f])")


def committed_digests() -> set[str]:
    """content_sha256 of every committed report (site/*.json, the leaderboard's entries) and each release's sha256."""
    found = set()
    for path in [*ROOT.glob("site/*.json"), *ROOT.glob("site/leaderboard/entries/*/*.report.json")]:
        report = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(report, dict) and "content_sha256" in report:
            found.add(report["content_sha256"])
    sums = (ROOT / "data" / "SHA256SUMS").read_text(encoding="utf-8").split()
    return found | set(sums[0::2])


@pytest.mark.slow
def test_every_command_output_in_the_docs_matches_a_run():
    done = subprocess.run(
        [sys.executable, "scripts/doc_outputs.py", "check"], cwd=ROOT, capture_output=True, text=True, timeout=1800
    )
    assert done.returncode == 0, done.stderr


def test_your_own_data_shows_its_commands_and_fingerprints_as_generated_blocks():
    text = (ROOT / "docs" / "your-own-data.md").read_text(encoding="utf-8")
    commands = [c for c, _ in doc_outputs.blocks(text)]
    assert len(commands) == 6 and all(c.startswith("memrecall ") for c in commands)
    prose = doc_outputs.BLOCK.sub("", text)
    assert "content_sha256" not in prose and ".venv/bin/memrecall" not in prose  # only inside generated blocks
    made: list[str] = []
    for command in commands:  # every file a command reads, a command before it on the page made
        words = command.split()
        positional = words[2 : words.index(next(w for w in words if w.startswith("--")))]
        read = [w for w in positional if w.startswith("results/")]
        assert all(any(r == m or r.startswith(m + "/") for m in made) for r in read), command
        made += [words[i + 1] for i, w in enumerate(words) if w in ("--output", "--export-rankings", "--out")]


def test_a_block_whose_output_was_edited_is_regenerated(tmp_path):
    command = "memrecall run --help | first 2"
    right = doc_outputs.block_text("memrecall run --help", 2, doc_outputs.run_output("memrecall run --help", ROOT))
    page = tmp_path / "page.md"
    page.write_text(f"before\n\n{right}\n\nafter\n", encoding="utf-8")
    assert doc_outputs.page_text(page, tmp_path) == page.read_text(encoding="utf-8")
    assert f"<!-- output: {command} -->\n```\n.venv/bin/memrecall run --help\n```" in right
    page.write_text(page.read_text(encoding="utf-8").replace("Usage", "Usgae"), encoding="utf-8")
    assert doc_outputs.page_text(page, tmp_path) != page.read_text(encoding="utf-8")
    assert doc_outputs.page_text(page, tmp_path) == f"before\n\n{right}\n\nafter\n"


@pytest.mark.parametrize("page", PAGES, ids=[p.relative_to(ROOT).as_posix() for p in PAGES])
def test_every_fingerprint_outside_a_block_is_a_committed_reports(page):
    known = committed_digests()
    prose = doc_outputs.BLOCK.sub("", page.read_text(encoding="utf-8"))
    stale = []
    for match in HEX.finditer(prose):
        digest = match.group(1)
        if len(digest) == 40:
            continue  # a git commit, not a fingerprint
        if not any(k.startswith(digest) for k in known):
            stale.append(digest)
    assert stale == []
