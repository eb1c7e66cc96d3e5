"""One output plan per command: every file it writes and every input it reads, checked before any work starts."""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from memrecall.errors import ConfigError, short

# What a report card folder may receive (reports/cards/card.py and reports/cards/figures.py write no other name).
CARD_FILES = (
    "README.md",
    "recall_by_probe_type.png",
    "recall_by_intensity_band.png",
    "recall_by_age_bucket.png",
    "recall_curve.png",
    "recall_curve_by_question_type.png",
    "recall_curve_by_category.png",
    "recall_curve_by_probe_type.png",
)
# The embedding cache's SQLite file (encoding/vector_cache.py CACHE_FILE) and the files SQLite keeps beside it.
CACHE_FILES = ("vectors-v2.sqlite", "vectors-v2.sqlite-wal", "vectors-v2.sqlite-shm", "vectors-v2.sqlite-journal")


class OutputError(ConfigError):
    """An output location cannot be written, coincides with another output, or would change an input."""


MAX_NAME_PART = 200  # bytes: a file name piece made from a name, leaving room for its suffix under 255


def name_part(name: str, what: str = "name") -> str:
    """`name` as one piece of a file name: letters, digits, '-', '_' and '.' kept, any other character %XX-escaped.

    The one slug rule for every path made from a name: distinct names give distinct pieces (the escape is
    reversible, see name_of_part), and a piece never holds '/', never starts with '.', so the path never
    leaves its folder nor makes a subfolder. Ordinary names (not starting with '.') come back byte-identical.
    """
    from urllib.parse import quote

    if not isinstance(name, str) or not name:
        raise OutputError(f"{what} {name!r}: a file name cannot be made from an empty name")
    part = quote(name, safe="").replace("~", "%7E")
    part = "%2E" + part[1:] if part.startswith(".") else part
    if len(part.encode("utf-8")) > MAX_NAME_PART:
        raise OutputError(
            f"{what} {short(repr(name))} is too long for a file name "
            f"({len(part)} characters once escaped; at most {MAX_NAME_PART})"
        )
    return part


def name_of_part(part: str) -> str:
    """The name a file name piece was made from (name_part's inverse)."""
    from urllib.parse import unquote

    return unquote(part)


def absolute(path: str | Path) -> Path:
    """`path` made absolute against the current folder now (symlinks kept), so a later chdir cannot move it."""
    return Path(os.path.abspath(os.fspath(path)))


def _real(path: Path) -> Path:
    """The path with every symlink of its existing part resolved."""
    return Path(os.path.realpath(path))


def _inode(path: Path) -> tuple[int, int] | None:
    """(st_dev, st_ino) of an existing path (hard links share it), else None."""
    try:
        stat = path.stat()
    except OSError:
        return None
    return stat.st_dev, stat.st_ino


def _inside(path: Path, folder: Path) -> bool:
    """True when the resolved `path` is `folder` or lies below it."""
    return path == folder or folder in path.parents


@dataclass(frozen=True)
class _Entry:
    label: str
    path: Path

    @property
    def real(self) -> Path:
        return _real(self.path)

    def shown(self) -> str:
        return f"{self.label} {self.path}"


