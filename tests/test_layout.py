"""The package layout stays true: imports run one way, no cycles, a small top level, one module per thing a user
can name (modules past ~500 lines are flagged by conftest.py's warning)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PACKAGE_ROOT = Path(__file__).resolve().parents[1] / "src" / "memrecall"

# Highest first, as CONTRIBUTING.md states it; one tuple per layer, same-layer packages side by side.
LAYERS = (
    ("memrecall", "memrecall.__main__"),
    ("memrecall.cli",),
    ("memrecall.api",),
    ("memrecall.running",),
    ("memrecall.reports",),
    ("memrecall.benchmarks",),
    ("memrecall.scoring", "memrecall.systems"),
    ("memrecall.corpus",),
    ("memrecall.data", "memrecall.encoding", "memrecall.outputs"),
    ("memrecall.io", "memrecall.errors", "memrecall.progress"),
)


# Each thing a user can name -> the one module that holds it, and the pattern of the public names only it defines.
# (The command-line front door, memrecall.cli, is left out: a command is named after the thing it runs.)
OWNERS = {
    "power: `memrecall power`, the detectable difference of cards, leaderboard and gate": (
        "memrecall.reports.power",
        r"power|detectable|mcnemar|discordance",
    ),
    "the report card (--report-dir, `memrecall report`)": ("memrecall.reports.cards.card", r"(^|_)card$|report_card"),
    "rankings files: whose they are, reading them against a task, writing them": (
        "memrecall.reports.rankings_files",
        r"rankings_(for|beside|paths|suffix)|match_rankings|checked_runs|write_rankings|trec_ids",
    ),
    "the report card's figures": ("memrecall.reports.cards.figures", r"_figures$"),
}


def public_names(source: str) -> list[str]:
    """The public functions, classes and constants a module defines at its top level."""
    names = []
    for node in ast.parse(source).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.append(node.name)
        elif isinstance(node, ast.Assign):
            names += [t.id for t in node.targets if isinstance(t, ast.Name)]
    return [n for n in names if not n.startswith("_")]


def owner_violations(sources: dict[str, str]) -> list[str]:
    """Each public name of a named thing defined outside the one module that owns it."""
    problems = []
    for thing, (owner, pattern) in OWNERS.items():
        for module, source in sorted(sources.items()):
            if module == owner or module.startswith("memrecall.cli"):
                continue
            for name in public_names(source):
                if re.search(pattern, name):
                    problems.append(f"{module}.{name} belongs to {thing}: {owner}")
    return problems


def module_name(path: Path, root: Path) -> str:
    """The dotted module name of a file under the package root."""
    parts = ["memrecall", *path.relative_to(root).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def package_sources(root: Path = PACKAGE_ROOT) -> dict[str, str]:
    """Every module of the package by dotted name, with its source text."""
    return {module_name(p, root): p.read_text(encoding="utf-8") for p in sorted(root.rglob("*.py"))}


def imported_modules(source: str, known: set[str]) -> set[str]:
    """The memrecall modules a source imports anywhere (module level or inside functions)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name.startswith("memrecall"))
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("memrecall"):
            for alias in node.names:
                child = f"{node.module}.{alias.name}"
                found.add(child if child in known else node.module)
    return found


def unit_of(module: str) -> tuple[int, str]:
    """The layer index (0 is the top) and the unit (package or top-level module) a module belongs to."""
    best: tuple[int, str] | None = None
    for index, units in enumerate(LAYERS):
        for unit in units:
            if (module == unit or module.startswith(unit + ".")) and (best is None or len(unit) > len(best[1])):
                best = (index, unit)
    if best is None:
        raise AssertionError(f"{module} belongs to no layer; add it to LAYERS and CONTRIBUTING.md's Layout")
    return best


def layer_violations(sources: dict[str, str]) -> list[str]:
    """Each import that points up the layers or sideways into a sibling package, and data -> corpus."""
    known = set(sources)
    problems = []
    for module, source in sorted(sources.items()):
        layer, unit = unit_of(module)
        for target in sorted(imported_modules(source, known)):
            target_layer, target_unit = unit_of(target)
            if target_unit == unit:
                continue
            if target_layer < layer:
                problems.append(f"{module} imports {target}, a higher layer")
            elif target_layer == layer:
                problems.append(f"{module} imports {target}, a sibling on the same layer")
    return problems


