"""Promise: a refused command leaves the working folder exactly as it was (no cache folder, no output folder)."""

import hashlib
from pathlib import Path

import pytest
from conftest import MINI_RELEASE, run
from helpers import LME, LOCOMO

LONG_NAME = "n" * 300
MISSING = "no-such-file.json"


def _snapshot(folder: Path) -> dict[str, str]:
    """Every path under `folder` with its content's sha256 (folders as 'dir')."""
    return {
        str(p.relative_to(folder)): "dir" if p.is_dir() else hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
    }


# (command, arguments that would run, the --data option's form); every refusal below is applied to each
COMMANDS = {
    "run dense": (["run", "epirec", "--system", "dense", "--data", "mini.json", "--quiet"], "--data"),
    "run fts5": (["run", "locomo", "--system", "fts5", "--data", "locomo.json", "--quiet"], "--data"),
    "baseline": (["baseline", "--data", "mini.json", "--strategies", "dense", "--quiet"], "--data"),
    "longmemeval": (["longmemeval", "--data", "lme.json", "--modes", "dense", "--quiet"], "--data"),
    "locomo": (["locomo", "--data", "locomo.json", "--modes", "dense", "--quiet"], "--data"),
    "sweep": (
        ["sweep", "--systems", "dense", "--benchmarks", "epirec", "--data", "epirec=mini.json", "--out", "sw"],
        "sweep",
    ),
}
REFUSALS = {
    "--device cuda": (["--device", "cuda"], "no CUDA device"),
    "bad --metrics": (["--metrics", "recall@x"], "recall@x"),
    "missing --data": ([], MISSING),
    "bad --name": (["--name", LONG_NAME], "too long"),
}
APPLIES = {
    "--device cuda": {"run dense", "run fts5", "baseline", "longmemeval", "locomo"},
    "bad --name": {"run dense", "run fts5"},
}


def _cases():
    for command in COMMANDS:
        for refusal in REFUSALS:
            if command in APPLIES.get(refusal, COMMANDS):
                yield pytest.param(command, refusal, id=f"{command}-{refusal}")


@pytest.mark.parametrize(("command", "refusal"), list(_cases()))
def test_a_refusal_creates_nothing(command, refusal, tmp_path, monkeypatch):
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("MEMRECALL_CACHE", raising=False)
    for name, source in (("mini.json", MINI_RELEASE), ("lme.json", LME), ("locomo.json", LOCOMO)):
        (tmp_path / name).write_bytes(source.read_bytes())
    args, data_form = COMMANDS[command]
    extra, expected = REFUSALS[refusal]
    if refusal == "missing --data":
        args = [MISSING if a.endswith(".json") and "=" not in a else a for a in args]
        args = [f"epirec={MISSING}" if a.startswith("epirec=") else a for a in args]
    before = _snapshot(tmp_path)
    result = run(*args, *extra)
    assert result.exit_code in (1, 2), result.output
    assert expected in result.output, result.output
    assert _snapshot(tmp_path) == before
