"""EpiRec v3's checkout: v1.0 and v2 archived beside it, p01..p12 carried byte for byte, the new part under
v3's rules; every way of breaking that is one violation naming the file."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest
from conftest import run

from memrecall.corpus.sources import Layout, layout_releases

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture
def checkout(tmp_path) -> Path:
    """A copy of this repository's data/ (three releases), which validates clean."""
    shutil.copytree(REPO / "data", tmp_path / "data")
    result = run("validate", "--root", tmp_path)
    assert result.exit_code == 0, result.output
    return tmp_path


def test_layout_follows_the_archives(tmp_path):
    """Nothing archived: v1 only; v1.0 archived: v1.0 and v2; v1.0 and v2 archived: all three."""
    assert [r.file_name for r in layout_releases(tmp_path)] == ["epirec_v1.json"]
    (tmp_path / "data/archive/v1/personas").mkdir(parents=True)
    assert [(r.file_name, r.sources) for r in layout_releases(tmp_path)] == [
        ("epirec_v1.json", "data/archive/v1/personas"),
        ("epirec_v2.json", "data/personas"),
    ]
    (tmp_path / "data/archive/v2/personas").mkdir(parents=True)
    assert [r.sources for r in layout_releases(tmp_path)] == [
        "data/archive/v1/personas",
        "data/archive/v2/personas",
        "data/personas",
    ]


def test_the_checkout_holds_three_releases_of_the_stated_sizes():
    """v3 has 48 personas, 672 probes of each type; its p01..p12 are v2's files."""
    layout = Layout(REPO)
    assert [(r.version, r.rules) for r in layout.releases] == [("1.0", 1), ("2.0", 2), ("3.0", 3)]
    v3 = json.loads((REPO / "data/epirec_v3.json").read_text(encoding="utf-8"))
    assert (v3["version"], v3["stats"]["personas"], v3["stats"]["probes"]) == ("3.0", 48, 2016)
    for number in range(1, 13):
        name = f"p{number:02d}.json"
        assert (REPO / "data/personas" / name).read_bytes() == (REPO / "data/archive/v2/personas" / name).read_bytes()


def test_the_carried_personas_have_the_registered_digests():
    """docs/epirec_v3_rules.json, committed before any v3 text, pins each carried source file and persona object."""
    registered = json.loads((REPO / "docs/epirec_v3_rules.json").read_text(encoding="utf-8"))["reused_v2_personas"]
    release = json.loads((REPO / "data/epirec_v3.json").read_text(encoding="utf-8"))
    v3 = {p["persona_id"]: p for p in release["personas"]}
    assert sorted(registered["personas"]) == [f"p{n:02d}" for n in range(1, 13)]
    for pid, pins in registered["personas"].items():
        canonical = json.dumps(v3[pid], sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        assert hashlib.sha256(canonical.encode("utf-8")).hexdigest() == pins["object_sha256"], pid
        source = (REPO / "data/personas" / f"{pid}.json").read_bytes()
        assert hashlib.sha256(source).hexdigest() == pins["source_sha256"], pid


def edit_persona(path: Path, change) -> None:
    """Rewrite one persona source in the project's JSON style after `change` edits it."""
    persona = json.loads(path.read_text(encoding="utf-8"))
    change(persona)
    path.write_text(json.dumps(persona, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def v2_text(root: Path) -> str:
    """An episode text of v2's p01."""
    return json.loads((root / "data/archive/v2/personas/p01.json").read_text(encoding="utf-8"))["episodes"][0]["text"]


def replaced(path: Path, old: str, new: str) -> None:
    """Replace the first `old` in a text file with `new`."""
    path.write_text(path.read_text(encoding="utf-8").replace(old, new, 1), encoding="utf-8")


BREAKS = {
    "a carried file re-indented": (
        lambda root: replaced(root / "data/personas/p03.json", '  "age"', '   "age"'),
        "data/personas/p03.json: differs from v2's data/archive/v2/personas/p03.json",
    ),
    "a carried persona left out": (
        lambda root: (root / "data/personas/p07.json").unlink(),
        "carries personas p01, p02, p03, p04, p05, p06, p08",
    ),
    "a new persona reusing v2's text": (
        lambda root: edit_persona(
            root / "data/personas/p20.json", lambda p: p["episodes"][0].update(text=v2_text(root))
        ),
        "p20e01: episode text is reused from v2",
    ),
    "a new persona off its roster line": (
        lambda root: edit_persona(root / "data/personas/p31.json", lambda p: p.update(age=p["age"] + 1)),
        "p31: age differs from the roster line",
    ),
    "the roster missing": (
        lambda root: (root / "data/personas_v3_roster.json").unlink(),
        "p13: has no line in the v3 roster",
    ),
    "the v3 release edited": (
        lambda root: replaced(root / "data/epirec_v3.json", '"3.0"', '"3.1"'),
        "data/epirec_v3.json: differs from what `memrecall build` writes from the sources",
    ),
    "v3 left undeclared": (
        lambda root: (root / "data/memrecall_rules.json").write_text(
            '{"releases": {"epirec_v1.json": "memrecall-epirec-v1", "epirec_v2.json": "memrecall-epirec-v2"}}\n',
            encoding="utf-8",
        ),
        'declares no rule set for epirec_v3.json, which this checkout holds; add "epirec_v3.json": '
        '"memrecall-epirec-v3"',
    ),
}


@pytest.mark.parametrize("name", sorted(BREAKS))
@pytest.mark.slow
def test_each_break_is_named(checkout, name):
    """validate fails, naming the file or id and what is wrong, and changes nothing."""
    change, expected = BREAKS[name]
    change(checkout)
    before = {p: p.read_bytes() for p in (checkout / "data").rglob("*") if p.is_file()}
    result = run("validate", "--root", checkout)
    assert result.exit_code == 1, result.output
    assert expected in result.output, result.output
    assert "Traceback" not in result.output
    assert {p: p.read_bytes() for p in (checkout / "data").rglob("*") if p.is_file()} == before