@dataclass
class OutputPlan:
    """Every file a command will write and every input it reads; `check()` refuses any clash before work starts.

    Inputs are files that must not change (data, rankings, per-query inputs, a plug-in's module file);
    protected folders are trees nothing may be written inside (corpus sources, the embedding cache).
    A store is a folder the command itself writes into (the embedding cache): other outputs stay out of it.
    """

    files: list[_Entry] = field(default_factory=list)
    folders: list[_Entry] = field(default_factory=list)
    inputs: list[_Entry] = field(default_factory=list)
    protected: list[_Entry] = field(default_factory=list)
    stores: list[_Entry] = field(default_factory=list)

    def output(self, option: str, path: str | Path | None) -> Path | None:
        """Declare one output file; returns its absolute path (what the command must write to)."""
        if path is None:
            return None
        fixed = absolute(path)
        self.files.append(_Entry(option, fixed))
        return fixed

    def folder(self, option: str, path: str | Path | None, names: Iterable[str] = ()) -> Path | None:
        """Declare an output folder and the file names the command may write inside it."""
        if path is None:
            return None
        fixed = absolute(path)
        self.folders.append(_Entry(option, fixed))
        for name in names:
            self.files.append(_Entry(f"{option} ({name})", fixed / name))
        return fixed

    def card(self, option: str, path: str | Path | None) -> Path | None:
        """Declare a report card folder: README.md and every figure a card can hold."""
        return self.folder(option, path, CARD_FILES)

    def input(self, label: str, path: str | Path | None) -> Path | None:
        """Declare a file the command reads and must leave unchanged ('-', stdin, is not a file)."""
        if path is None or str(path) == "-":
            return None if path is None else Path("-")
        fixed = absolute(path)
        self.inputs.append(_Entry(label, fixed))
        return fixed

    def protect(self, label: str, folder: str | Path | None) -> None:
        """Declare a folder nothing may be written inside (corpus sources, a cache this command only reads)."""
        if folder is not None:
            self.protected.append(_Entry(label, absolute(folder)))

    def store(self, option: str, folder: str | Path | None) -> Path | None:
        """Declare the embedding cache folder the command writes into: its files are outputs, the rest stays out."""
        if folder is None:
            return None
        fixed = absolute(folder)
        self.stores.append(_Entry(option, fixed))
        return fixed

    def check(self) -> None:
        """Refuse, in one line naming both sides, any clash; create nothing."""
        for entry in self.files:
            _check_location(entry, want_dir=False)
        for entry in self.folders:
            _check_location(entry, want_dir=True)
        for entry in self.stores:
            if entry.path.exists() and not entry.path.is_dir():
                raise OutputError(f"{entry.shown()} is a file; give a folder path for the embedding cache")
        writes = [*self.files, *(_Entry(s.label, s.path / name) for s in self.stores for name in CACHE_FILES)]
        self._check_distinct()
        for entry in writes:
            self._check_against_inputs(entry)
        for entry in [*self.folders, *self.stores]:
            self._check_folder(entry)

    def _check_distinct(self) -> None:
        """No two output files may be the same file, by path, symlink or hard link."""
        seen: dict[Path, _Entry] = {}
        inodes: dict[tuple[int, int], _Entry] = {}
        for entry in self.files:
            real, inode = entry.real, _inode(entry.path)
            other = seen.get(real) or (inodes.get(inode) if inode else None)
            if other is not None:
                raise OutputError(
                    f"{other.shown()} and {entry.shown()} are the same file; give each output its own path"
                )
            seen[real] = entry
            if inode:
                inodes[inode] = entry

    def _check_against_inputs(self, entry: _Entry) -> None:
        """An output must not be an input, lie inside a protected folder, or (for plain outputs) in a store."""
        real, inode = entry.real, _inode(entry.path)
        for source in self.inputs:
            if real == source.real or (inode is not None and inode == _inode(source.path)):
                raise OutputError(
                    f"{entry.shown()} is one of this command's inputs; refusing to overwrite it ({source.shown()})"
                )
        for tree in self.protected + (self.stores if entry in self.files else []):
            if _inside(real, tree.real) or (inode is not None and inode in _tree_inodes(tree.path)):
                raise OutputError(
                    f"{entry.shown()} lies inside {tree.shown()}, which this command must not change; "
                    "write it elsewhere"
                )

    def _check_folder(self, entry: _Entry) -> None:
        """An output folder must not be an input, nor be or lie inside a protected folder."""
        real = entry.real
        for source in self.inputs:
            if real == source.real:
                raise OutputError(f"{entry.shown()} is one of this command's inputs ({source.shown()})")
        others = self.protected + [s for s in self.stores if s is not entry and entry in self.folders]
        for tree in others:
            if _inside(real, tree.real):
                raise OutputError(
                    f"{entry.shown()} lies inside {tree.shown()}, which this command must not change; "
                    "write it elsewhere"
                )


def _tree_inodes(folder: Path) -> set[tuple[int, int]]:
    """(st_dev, st_ino) of every file below `folder` (symlinks not followed): hard links into it are caught."""
    found = set()
    for parent, _, names in os.walk(folder):
        for name in names:
            inode = _inode(Path(parent) / name)
            if inode:
                found.add(inode)
    return found


def _writable_parent(path: Path) -> Path | None:
    """The nearest existing ancestor of `path`, or None when one of them is a file."""
    for parent in path.parents:
        if parent.exists():
            return parent if parent.is_dir() else None
    return None


def _check_location(entry: _Entry, want_dir: bool) -> None:
    """A file output must not be a folder (and vice versa), and its place must be writable."""
    option, path = entry.label, entry.path
    kind = "folder" if want_dir else "file"
    if path.exists():
        if want_dir != path.is_dir():
            actual = "a folder" if path.is_dir() else "a file"
            raise OutputError(f"{option} {path} is {actual}; give a {kind} path")
        target = path if want_dir else path.parent
        if not os.access(target, os.W_OK):
            raise OutputError(f"{option} {path}: {target} is not writable")
        return
    parent = _writable_parent(path)
    if parent is None:
        raise OutputError(f"{option} {path}: a parent of it is a file, not a folder")
    if not os.access(parent, os.W_OK):
        raise OutputError(f"{option} {path}: {parent} is not writable")
