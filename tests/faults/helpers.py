"""Small builders for the fault suite: rankings exports, mutated dataset files."""

from __future__ import annotations

import copy
import json
from pathlib import Path

from conftest import FIXTURES, MINI_RELEASE, run

LME = FIXTURES / "lme_format_mini.json"
LOCOMO = FIXTURES / "locomo_mini.json"


def export_hashing(folder: Path) -> Path:
    """The hashing baseline's rankings of the mini release, as a JSONL file in `folder`."""
    result = run(
        "baseline",
        "--data",
        MINI_RELEASE,
        "--strategies",
        "hashing",
        "--quiet",
        "--output",
        folder / "b.json",
        "--export-rankings",
        folder / "rk",
    )
    assert result.exit_code == 0, result.output
    return folder / "rk" / "hashing.jsonl"


def mutated_json(source: Path, target: Path, change) -> Path:
    """A copy of a JSON fixture with `change(data)` applied."""
    data = copy.deepcopy(json.loads(source.read_text(encoding="utf-8")))
    change(data)
    target.write_text(json.dumps(data), encoding="utf-8")
    return target


def assert_usage_error(result, expected: str) -> None:
    """A clean usage error from the option parser: exit 2, the expected text, no traceback."""
    assert result.exit_code == 2, result.output
    assert expected in result.output, result.output
    assert "Traceback" not in result.output


def assert_one_line_error(result, expected: str) -> None:
    """A clean failure: exit 1, the expected text, no traceback."""
    assert result.exit_code == 1, result.output
    assert expected in result.output, result.output
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
