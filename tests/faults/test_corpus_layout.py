"""Family: a checkout's declared layout. `build` writes exactly the declared releases and never drops one;
a broken rules file is an error, never "no rules"; a misnamed source is never skipped; the interrupted-build
hint appears only when a build really was interrupted."""

from __future__ import annotations

import json
import shutil

import pytest
from conftest import run
from corpus_factory import persona, persona_v2, write_v2_checkout
from helpers import assert_one_line_error
from test_output_plan_variants import snapshot

RULES = "data/memrecall_rules.json"


@pytest.fixture
def built(tmp_path):
    """A two-release checkout (v1 in the archive, v2 in data/personas), built and valid."""
    root = write_v2_checkout(tmp_path / "ck", [persona(1), persona(2)], [persona_v2(3), persona_v2(4)])
    assert run("build", "--root", root).exit_code == 0
    assert run("validate", "--root", root).exit_code == 0
    return root


BROKEN_RULES = {
    "empty": ("", "the rules file is empty"),
    "blank": ("  \n", "the rules file is empty"),
    "garbage": ("releases: all", "not valid JSON"),
    "array": ('["epirec_v1.json", "epirec_v2.json"]', 'expected an object whose "releases"'),
    "empty object": ("{}", 'expected an object whose "releases"'),
    "no releases": ('{"releases": {}}', 'expected an object whose "releases"'),
    "releases array": ('{"releases": ["epirec_v2.json"]}', 'expected an object whose "releases"'),
    "unknown rule set": (
        '{"releases": {"epirec_v1.json": "memrecall-epirec-v1", "epirec_v2.json": "memrecall-epirec-2"}}',
        "epirec_v2.json: unknown rule set 'memrecall-epirec-2'",
    ),
    "rule set not a string": (
        '{"releases": {"epirec_v1.json": "memrecall-epirec-v1", "epirec_v2.json": 2}}',
        "epirec_v2.json: unknown rule set 2",
    ),
    "duplicate key": (
        '{"releases": {"epirec_v1.json": "memrecall-epirec-v1", "epirec_v1.json": "memrecall-epirec-v2"}}',
        "not valid JSON (duplicate key 'epirec_v1.json')",
    ),
    "missing release": (
        '{"releases": {"epirec_v1.json": "memrecall-epirec-v1", "epirec_v2.json": "memrecall-epirec-v2", '
        '"epirec_v3.json": "memrecall-epirec-v2"}}',
        "declares epirec_v3.json, which this checkout does not have",
    ),
    "release left out": (
        '{"releases": {"epirec_v1.json": "memrecall-epirec-v1"}}',
        'declares no rule set for epirec_v2.json, which this checkout holds; add "epirec_v2.json": '
        '"memrecall-epirec-v2"',
    ),
}


@pytest.mark.parametrize("command", [["validate"], ["build"], ["build", "--check"], ["audit"]])
@pytest.mark.parametrize("case", list(BROKEN_RULES))
def test_a_broken_rules_file_is_one_error_and_changes_nothing(built, tmp_path, command, case):
    text, expected = BROKEN_RULES[case]
    (built / RULES).write_text(text, encoding="utf-8")
    before = snapshot(tmp_path)
    extra = ["--output", tmp_path / "audit.json"] if command == ["audit"] else []
    result = run(*command, "--root", built, *extra)
    assert_one_line_error(result, f"{RULES}: {expected}" if "declares" not in expected else expected)
    assert "valid: 0 violations" not in result.output
    assert len(result.output.strip().splitlines()) == 1, result.output
    assert snapshot(tmp_path) == before


def test_an_unreadable_rules_file_is_an_error(built):
    (built / RULES).unlink()
    (built / RULES).mkdir()
    result = run("validate", "--root", built)
    assert_one_line_error(result, f"{RULES}: cannot read the rules file (is a folder, not a regular file")


