"""Family: a plug-in that lacks part of the contract is told exactly which method is missing, in one line."""

from __future__ import annotations

import re

import pytest

from memrecall.errors import ConfigError
from memrecall.systems.contract import adapt, contract_problem


def method(self, *args):
    """A stand-in method body (never called)."""


VARIANTS = {
    "index only": ({"index": method}, "has index() but no rank(query) method"),
    "rank only": ({"rank": method}, "has rank() but no index(documents) method"),
    "neither": ({}, "has neither an index(documents) nor a rank(query) method"),
    "rank not callable": ({"index": method, "rank": 3}, "has index() but no rank(query) method"),
    "index not callable": ({"index": "x", "rank": method}, "has rank() but no index(documents) method"),
}


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_the_missing_method_is_named(variant):
    members, expected = VARIANTS[variant]
    plugin = type("Memory", (), members)()
    assert contract_problem(plugin) == f"Memory {expected}; a system needs both index(documents) and rank(query)"
    with pytest.raises(ConfigError, match=re.escape(f"Memory {expected};")):
        adapt(plugin)


def test_a_whole_system_has_no_problem():
    assert contract_problem(type("Memory", (), {"index": method, "rank": method})()) is None


@pytest.mark.parametrize("variant", ["index only", "neither"])
def test_the_command_line_names_the_missing_method(variant, tmp_path, monkeypatch):
    from conftest import MINI_RELEASE, run

    body = {"index only": "    def index(self, documents):\n        pass\n", "neither": "    pass\n"}[variant]
    (tmp_path / "half_memory.py").write_text(f"class Half:\n{body}", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    result = run("run", "epirec", "--system", "half_memory:Half", "--data", MINI_RELEASE, "--output", "r.json")
    assert result.exit_code == 1, result.output
    expected = VARIANTS[variant][1]
    assert [line for line in result.output.splitlines() if line.startswith("error:")] == [
        f"error: --system half_memory:Half: Half {expected}; a system needs both index(documents) and rank(query)"
    ]
    assert not (tmp_path / "r.json").exists()
