"""Validate an EpiRec checkout: schemas, spec rules, and release/checksum/Croissant agreement."""

from __future__ import annotations

from dataclasses import dataclass, field

from memrecall.corpus import rules
from memrecall.corpus.build import generated_files, release_stats
from memrecall.corpus.checks import Violation, check_corpus, check_persona
from memrecall.corpus.croissant import CROISSANT_SPEC
from memrecall.corpus.sources import Layout, load_personas, read_json_file, schema_violations
from memrecall.datasets.jsonfile import file_sha256


@dataclass
class ValidationResult:
    """What was counted and every violation found."""

    counts: dict = field(default_factory=dict)
    violations: list[Violation] = field(default_factory=list)
    personas: list[dict] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.violations


def validate_sources(layout: Layout) -> ValidationResult:
    """Schema and spec rules over the persona sources only."""
    loaded = load_personas(layout)
    result = ValidationResult(violations=list(loaded.violations), personas=loaded.personas)
    reference = rules.parse_timestamp(rules.REFERENCE_NOW)
    for persona, stem in zip(loaded.personas, loaded.files, strict=True):
        found = check_persona(persona, stem, reference)
        result.violations.extend(Violation(f"data/personas/{stem}.json: {v.where}", v.message) for v in found)
    if loaded.personas:
        result.violations.extend(check_corpus(loaded.personas, reference))
    result.counts = release_stats(loaded.personas, rules.REFERENCE_NOW)
    result.counts["persona_files"] = len(loaded.files)
    return result


def validate_root(layout: Layout) -> ValidationResult:
    """Sources, then the release: equal to a fresh build, pinned by SHA256SUMS, described by Croissant."""
    result = validate_sources(layout)
    release_where = layout.display(layout.release)
    release, problems = read_json_file(layout.release, release_where)
    result.violations.extend(problems)
    if release is not None:
        result.violations.extend(schema_violations(release, "release", release_where))
    if result.ok:
        expected = generated_files(layout, result.personas)
        if layout.release.read_bytes() != expected[layout.release].encode("utf-8"):
            result.violations.append(
                Violation(release_where, "differs from what `memrecall build` writes from the sources")
            )
    release_sha256 = file_sha256(layout.release) if layout.release.exists() else None
    result.violations.extend(_check_checksums(layout, release_sha256))
    result.violations.extend(_check_croissant(layout, release_sha256))
    return result


def _check_checksums(layout: Layout, actual: str | None) -> list[Violation]:
    """SHA256SUMS exists and its line for the release matches the release's sha256 (None: no release)."""
    where = layout.display(layout.checksums)
    if not layout.checksums.exists():
        return [Violation(where, "file is missing")]
    if actual is None:
        return []
    entries = {}
    for number, line in enumerate(layout.checksums.read_text(encoding="utf-8").splitlines(), start=1):
        parts = line.split()
        if len(parts) != 2:
            return [Violation(f"{where}: line {number}", "expected '<sha256>  <file name>'")]
        entries[parts[1].lstrip("*")] = parts[0]
    name = layout.release.name
    if name not in entries:
        return [Violation(where, f"has no entry for {name}")]
    if entries[name] != actual:
        return [Violation(where, f"sha256 for {name} is {entries[name][:12]}..., the file's is {actual[:12]}...")]
    return []


def _check_croissant(layout: Layout, actual: str | None) -> list[Violation]:
    """croissant.json declares Croissant 1.1 and carries the release's sha256 (None: no release)."""
    where = layout.display(layout.croissant)
    metadata, problems = read_json_file(layout.croissant, where)
    if problems:
        return problems
    out = []
    if not isinstance(metadata, dict) or metadata.get("conformsTo") != CROISSANT_SPEC:
        out.append(Violation(where, f"does not declare conformsTo {CROISSANT_SPEC}"))
        return out
    if actual is not None:
        digests = [d.get("sha256") for d in metadata.get("distribution", []) if isinstance(d, dict)]
        if actual not in digests:
            out.append(Violation(where, f"no distribution carries the release sha256 {actual[:12]}..."))
    return out