@pytest.mark.parametrize("command", [["build"], ["validate"]])
def test_missing_sources_of_a_declared_release_refuse_instead_of_dropping_it(built, tmp_path, command):
    shutil.rmtree(built / "data" / "personas")
    before = snapshot(tmp_path)
    result = run(*command, "--root", built)
    assert_one_line_error(result, "declares epirec_v2.json, but its sources folder data/personas/ is missing")
    assert "interrupted" not in result.output
    assert snapshot(tmp_path) == before
    assert "epirec_v2.json" in (built / "data" / "SHA256SUMS").read_text()


@pytest.mark.parametrize(
    ("where", "change", "named"),
    [
        ("SHA256SUMS", lambda text: text + "0" * 64 + "  epirec_v9.json\n", "data/SHA256SUMS lists epirec_v9.json"),
        ("SHA256SUMS", lambda text: text + "half a line\n", "data/SHA256SUMS: line 3 is not"),
        (
            "croissant.json",
            lambda text: json.dumps(
                {**json.loads(text), "distribution": [*json.loads(text)["distribution"], {"@id": "epirec_v9.json"}]}
            ),
            "data/croissant.json distribution lists epirec_v9.json",
        ),
        (
            "croissant.json",
            lambda text: json.dumps(
                {**json.loads(text), "recordSet": [*json.loads(text)["recordSet"], {"@id": "epirec_v0/episodes"}]}
            ),
            "data/croissant.json recordSet lists epirec_v0.json",
        ),
    ],
)
def test_build_never_drops_an_entry_it_cannot_rebuild(built, tmp_path, where, change, named):
    path = built / "data" / where
    path.write_text(change(path.read_text()), encoding="utf-8")
    before = snapshot(tmp_path)
    result = run("build", "--root", built)
    assert result.exit_code == 1 and f"cannot rebuild: {named}" in result.output, result.output
    assert "refusing to build: it would drop what it cannot rebuild" in result.output
    assert "Traceback" not in result.output
    assert snapshot(tmp_path) == before


MISNAMED = ["p05.JSON", "P05.json", "p5.json", "p005.json", "p05.json.bak", "notes.txt", ".p05.json"]


@pytest.mark.parametrize("folder", ["data/personas", "data/archive/v1/personas"])
@pytest.mark.parametrize("name", [*MISNAMED, "p05.json/"])
def test_a_misnamed_source_is_an_error_never_skipped(built, tmp_path, folder, name):
    target = built / folder / name.rstrip("/")
    if name.endswith("/"):
        target.mkdir()
    else:
        target.write_text(json.dumps(persona(5)), encoding="utf-8")
    before = snapshot(tmp_path)
    expected = f"violation: {folder}/{name.rstrip('/')}: not a persona source file named pNN.json"
    for command in (["validate"], ["build"]):
        result = run(*command, "--root", built)
        assert result.exit_code == 1 and expected in result.output, result.output
        assert "valid: 0 violations" not in result.output
    assert snapshot(tmp_path) == before


def test_stale_metadata_without_a_staged_file_gets_no_interrupted_hint(built):
    sums = built / "data" / "SHA256SUMS"
    sums.write_text(sums.read_text().replace(sums.read_text()[:4], "0000"), encoding="utf-8")
    result = run("validate", "--root", built)
    assert result.exit_code == 1 and "data/SHA256SUMS: sha256 for epirec_v1.json is 0000" in result.output
    assert "interrupted" not in result.output


def test_a_staged_file_that_is_not_this_build_gets_no_interrupted_hint(built):
    sums = built / "data" / "SHA256SUMS"
    sums.write_text("0" * 64 + "  epirec_v1.json\n" + sums.read_text().splitlines()[1] + "\n", encoding="utf-8")
    (built / "data" / ".SHA256SUMS.x1.tmp").write_text("something else", encoding="utf-8")
    result = run("validate", "--root", built)
    assert result.exit_code == 1 and "interrupted" not in result.output
