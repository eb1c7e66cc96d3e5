"""docs/ holds prose; site/ holds what commands generate, and `scripts/site.py check` says when it is not theirs."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
AUTHORED = {"epirec_v3_rules.json"}  # the pre-registered plan's rules, written by hand beside epirec_v3_plan.md


def site_script():
    spec = importlib.util.spec_from_file_location("site_script", ROOT / "scripts" / "site.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_docs_hold_prose_only():
    files = sorted(p.relative_to(ROOT / "docs").as_posix() for p in (ROOT / "docs").rglob("*") if p.is_file())
    assert [f for f in files if not f.endswith(".md") and f not in AUTHORED] == []
    assert len(files) > 20


def test_every_top_level_artefact_of_site_is_one_a_part_makes():
    script = site_script()
    made = {"leaderboard", "figures", script.AUDIT.name, script.SEPARABLE.name, script.ANALYSES.name}
    made |= {"claims.json", "construct_validity.json"}  # measured by their scripts; site.py checks the pages' tables
    signed = script.check_signatures
    made |= {Path(report).name for report, _ in signed.REPORTS + signed.LOCOMO_REPORTS}
    frozen = {"ambiguity_candidates_v1.json", "ambiguity_candidates_v2.json"}  # see the script's docstring
    assert sorted(p.name for p in (ROOT / "site").iterdir()) == sorted(made | frozen)
    assert sorted(Path(f).name for f in signed.FIGURES.values()) == sorted(
        p.name for p in (ROOT / "site" / "figures").iterdir()
    )


def test_differs_names_each_missing_extra_and_changed_file(tmp_path):
    script = site_script()
    fresh, committed = tmp_path / "fresh", ROOT / "site" / "figures" / "epirec_v1"
    fresh.mkdir()
    for path in committed.iterdir():
        (fresh / path.name).write_bytes(path.read_bytes())
    assert script.differs(fresh, committed) == []
    (fresh / "README.md").write_text("changed")
    (fresh / "recall_by_age_bucket.png").unlink()
    (fresh / "extra.png").write_bytes(b"x")
    assert script.differs(fresh, committed) == [
        "site/figures/epirec_v1/README.md",
        "site/figures/epirec_v1/extra.png",
        "site/figures/epirec_v1/recall_by_age_bucket.png",
    ]


def test_an_unknown_part_or_verb_is_a_usage_error_naming_the_parts():
    for args in (["check", "nothing"], ["rebuild"], []):
        done = subprocess.run([sys.executable, "scripts/site.py", *args], cwd=ROOT, capture_output=True, text=True)
        assert done.returncode == 2 and "usage: python scripts/site.py build|check [leaderboard figures" in done.stderr


def test_the_audit_and_the_claims_table_are_what_their_commands_make():
    command = [sys.executable, "scripts/site.py", "check", "audit", "claims"]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "site check: audit, claims: site/ is what its commands make\n"


@pytest.mark.slow
def test_every_committed_card_and_figure_and_the_separable_rows_rebuild_byte_for_byte():
    command = [sys.executable, "scripts/site.py", "check", "figures", "separable"]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "site check: figures, separable: site/ is what its commands make\n"
