"""What signed content records of the code that ranked: the spec, the class, the source's sha256 or its
distribution, every source file of its top-level package, the config, and where it ran. Source facts are read
before the plug-in is imported, so a plug-in that rewrites its own file on import is recorded as it was; the
worker then runs only those bytes (running/boundary/hashed_import.py)."""

from __future__ import annotations

import hashlib
import importlib.machinery
import sys
from pathlib import Path
from typing import Any

from memrecall.systems.contract import unwrapped
from memrecall.systems.registry import entry_point, module_file


def _file_facts(path: Path | None) -> dict:
    """The source file's name and sha256 (both None when it can't be found)."""
    if path is None or not path.is_file():
        return {"source_file": None, "source_sha256": None}
    return {"source_file": path.name, "source_sha256": hashlib.sha256(path.read_bytes()).hexdigest()}


def source_facts(spec: str | None, built: Any = None) -> dict:
    """Where a plug-in's code comes from: its entry point's distribution and version, and its module file."""
    if built is not None:
        module = sys.modules.get(type(unwrapped(built)).__module__)
        file = getattr(module, "__file__", None)
        return _file_facts(Path(file) if file else None)
    entry = entry_point(str(spec))
    facts: dict = {}
    target = str(spec)
    if entry is not None:
        dist = getattr(entry, "dist", None)
        facts = {"distribution": dist.name if dist else None, "distribution_version": dist.version if dist else None}
        target = entry.value
    module = target.partition(":")[0].strip()
    return {**facts, **_file_facts(module_file(module, [str(Path.cwd()), *sys.path]))}


CODE_SUFFIXES = tuple(importlib.machinery.all_suffixes())
MAX_CODE_FILES = 20000


def code_root(spec: str | None, built: Any = None) -> tuple[Path, bool] | None:
    """The plug-in's code: (its top-level package folder, True) or (a single-file module's folder, False)."""
    if built is not None:
        top = type(unwrapped(built)).__module__.partition(".")[0]
        file = getattr(sys.modules.get(top), "__file__", None)
    else:
        entry = entry_point(str(spec))
        target = entry.value if entry is not None else str(spec)
        top = target.partition(":")[0].strip().partition(".")[0]
        found = module_file(top, [str(Path.cwd()), *sys.path]) if top else None
        file = str(found) if found else None
        if file is None and top:  # a namespace package (a folder without __init__.py): its folder
            folders = _namespace_folders(top)
            return (Path(folders[0]).resolve(), True) if len(folders) == 1 else None
    if not file:
        return None
    path = Path(file).resolve()
    return (path.parent, True) if path.stem == "__init__" else (path.parent, False)


def _namespace_folders(top: str) -> list[str]:
    """The folders of a top-level namespace package, found without importing it ([] when it is not one)."""
    try:
        found = importlib.machinery.PathFinder.find_spec(top, [str(Path.cwd()), *sys.path])
    except (ImportError, ValueError, OSError):
        return []
    folders = found.submodule_search_locations if found is not None and found.origin is None else None
    return list(dict.fromkeys(folders or []))


def code_files(root: Path, package: bool) -> dict[str, str]:
    """Relative path -> sha256 of every source and extension file of a package (or of a module's folder and
    the regular packages in it, which the module can import), in path order."""
    found = list(root.rglob("*") if package else root.glob("*"))
    if not package:
        for sub in sorted(p for p in found if p.is_dir() and p.name.isidentifier() and (p / "__init__.py").is_file()):
            found += sub.rglob("*")
    files = sorted(p for p in found if p.name.endswith(CODE_SUFFIXES) and "__pycache__" not in p.parts and p.is_file())
    if len(files) > MAX_CODE_FILES:
        from memrecall.errors import ConfigError

        raise ConfigError(f"the plug-in's code folder {root} holds more than {MAX_CODE_FILES} source files")
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest() for p in files}


def code_manifest(spec: str | None, built: Any = None) -> dict | None:
    """The plug-in's code as hashed before it runs: its folder, whether a package, each file's sha256, and a
    digest of the list (None when the code can't be found)."""
    found = code_root(spec, built)
    if found is None:
        return None
    root, package = found
    files = code_files(root, package)
    listing = "".join(f"{digest}  {name}\n" for name, digest in files.items())
    digest = hashlib.sha256(listing.encode("utf-8")).hexdigest()
    entry = entry_point(str(spec)) if built is None else None
    metadata = getattr(getattr(entry, "dist", None), "_path", None)  # its dist-info, so the entry point resolves
    return {
        "root": str(root),
        "package": package,
        "files": files,
        "manifest_sha256": digest,
        "metadata": str(metadata) if metadata is not None else None,
    }


def signed_code(manifest: dict | None) -> dict | None:
    """What signed content keeps of a manifest: the folder's name, each file's sha256, and the digest."""
    if manifest is None:
        return None
    return {
        "folder": Path(manifest["root"]).name,
        "package": manifest["package"],
        "files": [{"path": name, "sha256": digest} for name, digest in manifest["files"].items()],
        "manifest_sha256": manifest["manifest_sha256"],
    }


def plugin_identity(
    spec: str | None, isolation: str, source: dict, declared: dict, code: dict | None = None, sandbox: Any = None
) -> dict:
    """A plug-in's identity for signed content: origin, isolation, spec, class, source, code and config."""
    identity = {
        "origin": "run",
        "isolation": isolation,
        "spec": spec,
        "class": declared["class"],
        "config": declared["config"],
        **source,
        "code": signed_code(code),
    }
    if sandbox is not None:
        identity["sandbox"] = sandbox
    return identity


RANKINGS_FILE = {"origin": "rankings file"}
