"""Read EpiRec checkout files (persona sources, release, checksums) with schema checks."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, replace
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from memrecall.corpus.checks import Violation
from memrecall.corpus.declared import LayoutError, read_rules, rule_set_name


@dataclass(frozen=True)
class ReleaseSpec:
    """One EpiRec release of a checkout: its version, file name, source folder and rule set."""

    version: str
    file_name: str
    sources: str
    rules: int


# Every release memrecall knows, oldest first. The newest release of a checkout has its sources in
# data/personas/; each older one was frozen and its sources moved to data/archive/vN/personas/.
KNOWN = (
    ReleaseSpec("1.0", "epirec_v1.json", "data/personas", 1),
    ReleaseSpec("2.0", "epirec_v2.json", "data/personas", 2),
    ReleaseSpec("3.0", "epirec_v3.json", "data/personas", 3),
)
LEGACY_V1 = KNOWN[0]


def archive_folder(release: ReleaseSpec) -> str:
    """Where a release's sources live once a newer release has taken data/personas/."""
    return f"data/archive/v{release.version.split('.')[0]}/personas"


def layout_releases(root: Path) -> tuple[ReleaseSpec, ...]:
    """The releases a checkout holds: each archived one, then the next, whose sources are data/personas/.

    v1.0 and v2 archived: v1.0, v2 (archived) and v3 (data/personas/). v1.0 archived only: v1.0 and v2.
    Nothing archived: a v1-only checkout.
    """
    archived = []
    for release in KNOWN[:-1]:
        if not (root / archive_folder(release)).is_dir():
            break
        archived.append(replace(release, sources=archive_folder(release)))
    return (*archived, KNOWN[len(archived)])


SOURCE_NAME = re.compile(r"p[0-9]{2}\.json")


@dataclass(frozen=True)
class Layout:
    """Where the files of an EpiRec checkout live, relative to its root."""

    root: Path

    @property
    def releases(self) -> tuple[ReleaseSpec, ...]:
        """The releases of the checkout, each with the rule set it declares (0: the dataset card's format only).

        A checkout without data/archive/ is a v1-only checkout (sources in data/personas/, if any). When
        data/memrecall_rules.json exists it is the declaration: every release it names must have its source
        folder, and every release the checkout holds must be named in it.
        """
        candidates = layout_releases(self.root)
        archived = len(candidates) > 1
        declared = self.declared_rules()
        if declared is None:
            found = [r for r in candidates if (self.root / r.sources).is_dir()] if archived else [LEGACY_V1]
            return tuple(replace(r, rules=0) for r in found)
        where = self.display(self.rules_file)
        by_name = {r.file_name: r for r in candidates}
        for name in declared:
            if name not in by_name:
                raise LayoutError(
                    f"{where} declares {name}, which this checkout does not have "
                    f"(its releases: {', '.join(by_name)}); remove it from the file or restore the release"
                )
            folder = by_name[name].sources
            if not (self.root / folder).is_dir():
                raise LayoutError(
                    f"{where} declares {name}, but its sources folder {folder}/ is missing; "
                    f"restore {folder}/ (git checkout -- {folder}) before building or validating"
                )
        for release in candidates:
            present = (self.root / release.sources).is_dir() or self.release_file(release).exists()
            if present and release.file_name not in declared:
                raise LayoutError(
                    f"{where} declares no rule set for {release.file_name}, which this checkout holds; "
                    f'add "{release.file_name}": "{rule_set_name(release.rules)}" to its "releases"'
                )
        return tuple(replace(r, rules=declared[r.file_name]) for r in candidates if r.file_name in declared)

    @property
    def rules_file(self) -> Path:
        return self.root / "data" / "memrecall_rules.json"

    def declared_rules(self) -> dict[str, int] | None:
        """Release file name -> memrecall rule set, from data/memrecall_rules.json; None when there is no such file."""
        return read_rules(self.rules_file, self.display(self.rules_file))

    @property
    def current(self) -> ReleaseSpec:
        """The newest release of the checkout: what audit and labels work on."""
        return self.releases[-1]

    def sources_dir(self, release: ReleaseSpec) -> Path:
        return self.root / release.sources

    def release_file(self, release: ReleaseSpec) -> Path:
        return self.root / "data" / release.file_name

    @property
    def personas(self) -> Path:
        return self.sources_dir(self.current)

    @property
    def release(self) -> Path:
        return self.release_file(self.current)

    @property
    def checksums(self) -> Path:
        return self.root / "data" / "SHA256SUMS"

    @property
    def croissant(self) -> Path:
        return self.root / "data" / "croissant.json"

    def display(self, path: Path) -> str:
        """A path as shown in messages: relative to the root when possible."""
        try:
            return path.relative_to(self.root).as_posix()
        except ValueError:
            return str(path)


