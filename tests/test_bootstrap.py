"""Quick start: plain bootstrap installs the default dependencies only, `bootstrap.sh test` adds the test extra."""

from __future__ import annotations

import hashlib
import re
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
OPTIONAL = ("ray", "pandas", "pytest", "ruff", "bm25s", "playwright", "chromadb", "faiss-cpu", "qdrant-client", "txtai")


def requirement_names(requirements: list[str]) -> set[str]:
    return {re.split(r"[\[<>=!~ ]", r, maxsplit=1)[0].lower() for r in requirements}


def test_the_default_install_leaves_ray_pandas_adapters_and_test_tools_to_extras():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    default = requirement_names(project["dependencies"])
    assert default.isdisjoint(OPTIONAL) and {"sentence-transformers", "click", "matplotlib"} <= default
    extras = project["optional-dependencies"]
    assert requirement_names(extras["ray"]) == {"ray"}
    assert {"pytest", "ruff", "ray", "memrecall"} <= requirement_names(extras["test"])
    assert any(r.startswith("memrecall[") and "adapters" in r for r in extras["test"])


def test_quick_start_installs_test_tools_only_for_the_test_command():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    commands = re.findall(r"<!-- quickstart-(baseline|test) -->\n```\n(.*?)\n```", text)
    assert commands == [
        ("baseline", "bash scripts/bootstrap.sh && .venv/bin/memrecall baseline"),
        ("test", "bash scripts/bootstrap.sh test && .venv/bin/python -m pytest -n auto"),
    ]


@pytest.fixture
def copy(tmp_path) -> Path:
    """The script beside the two files its stamp is computed from, in a folder with no .venv."""
    (tmp_path / "scripts").mkdir()
    shutil.copy2(ROOT / "scripts" / "bootstrap.sh", tmp_path / "scripts" / "bootstrap.sh")
    for name in ("pyproject.toml", "constraints.txt"):
        shutil.copy2(ROOT / name, tmp_path / name)
    return tmp_path


def bootstrap(folder: Path, *args: str) -> subprocess.CompletedProcess:
    env = {"PATH": "/usr/bin:/bin", "PYTHON": str(folder / "no-python-here")}
    return subprocess.run(["bash", str(folder / "scripts" / "bootstrap.sh"), *args], capture_output=True, text=True,
                          env=env, cwd=folder, timeout=60)  # fmt: skip


def stamp(folder: Path, target: str) -> None:
    digest = hashlib.sha256((folder / "pyproject.toml").read_bytes() + (folder / "constraints.txt").read_bytes())
    (folder / ".venv").mkdir(exist_ok=True)
    (folder / ".venv" / ".memrecall-installed").write_text(f"torch==2.13.0 {digest.hexdigest()[:16]} {target}\n")


def test_an_unknown_argument_is_a_usage_line_and_creates_nothing(copy):
    done = bootstrap(copy, "tests")
    assert done.returncode == 2 and done.stderr == "usage: bash scripts/bootstrap.sh [test]\n"
    assert not (copy / ".venv").exists()


@pytest.mark.parametrize(
    ("installed", "asked", "skips"),
    [(".", "", True), (".[test]", "", True), (".[test]", "test", True), (".", "test", False)],
)
def test_a_done_install_is_skipped_and_the_test_extra_covers_the_default(copy, installed, asked, skips):
    stamp(copy, installed)
    done = bootstrap(copy, *([asked] if asked else []))
    if skips:
        assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    else:  # it goes on to install: here it stops at creating the venv, since PYTHON names no interpreter
        assert done.returncode == 127 and done.stderr.endswith("no-python-here: No such file or directory\n")
