"""In the worker: the plug-in's own modules are compiled from exactly the source bytes the scorer hashed.

A module under the plug-in's code folder is loaded from its source file, whose sha256 must be the one in the
manifest the scorer recorded in signed content; cached bytecode (`__pycache__`, even with a matching size and
mtime) is never read, and none is written. A file that changed since it was hashed, or that was not there
when it was, is refused in one line. Modules outside the folder (the Python environment) load as usual.
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

from memrecall.errors import ConfigError


class HashedSourceLoader(importlib.abc.SourceLoader):
    """A source loader that checks the file's sha256 and never reads or writes bytecode."""

    def __init__(self, fullname: str, path: str, expected: str) -> None:
        self.name, self.path, self.expected = fullname, path, expected

    def get_filename(self, fullname: str) -> str:
        """The module's source file."""
        return self.path

    def get_data(self, path: str) -> bytes:
        """The source bytes, refused unless they hash to what the scorer recorded; never a .pyc."""
        if path != self.path:
            raise OSError(f"{path}: only the hashed source is read")
        data = Path(path).read_bytes()
        if hashlib.sha256(data).hexdigest() != self.expected:
            raise ConfigError(f"the plug-in's file {path} changed after the scorer hashed it; run again")
        return data

    def path_stats(self, path: str) -> Any:
        """No bytecode is looked up (SourceLoader reads it only when this answers)."""
        raise OSError("no bytecode")

    def set_data(self, path: str, data: bytes, *, _mode: int = 0o666) -> None:
        """No bytecode is written."""


class CheckedExtensionLoader(importlib.machinery.ExtensionFileLoader):
    """An extension module of the plug-in, loaded only when its file hashes to what the scorer recorded."""

    def __init__(self, fullname: str, path: str, expected: str) -> None:
        super().__init__(fullname, path)
        self.expected = expected

    def create_module(self, spec: Any) -> ModuleType:
        """Check the file, then load it."""
        if hashlib.sha256(Path(self.path).read_bytes()).hexdigest() != self.expected:
            raise ConfigError(f"the plug-in's file {self.path} changed after the scorer hashed it; run again")
        return super().create_module(spec)


class HashedCodeFinder(importlib.abc.MetaPathFinder):
    """Finds modules as usual, then hands those under the plug-in's folder to the checking loaders."""

    def __init__(self, root: str, files: dict[str, str], package: bool) -> None:
        self.root = Path(root).resolve()
        self.files, self.package = files, package

    def _covers(self, origin: Path) -> bool:
        """True for a file of the plug-in: in its package, or beside its single-file module."""
        return origin.parent == self.root or (self.package and self.root in origin.parents)

    def find_spec(self, fullname: str, path: Sequence[str] | None, target: Any = None) -> Any:
        """The path finder's spec with a checking loader when its file is the plug-in's; else None (the usual
        finders go on as if this one were not there)."""
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or not spec.origin or spec.origin in ("built-in", "frozen"):
            return None
        origin = Path(spec.origin).resolve()
        if not self._covers(origin):
            return None
        relative = origin.relative_to(self.root).as_posix()
        if relative not in self.files:
            raise ConfigError(f"the plug-in's file {origin} was not there when the scorer hashed its code")
        expected = self.files[relative]
        if isinstance(spec.loader, importlib.machinery.ExtensionFileLoader):
            spec.loader = CheckedExtensionLoader(fullname, str(origin), expected)
        else:
            spec.loader = HashedSourceLoader(fullname, str(origin), expected)
        spec.cached = None
        return spec


def install(manifest: dict | None) -> None:
    """Put the finder first on sys.meta_path for the plug-in's code (nothing without a manifest)."""
    sys.dont_write_bytecode = True
    if manifest:
        sys.meta_path.insert(0, HashedCodeFinder(manifest["root"], manifest["files"], manifest["package"]))
