"""Promise: the same inputs sign the same report on any machine and BLAS kernel."""

import json
import os
import subprocess
import sys

from conftest import MINI_RELEASE
from helpers import export_hashing


def _evaluate(rankings, other, output, coretype):
    env = {key: value for key, value in os.environ.items() if key != "OPENBLAS_CORETYPE"}
    if coretype:
        env["OPENBLAS_CORETYPE"] = coretype
    command = [
        sys.executable,
        "-m",
        "memrecall",
        "compare",
        str(rankings),
        str(other),
        "--data",
        str(MINI_RELEASE),
        "--output",
        str(output),
    ]
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(output.read_text())["content_sha256"]


def test_a_different_blas_kernel_signs_the_same_report(tmp_path):
    rankings = export_hashing(tmp_path)
    rows = [json.loads(line) for line in rankings.read_text().splitlines()]
    other = tmp_path / "reversed.jsonl"
    other.write_text(
        "".join(json.dumps({**r, "ranked_episode_ids": r["ranked_episode_ids"][::-1]}) + "\n" for r in rows)
    )
    default = _evaluate(rankings, other, tmp_path / "a.json", None)
    prescott = _evaluate(rankings, other, tmp_path / "b.json", "Prescott")
    assert default == prescott


def test_signed_floats_carry_at_most_12_significant_digits(tmp_path):
    rankings = export_hashing(tmp_path)
    output = tmp_path / "r.json"
    from conftest import run

    assert run("evaluate", rankings, "--data", MINI_RELEASE, "--output", output).exit_code == 0
    floats = []

    def walk(value):
        if isinstance(value, float):
            floats.append(value)
        elif isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk(json.loads(output.read_text())["content"])
    assert floats and all(float(f"{f:.12g}") == f for f in floats)
    assert all(len(repr(abs(f)).lstrip("0.").replace(".", "")) <= 12 for f in floats)
