"""README's "measure your own system" example fits its 15 lines and runs both ways it says: as a script, with its
own assertion holding, and saved as a module, as a plug-in `memrecall run --system MODULE:Overlap` accepts."""

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def example() -> str:
    """The Python block under README's "Measure your own system in 15 lines"."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text[text.index("## Measure your own system in 15 lines") :]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def test_the_example_fits_its_fifteen_lines():
    assert 10 <= len([line for line in example().splitlines() if line.strip()]) <= 15


@pytest.mark.slow
def test_the_example_runs_as_a_script(tmp_path):
    script = tmp_path / "my_module.py"
    script.write_text(example(), encoding="utf-8")
    done = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr  # its closing assert held
    printed = done.stdout.splitlines()
    assert len(printed) == 1 and printed[0].startswith("implicit recall@3: ")
    assert 0.0 <= float(printed[0].split(": ")[1]) <= 1.0


def test_the_example_saved_as_a_module_runs_as_a_plug_in(tmp_path):
    (tmp_path / "my_module.py").write_text(example(), encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(tmp_path), "MEMRECALL_PROGRESS": "none"}
    report = tmp_path / "overlap.report.json"
    command = [sys.executable, "-m", "memrecall", "run", "beir", "--data", "examples/data/beir_memory"]
    command += ["--system", "my_module:Overlap", "--output", str(report), "--quiet"]
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr  # a module that printed at import would be refused here
    assert report.exists() and "(content_sha256 " in done.stdout


@pytest.mark.slow
def test_the_ci_commands_run_as_written_with_the_example_as_my_module(tmp_path):
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text[text.index("## Guard your memory system in CI") :]
    commands = [shlex.split(line) for line in re.search(r"```\n(.*?)```", section, re.S).group(1).splitlines()]
    assert [c[:2] for c in commands] == [["memrecall", "run"], ["memrecall", "gate"], ["memrecall", "diff"]]
    (tmp_path / "my_module.py").write_text(example(), encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(tmp_path), "MEMRECALL_PROGRESS": "none"}
    candidate = [w.replace("ci/baseline/", "candidate/") for w in commands[0]]  # the change's run, as CI makes it

    def memrecall(words: list[str]) -> subprocess.CompletedProcess:
        command = [sys.executable, "-m", "memrecall", *words[1:]]
        return subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)

    for words in (commands[0], commands[1], candidate, commands[2]):
        done = memrecall(words)
        assert done.returncode == 0, (words, done.stderr)
        if words[1] == "gate":
            assert done.stdout.startswith("gate: PASS\n")
    assert (tmp_path / "diff.html").is_file()
