"""Family: an output that coincides with an input or another output. Generated: every output option of every
command against every input kind and every other output, directly, through derived names, symlinks and hard links.

Each variant must refuse with one line naming both sides, exit 1, and leave the whole tree byte-identical.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import MINI_RELEASE, run
from corpus_factory import persona, write_checkout
from helpers import LME, LOCOMO, assert_one_line_error

PLUGIN = "memrecall_fault_plugin"
FILE, FOLDER, DERIVED = "file", "folder", "derived"


@dataclass(frozen=True)
class Out:
    """An output option: FILE (the value is written), FOLDER (value/name is written), DERIVED (value -> name)."""

    option: str
    kind: str
    name: str = ""
    value_name: str = ""

    def value_for(self, written: Path) -> Path:
        """The option value that makes the command write `written`."""
        if self.kind == FILE:
            return written
        return written.parent if self.kind == FOLDER else written.with_name(self.value_name)

    def written_in(self, folder: Path) -> Path:
        """A written path of this option inside `folder`."""
        return folder / (self.name or "out.json")


CARD = [Out("--report-dir", FOLDER, "README.md"), Out("--report-dir", FOLDER, "recall_by_probe_type.png")]
HARNESS = [
    Out("--output", FILE),
    Out("--export-rankings", DERIVED, "run.fts5.jsonl", "run.jsonl"),
    Out("--per-query", FILE),
    Out("--report-dir", FOLDER, "recall_curve.png"),
]
# command -> (arguments with {placeholders}, output options, input kinds it reads besides cache and sources)
COMMANDS = {
    "baseline": (
        ["baseline", "--strategies", "hashing", "--data", "{epirec}", "--quiet"],
        [Out("--output", FILE), Out("--per-query", FILE), Out("--export-rankings", FOLDER, "hashing.jsonl"), *CARD],
        ["epirec"],
    ),
    "run": (
        ["run", "epirec", "--system", f"{PLUGIN}:S", "--data", "{epirec}", "--quiet"],
        [Out("--output", FILE), Out("--export-rankings", FILE), Out("--per-query", FILE), *CARD],
        ["epirec", "module"],
    ),
    "run-longmemeval": (
        ["run", "longmemeval", "--system", f"{PLUGIN}:S", "--data", "{lme}", "--quiet"],
        [Out("--output", FILE), Out("--export-official-log", FILE)],
        ["lme", "module"],
    ),
    "evaluate": (
        ["evaluate", "{rankings}", "--data", "{epirec}"],
        [Out("--output", FILE), Out("--per-query", FILE), *CARD],
        ["rankings", "epirec"],
    ),
    "compare": (
        ["compare", "{rankings}", "{rankings2}", "--data", "{epirec}"],
        [Out("--output", FILE), Out("--per-query", FILE), CARD[0]],
        ["rankings", "rankings2", "epirec"],
    ),
    "report": (
        ["report", "{report}", "--per-query", "{perquery}", "--rankings", "{replayed}"],
        [Out("--out", FOLDER, "README.md"), Out("--out", FOLDER, "recall_curve.png")],
        ["report", "perquery", "replayed"],
    ),
    "longmemeval": (
        ["longmemeval", "--data", "{lme}", "--modes", "fts5,dense", "--quiet"],
        [*HARNESS, Out("--export-official-log", DERIVED, "run.fts5.jsonl", "run.log")],
        ["lme"],
    ),
    "locomo": (["locomo", "--data", "{locomo}", "--modes", "fts5,dense", "--quiet"], HARNESS, ["locomo"]),
    "audit": (["audit", "--root", "{checkout}"], [Out("--output", FILE)], []),
    "labels-sample": (["labels", "sample", "--root", "{checkout}"], [Out("--output", FILE)], []),
    "labels-agree": (
        ["labels", "agree", "--root", "{checkout}", "{ratings}", "{ratings2}", "--sample", "{sample}"],
        [Out("--out-dir", FOLDER, "agreement.json"), Out("--out-dir", FOLDER, "disputes.csv")],
        ["ratings", "ratings2", "sample"],
    ),
}
# input kind -> (the label its refusal names, the file's natural name, the bytes it holds)
FILES = {
    "epirec": ("--data", "release.json", MINI_RELEASE.read_bytes()),
    "lme": ("--data", "lme.json", LME.read_bytes()),
    "locomo": ("--data", "locomo.json", LOCOMO.read_bytes()),
    "rankings": ("RANKINGS", "a.jsonl", b'{"query_id": "q", "ranking": []}\n'),
    "rankings2": ("RANKINGS", "b.jsonl", b'{"query_id": "q", "ranking": ["x"]}\n'),
    "report": ("REPORT", "r.report.json", b'{"content": {}}\n'),
    "perquery": ("--per-query", "pq.jsonl", b'{"query_id": "q"}\n'),
    "replayed": ("--rankings", "rk.jsonl", b'{"query_id": "q", "ranking": []}\n'),
    "ratings": ("RATINGS", "ann.csv", b"episode_id,intensity_band,valence\n"),
    "ratings2": ("RATINGS", "bob.csv", b"episode_id,intensity_band,valence\n"),
    "sample": ("--sample", "sample.csv", b"episode_id\np01e01\n"),
    "module": ("--system", f"{PLUGIN}.py", b"open('IMPORTED', 'w').close()\nclass S: ...\n"),
    "cache": ("the embedding cache", "vectors-v2.sqlite", b"SQLite format 3\x00 hours of encoding"),
}
FIXED_NAME = {"module", "cache"}  # found by their own name: never renamed to an output's name
TREES = {"sources": "the corpus sources", "cachedir": "the embedding cache"}


def snapshot(root: Path) -> dict[str, str]:
    """Every path below root with what it is: file bytes' sha256, a symlink's target, or a folder."""
    out = {}
    for parent, folders, files in os.walk(root):
        for name in folders + files:
            path = Path(parent) / name
            if path.is_symlink():
                out[str(path)] = "-> " + os.readlink(path)
            elif path.is_file():
                out[str(path)] = hashlib.sha256(path.read_bytes()).hexdigest()
            else:
                out[str(path)] = "dir"
    return out


class Setup:
    """A checkout as the working folder, the cache in MEMRECALL_CACHE, and every input at its natural place."""

    def __init__(self, tmp: Path, monkeypatch) -> None:
        self.tmp = tmp
        self.checkout = write_checkout(tmp / "ck", [persona(1)])
        self.cache = tmp / "cache"
        self.paths: dict[str, Path] = {}
        monkeypatch.chdir(self.checkout)
        monkeypatch.setenv("MEMRECALL_CACHE", str(self.cache))
        (tmp / "out").mkdir()

    def place(self, kind: str, at: Path | None = None) -> Path:
        """Create input `kind` at `at` (default: its natural place) and remember where it is."""
        label, name, data = FILES[kind]
        if at is None:
            at = (
                self.cache / name
                if kind == "cache"
                else (self.checkout if kind == "module" else self.tmp / "in") / name
            )
        at.parent.mkdir(parents=True, exist_ok=True)
        at.write_bytes(data)
        self.paths[kind] = at
        return at

    def argv(self, template: list[str], kinds: list[str], extra: list) -> list[str]:
        """The command line: every input placed (where not placed yet), then the output options."""
        for kind in [*kinds, "cache"]:
            if kind not in self.paths:
                self.place(kind)
        values = {k: str(p) for k, p in self.paths.items()} | {"checkout": str(self.checkout)}
        return [part.format(**values) for part in template] + [str(x) for x in extra]

    def tree(self, kind: str) -> Path:
        """A protected folder and one file inside it."""
        if kind == "cachedir":
            self.place("cache")
            return self.cache
        return self.checkout / "data" / "personas"


def _link(mode: str, target: Path, link: Path) -> None:
    link.parent.mkdir(parents=True, exist_ok=True)
    if mode == "symlink":
        link.symlink_to(target)
    else:
        os.link(target, link)


def input_variants():
    """(command, output option, input kind, alias mode) for every file input."""
    for command, (_, outs, kinds) in COMMANDS.items():
        for out in outs:
            for kind in [*kinds, "cache"]:
                for mode in ("direct", "symlink", "hardlink"):
                    if mode == "direct" and kind in FIXED_NAME and out.kind != FILE:
                        continue
                    yield pytest.param(command, out, kind, mode, id=f"{command}-{out.option}-{out.name}-{kind}-{mode}")


@pytest.mark.parametrize(("command", "out", "kind", "mode"), list(input_variants()))
def test_no_output_coincides_with_an_input(tmp_path, monkeypatch, command, out, kind, mode):
    template, _, kinds = COMMANDS[command]
    setup = Setup(tmp_path, monkeypatch)
    written = out.written_in(tmp_path / "out" / "d")
    if mode == "direct":
        written = setup.place(kind) if kind in FIXED_NAME else setup.place(kind, written)
    else:
        _link(mode, setup.place(kind), written)
    argv = setup.argv(template, kinds, [out.option, out.value_for(written)])
    before = snapshot(tmp_path)
    result = run(*argv)
    assert_one_line_error(result, "is one of this command's inputs" if kind != "cache" else "the embedding cache")
    assert out.option in result.output and FILES[kind][0] in result.output
    assert len(result.output.strip().splitlines()) == 1, result.output
    assert snapshot(tmp_path) == before


def tree_variants():
    """(command, output option, protected folder, alias mode) for the corpus sources and the embedding cache."""
    for command, (_, outs, _) in COMMANDS.items():
        for out in outs:
            for kind in TREES:
                for mode in ("direct", "symlink", "hardlink"):
                    yield pytest.param(command, out, kind, mode, id=f"{command}-{out.option}-{out.name}-{kind}-{mode}")


@pytest.mark.parametrize(("command", "out", "kind", "mode"), list(tree_variants()))
def test_no_output_lands_inside_a_protected_folder(tmp_path, monkeypatch, command, out, kind, mode):
    template, _, kinds = COMMANDS[command]
    setup = Setup(tmp_path, monkeypatch)
    tree = setup.tree(kind)
    if mode == "direct":
        written = out.written_in(tree)
    elif mode == "symlink":
        _link("symlink", tree, tmp_path / "out" / "lnk")
        written = out.written_in(tmp_path / "out" / "lnk")
    else:
        inside = next(p for p in sorted(tree.iterdir()) if p.is_file())
        written = out.written_in(tmp_path / "out" / "d")
        _link("hardlink", inside, written)
    argv = setup.argv(template, kinds, [out.option, out.value_for(written)])
    before = snapshot(tmp_path)
    result = run(*argv)
    assert_one_line_error(result, f"lies inside {TREES[kind]}")
    assert out.option in result.output
    assert len(result.output.strip().splitlines()) == 1, result.output
    assert snapshot(tmp_path) == before


def pair_variants():
    """(command, first option, second option, alias mode) for every two outputs that can name one file."""
    for command, (_, outs, _) in COMMANDS.items():
        for i, first in enumerate(outs):
            for second in outs[i + 1 :]:
                if first.option == second.option or first.name and second.name and first.name != second.name:
                    continue
                for mode in ("direct", "symlink", "hardlink"):
                    ident = f"{command}-{first.option}{first.name}-{second.option}{second.name}-{mode}"
                    yield pytest.param(command, first, second, mode, id=ident)


@pytest.mark.parametrize(("command", "first", "second", "mode"), list(pair_variants()))
def test_no_two_outputs_coincide(tmp_path, monkeypatch, command, first, second, mode):
    template, _, kinds = COMMANDS[command]
    setup = Setup(tmp_path, monkeypatch)
    name = first.name or second.name or "same.json"
    written = tmp_path / "out" / "d" / name
    other = written
    if mode != "direct":
        other = tmp_path / "out" / "e" / name
        if mode == "hardlink":
            written.parent.mkdir(parents=True)
            written.write_text("an earlier output")
        _link(mode, written, other)
    extra = [first.option, first.value_for(written), second.option, second.value_for(other)]
    argv = setup.argv(template, kinds, extra)
    before = snapshot(tmp_path)
    result = run(*argv)
    assert_one_line_error(result, "are the same file; give each output its own path")
    assert first.option in result.output and second.option in result.output
    assert snapshot(tmp_path) == before


def test_the_generator_covers_every_command_and_input_kind():
    commands = {v.values[0] for v in input_variants()}
    kinds = {v.values[2] for v in input_variants()}
    assert commands == set(COMMANDS)
    assert kinds == set(FILES)
    assert len(list(input_variants())) + len(list(tree_variants())) + len(list(pair_variants())) > 300


@pytest.mark.slow
def test_distinct_outputs_beside_linked_inputs_still_run(tmp_path, monkeypatch):
    """The control: a hard link to an input is fine as an input, and outputs beside it are written."""
    setup = Setup(tmp_path, monkeypatch)
    data = setup.place("epirec")
    linked = tmp_path / "in" / "linked.json"
    os.link(data, linked)
    out = tmp_path / "out"
    result = run(
        "baseline", "--strategies", "hashing", "--data", linked, "--quiet", "--output", out / "r.json",
        "--per-query", out / "pq.jsonl", "--export-rankings", out, "--report-dir", out,
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert json.loads((out / "r.json").read_text())["content"]["task"]["queries"] > 0
    assert (out / "hashing.jsonl").is_file() and (out / "README.md").is_file()
    assert data.read_bytes() == MINI_RELEASE.read_bytes()


@pytest.mark.parametrize("command", ["baseline", "run", "longmemeval"])
def test_a_refusal_creates_no_cache_and_no_report_folder(tmp_path, monkeypatch, command):
    template, _, kinds = COMMANDS[command]
    setup = Setup(tmp_path, monkeypatch)
    monkeypatch.setenv("MEMRECALL_CACHE", str(tmp_path / "fresh-cache"))
    setup.place(kinds[0])
    argv = setup.argv(template, kinds, ["--report-dir", tmp_path / "card", "--per-query", setup.paths[kinds[0]]])
    before = snapshot(tmp_path)
    result = run(*argv)
    assert_one_line_error(result, "is one of this command's inputs")
    assert not (tmp_path / "fresh-cache").exists() and not (tmp_path / "card").exists()
    assert not (setup.checkout / "results").exists() and not (setup.checkout / "IMPORTED").exists()
    assert snapshot(tmp_path) == before
