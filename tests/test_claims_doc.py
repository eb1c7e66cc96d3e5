"""Promise: docs/claims.md's table is the one scripts/measure_claims.py renders from site/claims.json."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _script():
    spec = importlib.util.spec_from_file_location("measure_claims", ROOT / "scripts" / "measure_claims.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_claims_table_is_rendered_from_the_measured_figures():
    script = _script()
    claims = json.loads((ROOT / "site" / "claims.json").read_text())
    text = (ROOT / "docs" / "claims.md").read_text()
    between = text.split(script.MARK + "\n")[1]
    assert between == script.table(claims) + "\n"
    assert set(claims) >= {"dense", "taosmd", "taosmd-api", "dory", "dory-seeds", "mneme", "fluctlightdb", "engram"}


def test_every_product_was_scored_under_every_definition_with_intervals():
    script = _script()
    claims = json.loads((ROOT / "site" / "claims.json").read_text())
    for system, entry in claims.items():
        definitions = entry["locomo"]["definitions"]
        assert sorted(definitions) == sorted(script.DEFINITIONS), system
        for name, row in definitions.items():
            assert row["questions"] == (1982 if "category 5 in" in name else 1536) - entry["locomo"]["not_measurable"]
            low, value, high = row["recall@5"][1], row["recall@5"][0], row["recall@5"][2]
            assert 0 <= low <= value <= high <= 1, (system, name)
