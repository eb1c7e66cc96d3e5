"""Check every output location before any work starts: never a folder for a file, never an input."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path

from memrecall.errors import ConfigError


class OutputError(ConfigError):
    """An output location cannot be written, or would overwrite one of the command's inputs."""


def _same(a: Path, b: Path) -> bool:
    """True when two paths name the same file (resolved, or the same inode when both exist)."""
    try:
        if a.exists() and b.exists():
            return os.path.samefile(a, b)
    except OSError:
        pass
    return a.resolve() == b.resolve()


def _writable_parent(path: Path) -> Path | None:
    """The nearest existing ancestor of `path`, or None when one of them is a file."""
    for parent in path.absolute().parents:
        if parent.exists():
            return parent if parent.is_dir() else None
    return None


def _check_location(option: str, path: Path, want_dir: bool) -> None:
    """A file output must not be a folder (and vice versa), and its place must be writable."""
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


def check_outputs(
    files: Mapping[str, Path | Iterable[Path] | None],
    inputs: Iterable[Path | None],
    folders: Mapping[str, Path | None] | None = None,
) -> None:
    """Refuse before any work: outputs that are folders (or files for folder options), unwritable, or inputs."""
    known_inputs = [Path(p) for p in inputs if p is not None and Path(p).exists()]
    for option, value in files.items():
        if value is None:
            continue
        for path in [value] if isinstance(value, (str, Path)) else value:
            path = Path(path)
            _check_location(option, path, want_dir=False)
            for source in known_inputs:
                if _same(path, source):
                    raise OutputError(f"{option} {path} is one of this command's inputs; refusing to overwrite it")
    for option, folder in (folders or {}).items():
        if folder is not None:
            _check_location(option, Path(folder), want_dir=True)
            for source in known_inputs:
                if _same(Path(folder), source):
                    raise OutputError(f"{option} {folder} is one of this command's inputs")
