"""CITATION.cff follows CFF 1.2.0, and the EpiRec-style scripts/ entry points run from a clone."""

import json
import re
import subprocess
import sys
from datetime import date
from pathlib import Path

import pytest
import yaml
from conftest import MINI_RELEASE

ROOT = Path(__file__).resolve().parents[1]
CFF_TYPES = {"software", "dataset"}
LICENSES = {"MIT", "CC-BY-4.0"}


def _check_authors(authors, where):
    assert isinstance(authors, list) and authors, f"{where}: authors must be a non-empty list"
    for author in authors:
        assert isinstance(author, dict) and (author.get("name") or author.get("family-names")), where


def test_citation_cff_follows_the_1_2_0_schema():
    """The CFF 1.2.0 rules this file relies on: required keys, their types, dates, licences, references."""
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))
    assert cff["cff-version"] == "1.2.0"
    for key in ("message", "title", "authors"):
        assert isinstance(cff.get(key), (str, list)) and cff[key], key
    _check_authors(cff["authors"], "authors")
    assert cff["type"] in CFF_TYPES and cff["license"] in LICENSES
    date.fromisoformat(cff["date-released"])
    assert re.match(r"^https://", cff["repository-code"])
    allowed = {
        "cff-version",
        "message",
        "title",
        "type",
        "authors",
        "version",
        "date-released",
        "license",
        "repository-code",
        "keywords",
        "abstract",
        "references",
    }
    assert set(cff) <= allowed
    (dataset,) = cff["references"]
    assert dataset["type"] == "dataset" and dataset["title"].startswith("EpiRec")
    _check_authors(dataset["authors"], "references[0].authors")
    from memrecall.data.releases import DEFAULT_RELEASE

    default = json.loads((ROOT / "data" / DEFAULT_RELEASE).read_text(encoding="utf-8"))
    assert dataset["license"] == "CC-BY-4.0" and dataset["version"] == default["version"] == "3.0"
    date.fromisoformat(dataset["date-released"])


def test_readme_carries_a_bibtex_block_matching_the_citation():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"```bibtex\n(.*?)```", text, re.S).group(1)
    assert "@software{memrecall" in block and "@misc{epirec" in block and "year = {2026}" in block


def script(name, *args, cwd=ROOT):
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / f"{name}.py"), *map(str, args)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
    )
    return done


@pytest.mark.slow
def test_validate_and_build_check_scripts():
    assert "valid: 0 violations" in script("validate").stdout
    done = script("build", "--check")
    assert done.returncode == 0 and "current:" in done.stdout


@pytest.mark.slow
def test_baseline_evaluate_audit_and_plot_scripts(tmp_path):
    done = script(
        "baseline_retrieval",
        "--data",
        MINI_RELEASE,
        "--strategies",
        "recency,hashing",
        "--quiet",
        "--output",
        tmp_path / "b.json",
        "--export-rankings",
        tmp_path / "rk",
    )
    assert done.returncode == 0, done.stderr
    done = script(
        "evaluate_rankings",
        "--rankings",
        tmp_path / "rk" / "hashing.jsonl",
        "--data",
        MINI_RELEASE,
        "--output",
        tmp_path / "e.json",
    )
    assert done.returncode == 0, done.stderr
    assert json.loads((tmp_path / "e.json").read_text())["content"]["system_order"] == ["hashing"]
    done = script("audit_ambiguity", "--output", tmp_path / "amb.json")
    assert done.returncode == 0 and (tmp_path / "amb.json").exists()
    done = script("plot_overview", tmp_path / "b.json", "--out", tmp_path / "card")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "card" / "recall_by_probe_type.png").exists()


@pytest.mark.parametrize(
    "name", ["validate", "build", "baseline_retrieval", "audit_ambiguity", "evaluate_rankings", "plot_overview"]
)
def test_each_script_is_one_line_of_logic_over_memrecall(name):
    code = [
        line
        for line in (ROOT / "scripts" / f"{name}.py").read_text().splitlines()
        if line.strip() and not line.startswith(("import", "from", '"""', "Usage")) and not line[0].isupper()
    ]
    assert len(code) == 1 and code[0].startswith("main(")
