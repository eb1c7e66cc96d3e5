"""A built wheel works anywhere: installed in a fresh venv, `memrecall baseline` runs from a bare folder.

The wheel is built from a copy of the sources (nothing is written into the checkout) and installed with
--no-deps into a new venv that reaches this interpreter's packages through a .pth line, minus the optional
dependencies (Ray, pandas, the test tools, the adapters' stacks), so the run also shows the default install
is enough for `baseline`. About a minute, most of it the baseline itself. This is docs/install.md's
`cd /tmp && memrecall baseline` and its promise: the report's fingerprint is site/baselines.json's.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import site
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from memrecall.data.releases import RELEASES

ROOT = Path(__file__).resolve().parents[1]
# optional dependencies (top-level module or distribution names), hidden from the fresh venv
EXTRAS = (
    "ray", "pandas", "pyarrow", "pytest", "_pytest", "ruff", "bm25s", "playwright", "chromadb", "faiss", "qdrant",
    "lancedb", "mem0", "mempalace", "langchain", "llama_index", "txtai", "memrecall", "__editable__",
)  # fmt: skip


API_RUN = """
from memrecall import run_system


class StoreOrder:
    def index(self, documents):
        self.ids = [d.id for d in documents]

    def rank(self, query):
        return self.ids


result = run_system(StoreOrder(), "epirec", name="order", resamples=100)
content = result.report["content"]
print(content["systems"]["order"]["results"]["overall"]["n"], content["task"]["source_sha256"])
"""


def hidden(name: str) -> bool:
    """True for a site-packages entry of an optional dependency (or of memrecall itself)."""
    stem = name.lower().replace("-", "_").split(".")[0]
    return any(stem == extra or stem.startswith(extra + "_") for extra in EXTRAS)


def sources(target: Path) -> Path:
    """What a build reads (pyproject, README, LICENSE, src/ with its links into data/), copied to `target`."""
    target.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy2(ROOT / name, target / name)
    ignore = shutil.ignore_patterns("__pycache__", "*.egg-info")
    shutil.copytree(ROOT / "src", target / "src", symlinks=True, ignore=ignore)
    (target / "data").mkdir()
    for name in (*RELEASES, "LICENSE"):
        shutil.copy2(ROOT / "data" / name, target / "data" / name)
    return target


def build_wheel(tmp_path: Path) -> Path:
    """The wheel of a copy of the sources, built offline with the setuptools already installed."""
    command = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-q"]
    done = subprocess.run([*command, "-w", str(tmp_path / "dist"), str(sources(tmp_path / "src-copy"))],
                          capture_output=True, text=True, timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr
    (wheel,) = (tmp_path / "dist").glob("memrecall-*.whl")
    return wheel


def fresh_venv(folder: Path) -> Path:
    """A new venv without pip that sees this interpreter's packages minus the optional ones (links in a folder)."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True, timeout=120)
    (purelib,) = folder.glob("lib/python*/site-packages")
    view = folder / "default-dependencies"
    view.mkdir()
    for parent in map(Path, site.getsitepackages()):
        for entry in parent.iterdir():
            if not hidden(entry.name) and not entry.name.endswith(".pth") and not (view / entry.name).exists():
                (view / entry.name).symlink_to(entry)
    (purelib / "zz_default_dependencies.pth").write_text(f"{view}\n")
    return folder / "bin" / "python"


@pytest.mark.slow
def test_the_wheel_carries_the_releases_byte_for_byte(tmp_path):
    wheel = build_wheel(tmp_path)
    with zipfile.ZipFile(wheel) as archive:
        for name in (*RELEASES, "LICENSE"):
            assert archive.read(f"memrecall/data/releases/{name}") == (ROOT / "data" / name).read_bytes()
        assert "memrecall/schemas/release.schema.json" in archive.namelist()
    python = fresh_venv(tmp_path / "venv")
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    install = [sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "--no-index", "-q"]
    done = subprocess.run([*install, str(wheel)], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    bare = tmp_path / "elsewhere"
    bare.mkdir()
    for module in ("ray", "pandas", "pytest", "chromadb"):
        absent = subprocess.run([str(python), "-c", f"import {module}"], capture_output=True, text=True, env=env,
                                cwd=bare, timeout=120)  # fmt: skip
        assert f"No module named '{module}'" in absent.stderr
    memrecall = python.parent / "memrecall"
    command = [
        str(memrecall),
        "baseline",
        "--quiet",
        "--output",
        str(bare / "b.json"),
        "--cache-dir",
        str(tmp_path / "c"),
    ]
    done = subprocess.run(command, capture_output=True, text=True, env=env, cwd=bare, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads((bare / "b.json").read_text(encoding="utf-8"))
    committed = json.loads((ROOT / "site" / "baselines.json").read_text(encoding="utf-8"))
    assert report["content_sha256"] == committed["content_sha256"]
    assert report["content"]["task"]["source_sha256"] == committed["content"]["task"]["source_sha256"]
    api = subprocess.run([str(python), "-c", API_RUN], capture_output=True, text=True, env=env, cwd=bare, timeout=300)
    assert api.returncode == 0, api.stderr
    assert api.stdout.split() == ["2016", committed["content"]["task"]["source_sha256"]]
    source = subprocess.run([str(python), "-c", "import memrecall; print(memrecall.__file__)"], capture_output=True,
                            text=True, env=env, cwd=bare, timeout=120)  # fmt: skip
    assert source.stdout.startswith(str(tmp_path / "venv")), source.stdout
    assert sorted(p.name for p in bare.iterdir()) == ["b.json"]


def test_the_bundled_releases_are_links_to_the_frozen_files(tmp_path, monkeypatch):
    from memrecall.benchmarks import get_benchmark
    from memrecall.data.releases import RELEASES, bundled_release

    sums = dict(line.split()[::-1] for line in (ROOT / "data" / "SHA256SUMS").read_text().splitlines())
    for name in RELEASES:
        path = bundled_release(name)
        assert path.is_symlink() and path.resolve() == (ROOT / "data" / name).resolve()
        assert hashlib.sha256(path.read_bytes()).hexdigest() == sums[name]
    monkeypatch.chdir(tmp_path)
    assert get_benchmark("epirec").resolve_data(None) == bundled_release("epirec_v3.json")