def import_cycles(sources: dict[str, str]) -> list[list[str]]:
    """Cycles in the graph of memrecall imports between modules (function-level imports included)."""
    known = set(sources)
    graph = {m: sorted(t for t in imported_modules(s, known) if t in known and t != m) for m, s in sources.items()}
    cycles, state = [], dict.fromkeys(graph, 0)

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        for nxt in graph[node]:
            if state[nxt] == 1:
                cycles.append([*path[path.index(nxt) :], nxt])
            elif state[nxt] == 0:
                visit(nxt, [*path, nxt])
        state[node] = 2

    for start in sorted(graph):
        if state[start] == 0:
            visit(start, [start])
    return cycles


def test_imports_run_one_way_down_the_layers():
    assert layer_violations(package_sources()) == []


def test_the_package_has_no_import_cycle():
    assert import_cycles(package_sources()) == []


def test_a_planted_back_import_is_caught():
    sources = package_sources()
    sources["memrecall.data.model"] += "\nfrom memrecall.reports.content import make_report\n"
    assert layer_violations(sources) == ["memrecall.data.model imports memrecall.reports.content, a higher layer"]


@pytest.mark.slow
def test_a_planted_sideways_import_and_a_cycle_are_caught():
    sources = package_sources()
    sources["memrecall.systems.contract"] += "\nfrom memrecall.scoring.metrics import parse_metric\n"
    sources["memrecall.scoring.metrics"] += "\nimport memrecall.scoring.depth\n"
    assert layer_violations(sources) == [
        "memrecall.systems.contract imports memrecall.scoring.metrics, a sibling on the same layer"
    ]
    assert import_cycles(sources) == [
        ["memrecall.scoring.depth", "memrecall.scoring.metrics", "memrecall.scoring.depth"]
    ]


def test_each_named_thing_lives_in_its_one_module():
    assert owner_violations(package_sources()) == []


def test_each_owner_holds_what_its_pattern_names():
    """A pattern that matches nothing in its owner would check nothing."""
    sources = package_sources()
    for thing, (owner, pattern) in OWNERS.items():
        assert [n for n in public_names(sources[owner]) if re.search(pattern, n)], thing


def test_a_planted_second_home_is_caught():
    sources = package_sources()
    sources["memrecall.reports.gate.verdict"] += "\ndef gate_power():\n    pass\n"
    assert owner_violations(sources) == [
        "memrecall.reports.gate.verdict.gate_power belongs to power: `memrecall power`, the detectable difference "
        "of cards, leaderboard and gate: memrecall.reports.power"
    ]


def test_data_never_imports_the_corpus_tools():
    sources = package_sources()
    known = set(sources)
    offenders = [
        m
        for m in sources
        if unit_of(m)[1] == "memrecall.data"
        and any(t.startswith("memrecall.corpus") for t in imported_modules(sources[m], known))
    ]
    assert offenders == []


def test_top_level_holds_only_the_package_face():
    top = sorted(p.name for p in PACKAGE_ROOT.glob("*.py"))
    assert top == [
        "__init__.py",
        "__main__.py",
        "api.py",
        "benchmarks.py",
        "errors.py",
        "io.py",
        "outputs.py",
        "progress.py",
    ]


def test_every_subpackage_says_what_lives_there_in_one_line():
    for init in sorted(PACKAGE_ROOT.rglob("__init__.py")):
        if init.parent == PACKAGE_ROOT:
            continue
        doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8")))
        assert doc and "\n" not in doc, f"{init} needs a one-line docstring"


def test_the_public_face_imports_from_the_top():
    import memrecall

    assert {"Document", "Query", "Ranking", "Result", "evaluate_rankings", "run_system"} <= set(memrecall.__all__)
    assert memrecall.Ranking("q", ("a",), (1.0,)).doc_ids == ("a",)