@dataclass
class Loaded:
    """Persona sources that passed the schema, and every problem met while reading."""

    personas: list[dict[str, Any]] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    violations: list[Violation] = field(default_factory=list)


@cache
def schema(name: str) -> dict:
    """A packaged JSON Schema by file stem: persona, release or rankings_line."""
    text = resources.files("memrecall").joinpath("schemas", f"{name}.schema.json").read_text(encoding="utf-8")
    return json.loads(text)


def schema_violations(document: Any, schema_name: str, where: str) -> list[Violation]:
    """Every jsonschema error of `document`, each named by file and JSON path."""
    from jsonschema import Draft202012Validator

    validator = Draft202012Validator(schema(schema_name))
    out = []
    for error in sorted(validator.iter_errors(document), key=lambda e: (list(map(str, e.absolute_path)), e.message)):
        out.append(Violation(f"{where}: {json_path(error.absolute_path)}", f"schema: {error.message}"))
    return out


def json_path(parts) -> str:
    """`personas[3].episodes[7].date_time` from a jsonschema path deque; `$` for the root."""
    text = ""
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "$"


def read_json_file(path: Path, where: str) -> tuple[Any, list[Violation]]:
    """Parse a JSON file; on failure return a Violation naming line and column instead."""
    from memrecall.data.jsonfile import DuplicateKey, loads_strict, read_regular_text
    from memrecall.errors import DatasetError

    if not path.exists() and not path.is_symlink():
        return None, [Violation(where, "file is missing")]
    try:
        text = read_regular_text(path)
    except DatasetError as exc:
        return None, [Violation(where, f"cannot read file: {exc.problem}")]
    try:
        return loads_strict(text), []
    except json.JSONDecodeError as exc:
        return None, [Violation(where, f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}")]
    except DuplicateKey as exc:
        return None, [Violation(where, str(exc))]


def load_personas(layout: Layout, release: ReleaseSpec | None = None) -> Loaded:
    """Every persona source of a release (default: the current one) in name order; invalid files are reported."""
    loaded = Loaded()
    release = release or layout.current
    folder = layout.sources_dir(release)
    if not folder.is_dir():
        if not release.rules:
            return _release_personas(layout, release, loaded)
        loaded.violations.append(Violation(layout.display(folder), "folder is missing"))
        return loaded
    schema_name = "persona" if release.rules else "persona_format"
    loaded.violations.extend(_misnamed_sources(layout, folder, release))
    for path in sorted(p for p in folder.glob("*.json") if p.is_file()):
        where = layout.display(path)
        document, problems = read_json_file(path, where)
        problems = problems or schema_violations(document, schema_name, where)
        loaded.violations.extend(problems)
        if not problems:
            loaded.personas.append(document)
            loaded.files.append(path.stem)
    if not loaded.files and not loaded.violations:
        loaded.violations.append(Violation(layout.display(folder), "holds no persona files"))
    return loaded


def _misnamed_sources(layout: Layout, folder: Path, release: ReleaseSpec) -> list[Violation]:
    """Entries of a source folder that are not persona sources by the declared name (pNN.json), never skipped silently.

    Under memrecall's rules every entry must be a file named pNN.json; in the dataset card's format, a .json file.
    """
    out = []
    for path in sorted(folder.iterdir()):
        if release.rules:
            fits = path.is_file() and SOURCE_NAME.fullmatch(path.name) is not None
            expected = "a persona source file named pNN.json (lower case, e.g. p12.json)"
        else:
            fits = path.is_file() and path.name.endswith(".json") or not path.name.lower().endswith(".json")
            expected = "a persona source file ending in .json"
        if not fits:
            out.append(
                Violation(layout.display(path), f"not {expected}; rename it or move it out of {release.sources}/")
            )
    return out


def _release_personas(layout: Layout, release: ReleaseSpec, loaded: Loaded) -> Loaded:
    """A checkout without persona sources: its personas are read from the release (the dataset card's format)."""
    path = layout.release_file(release)
    where = layout.display(path)
    document, problems = read_json_file(path, where)
    problems = problems or schema_violations(document, "release_format", where)
    loaded.violations.extend(problems)
    if not problems:
        loaded.personas = list(document["personas"])
        loaded.files = [str(p["persona_id"]) for p in loaded.personas]
    return loaded
