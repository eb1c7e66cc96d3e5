"""docs/diff-and-gate.md's commands run as written: the baseline, the gate, the workflow's and hook's, the example."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
import yaml
from conftest import run

DOC = Path(__file__).resolve().parents[1] / "docs" / "diff-and-gate.md"

pytestmark = pytest.mark.slow


def block(name: str) -> str:
    """The fenced block after `<!-- NAME -->` in the page."""
    found = re.search(rf"<!-- {name} -->\n```[a-z]*\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    assert found, name
    return found.group(1)


def memrecall(command: str):
    """Run one `memrecall ...` line in-process."""
    words = shlex.split(command)
    assert words[0] == "memrecall", command
    return run(*words[1:])


def test_the_workflow_hook_and_pytest_example_pass_on_a_fresh_baseline(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = memrecall(block("gate-baseline").strip())
    assert result.exit_code == 0, result.output
    (tmp_path / "ci" / "gate.toml").write_text(block("gate-toml"), encoding="utf-8")
    workflow = yaml.safe_load(block("gate-workflow"))
    steps = [s["run"] for s in workflow["jobs"]["gate"]["steps"] if s.get("run", "").startswith("memrecall ")]
    hooks = yaml.safe_load(block("gate-precommit"))["repos"][0]["hooks"]
    commands = [block("gate-cli").strip(), *steps, *(h["entry"] for h in hooks)]
    assert len(commands) == 3
    for command in commands:
        result = memrecall(command)
        assert result.exit_code == 0, (command, result.output)
        assert result.output.startswith("gate: PASS\n")
    namespace: dict = {}
    exec(compile(block("gate-pytest"), str(DOC), "exec"), namespace)
    namespace["test_recall_did_not_regress"]()
    assert not (tmp_path / "results").exists()  # a pass writes no diff page
