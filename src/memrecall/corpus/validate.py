"""Validate an EpiRec checkout: schemas, spec rules, and release/checksum/Croissant agreement."""

from __future__ import annotations

from dataclasses import dataclass, field

from memrecall.corpus import rules
from memrecall.corpus.build import generated_files, release_stats
from memrecall.corpus.checks import Violation, check_corpus, check_dataset_card_episode, check_persona
from memrecall.corpus.checks_v2 import check_corpus_v2, check_persona_v2, reused_texts
from memrecall.corpus.checks_v3 import ROSTER_FILE, check_persona_in_v3, is_new_persona, roster_lines
from memrecall.corpus.croissant import CROISSANT_SPEC
from memrecall.corpus.sources import Layout, ReleaseSpec, load_personas, read_json_file, schema_violations
from memrecall.data.jsonfile import file_sha256, read_regular_bytes, read_regular_text, split_lines
from memrecall.errors import DatasetError


@dataclass
class ValidationResult:
    """What was counted per release, every violation found, and the valid sources per release."""

    counts: dict = field(default_factory=dict)
    violations: list[Violation] = field(default_factory=list)
    sources: dict[ReleaseSpec, list[dict]] = field(default_factory=dict)
    not_checked: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.violations


def _check_release_sources(layout: Layout, release: ReleaseSpec, result: ValidationResult) -> list[dict]:
    """Schema and the release's own spec rules over its persona sources; returns the valid personas."""
    loaded = load_personas(layout, release)
    result.violations.extend(loaded.violations)
    if not release.rules:
        result.not_checked.append(
            f"{release.file_name}: memrecall's own extra spec rules (the checkout declares none in "
            "data/memrecall_rules.json); checked: the card's format and rules (unique ids, one probe of each "
            "type per episode, implicit probes without emotion words or stems shared with their episode), "
            "checksums and Croissant"
        )
        result.violations.extend(_format_checks(loaded.personas, release.file_name))
        result.counts[release.version] = release_stats(loaded.personas, rules.REFERENCE_NOW)
        return loaded.personas
    reference = rules.parse_timestamp(rules.REFERENCE_NOW)
    roster = roster_lines(layout.root / "data" / ROSTER_FILE) if release.rules == 3 else {}
    folder = release.sources
    for persona, stem in zip(loaded.personas, loaded.files, strict=True):
        if release.rules == 3:
            found = check_persona_in_v3(persona, stem, reference, roster)
        else:
            found = (check_persona_v2 if release.rules == 2 else check_persona)(persona, stem, reference)
        result.violations.extend(Violation(f"{folder}/{stem}.json: {v.where}", v.message) for v in found)
    if loaded.personas:
        result.violations.extend(check_corpus(loaded.personas, reference))
        if release.rules >= 2:
            result.violations.extend(check_corpus_v2(loaded.personas))
    counts = release_stats(loaded.personas, rules.REFERENCE_NOW)
    counts["persona_files"] = len(loaded.files)
    result.counts[release.version] = counts
    return loaded.personas


def validate_sources(layout: Layout) -> ValidationResult:
    """Schema and spec rules over the persona sources of every release of the checkout."""
    result = ValidationResult()
    for release in layout.releases:
        personas = _check_release_sources(layout, release, result)
        if release.rules:
            result.sources[release] = personas
    by_rules = {r.rules: (r, personas) for r, personas in result.sources.items()}
    if 2 in by_rules and 1 in by_rules:
        result.violations.extend(reused_texts(by_rules[2][1], by_rules[1][1]))
    if 3 in by_rules:
        result.violations.extend(_carried_and_new(layout, by_rules))
    return result


def _carried_and_new(layout: Layout, by_rules: dict[int, tuple[ReleaseSpec, list[dict]]]) -> list[Violation]:
    """v3's p01..p12 are v2's source files byte for byte; its new personas repeat no text of v1.0 or v2."""
    v3, personas = by_rules[3]
    new = [p for p in personas if is_new_persona(p["persona_id"])]
    out = [
        v
        for rules, name in ((1, "v1.0"), (2, "v2"))
        if rules in by_rules
        for v in reused_texts(new, by_rules[rules][1], name)
    ]
    if 2 not in by_rules:
        return out
    v2 = by_rules[2][0]
    carried = sorted(p["persona_id"] for p in personas if not is_new_persona(p["persona_id"]))
    expected = sorted(p["persona_id"] for p in by_rules[2][1])
    if carried != expected:
        out.append(
            Violation(
                v3.sources, f"carries personas {', '.join(carried) or 'none'} of v2, expected {', '.join(expected)}"
            )
        )
    for pid in sorted(set(carried) & set(expected)):
        ours, theirs = layout.sources_dir(v3) / f"{pid}.json", layout.sources_dir(v2) / f"{pid}.json"
        if read_regular_bytes(ours) != read_regular_bytes(theirs):
            out.append(
                Violation(
                    layout.display(ours), f"differs from v2's {layout.display(theirs)}; v3 carries it byte for byte"
                )
            )
    return out


