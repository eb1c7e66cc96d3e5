"""In the worker: the plug-in's own modules are compiled from exactly the source bytes the scorer hashed.

A module under the plug-in's code folder is loaded from its source file, whose sha256 must be the one in the
manifest the scorer recorded in signed content; cached bytecode (`__pycache__`, even with a matching size and
mtime) is never read, and none is written. A file under that folder that changed since it was hashed, or that
was not there when it was, is refused in one line. Modules of the Python environment (its prefixes, which
hold the standard library and site-packages, and memrecall's own package) load as usual, with their installed
bytecode. Any other module (a folder on PYTHONPATH, an --allow-read folder) is compiled from its source, never
from bytecode: as an empty PYTHONPYCACHEPREFIX would do for it, without recompiling the whole environment.
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


class SourceOnlyLoader(HashedSourceLoader):
    """A module outside the plug-in's code and the Python environment: compiled from its source, never bytecode."""

    def __init__(self, fullname: str, path: str) -> None:
        super().__init__(fullname, path, "")

    def get_data(self, path: str) -> bytes:
        """The source bytes; never a .pyc."""
        if path != self.path:
            raise OSError(f"{path}: only the source is read")
        return Path(path).read_bytes()


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


def environment_roots() -> tuple[Path, ...]:
    """The folders whose modules load as installed: the interpreter's prefixes and memrecall's own package."""
    roots = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
    roots.add(str(Path(__file__).resolve().parents[2]))  # memrecall's own package
    return tuple(sorted({Path(r).resolve() for r in roots if r}))


class HashedCodeFinder(importlib.abc.MetaPathFinder):
    """Finds modules as usual, then hands those under the plug-in's folder to the checking loaders, and those
    outside it and outside the Python environment to the source-only loader."""

    def __init__(self, root: str, files: dict[str, str], package: bool) -> None:
        self.root = Path(root).resolve()
        self.files, self.package = files, package
        self.environment = environment_roots()

    def _within(self, origin: Path, roots: Sequence[Path]) -> bool:
        """True for a file inside one of `roots`."""
        return any(root in origin.parents for root in roots)

    def find_spec(self, fullname: str, path: Sequence[str] | None, target: Any = None) -> Any:
        """The path finder's spec with a checking loader when its file is the plug-in's; a source-only loader
        when it is neither the plug-in's nor the environment's; else None (the usual finders go on)."""
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or not spec.origin or spec.origin in ("built-in", "frozen"):
            return None
        origin = Path(spec.origin).resolve()
        if isinstance(spec.loader, importlib.machinery.SourcelessFileLoader) and not self._within(
            origin, self.environment
        ):
            raise ConfigError(f"{origin}: bytecode without its source; the plug-in runs only from source")
        relative = origin.relative_to(self.root).as_posix() if self.root in origin.parents else None
        if relative is None or relative not in self.files:
            environment = [root for root in self.environment if root in origin.parents]
            if relative is not None and not any(self.root in root.parents for root in environment):
                # under the plug-in's folder, not hashed, and not in an environment kept inside that folder
                raise ConfigError(f"the plug-in's file {origin} was not there when the scorer hashed its code")
            if environment:
                return None
            if isinstance(spec.loader, importlib.machinery.SourceFileLoader):
                spec.loader = SourceOnlyLoader(fullname, str(origin))
                spec.cached = None
            return spec
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