def validate_root(layout: Layout) -> ValidationResult:
    """Sources, then each release: equal to a fresh build, pinned by SHA256SUMS, described by Croissant."""
    result = validate_sources(layout)
    digests: dict[ReleaseSpec, str | None] = {}
    expected = generated_files(layout, result.sources) if result.ok and result.sources else {}
    for release in layout.releases:
        path = layout.release_file(release)
        where = layout.display(path)
        document, problems = read_json_file(path, where)
        result.violations.extend(problems)
        if document is not None:
            schema = "release" if release.rules else "release_format"
            result.violations.extend(schema_violations(document, schema, where))
        if not release.rules:
            result.not_checked.append(f"{where}: equality with a fresh build (not a memrecall release)")
        elif expected and document is not None and read_regular_bytes(path) != expected[path].encode("utf-8"):
            result.violations.append(Violation(where, "differs from what `memrecall build` writes from the sources"))
        digests[release] = file_sha256(path) if path.is_file() else None
    result.violations.extend(_check_checksums(layout, digests))
    result.violations.extend(_check_croissant(layout, digests))
    result.violations.extend(_interrupted_build(layout, expected))
    result.violations = list(dict.fromkeys(result.violations))  # a release read as sources is checked once
    return result


def _interrupted_build(layout: Layout, expected: dict) -> list[Violation]:
    """Stale SHA256SUMS or croissant.json whose build was really stopped between renames.

    A build stages every file as `.<name>.*.tmp` and renames them in order; only a build killed between
    those renames leaves a staged file behind that holds exactly what the stale file should hold.
    """
    from memrecall.corpus.build import stale_files

    if not expected:
        return []
    releases = {layout.release_file(r) for r in layout.releases}
    stale = stale_files(expected)
    if any(p in releases for p in stale):
        return []
    staged = [p for p in stale if p not in releases and _staged_copy(p, expected[p])]
    if not staged:
        return []
    names = " and ".join(layout.display(p) for p in staged)
    return [Violation(names, "older than the releases: a build was interrupted; `memrecall build` repairs it")]


def _staged_copy(path, text: str) -> bool:
    """True when a staged temp file of `path` (left by an interrupted build) holds exactly `text`."""
    for temp in path.parent.glob(f".{path.name}.*.tmp"):
        try:
            if read_regular_bytes(temp) == text.encode("utf-8"):
                return True
        except DatasetError:
            continue
    return False


def _check_checksums(layout: Layout, digests: dict[ReleaseSpec, str | None]) -> list[Violation]:
    """SHA256SUMS exists and its line for each release matches that release's sha256 (None: no release)."""
    where = layout.display(layout.checksums)
    if not layout.checksums.exists():
        return [Violation(where, "file is missing")]
    try:
        text = read_regular_text(layout.checksums)
    except DatasetError as exc:
        return [Violation(where, f"cannot read file: {exc.problem}"[:160])]
    entries = {}
    for number, line in enumerate(split_lines(text), start=1):
        parts = line.split()
        if len(parts) != 2:
            return [Violation(f"{where}: line {number}", "expected '<sha256>  <file name>'")]
        entries[parts[1].lstrip("*")] = parts[0]
    out = []
    for release, actual in digests.items():
        name = release.file_name
        if actual is None:
            continue
        if name not in entries:
            out.append(Violation(where, f"has no entry for {name}"))
        elif entries[name] != actual:
            out.append(
                Violation(where, f"sha256 for {name} is {entries[name][:12]}..., the file's is {actual[:12]}...")
            )
    return out


def _check_croissant(layout: Layout, digests: dict[ReleaseSpec, str | None]) -> list[Violation]:
    """croissant.json declares Croissant 1.1 and carries each release's sha256."""
    where = layout.display(layout.croissant)
    metadata, problems = read_json_file(layout.croissant, where)
    if problems:
        return problems
    if not isinstance(metadata, dict) or not declares_croissant(metadata):
        return [Violation(where, f"does not declare conformsTo {CROISSANT_SPEC}")]
    distribution = metadata.get("distribution", [])
    if not isinstance(distribution, list):
        return [
            Violation(f"{where}: distribution", f"expected an array of FileObjects, got {type(distribution).__name__}")
        ]
    carried = [d.get("sha256") for d in distribution if isinstance(d, dict)]
    return [
        Violation(where, f"no distribution carries the {release.file_name} sha256 {actual[:12]}...")
        for release, actual in digests.items()
        if actual is not None and actual not in carried
    ]


def declares_croissant(metadata: dict) -> bool:
    """conformsTo or dct:conformsTo names Croissant 1.1, as a string or within a list (any equivalent form)."""
    for key in ("conformsTo", "dct:conformsTo", "http://purl.org/dc/terms/conformsTo"):
        value = metadata.get(key)
        values = value if isinstance(value, list) else [value]
        if any((v.get("@id") if isinstance(v, dict) else v) == CROISSANT_SPEC for v in values):
            return True
    return False


def _format_checks(personas: list[dict], release: str) -> list[Violation]:
    """What the dataset card itself requires of any checkout: unique ids, complete probes, clean implicit probes."""
    out = [
        Violation(f"{release}: {persona['persona_id']}: {v.where}", v.message)
        for persona in personas
        for episode in persona["episodes"]
        for v in check_dataset_card_episode(episode)
    ]
    for label, values in (
        ("persona_id", [p["persona_id"] for p in personas]),
        ("episode id", [e["id"] for p in personas for e in p["episodes"]]),
        ("probe id", [q["id"] for p in personas for e in p["episodes"] for q in e["probes"]]),
    ):
        seen: set = set()
        for value in values:
            if value in seen:
                out.append(Violation(release, f"duplicate {label} {value!r}"))
            seen.add(value)
    return out
