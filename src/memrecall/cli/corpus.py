"""Corpus commands: validate, build, audit and the human label audit."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from memrecall.cli.options import OUTPUT, ROOT, Command, Group
from memrecall.io import announce

AUDIT_OUTPUT = Path("results/ambiguity_candidates.json")
SHEET = Path("results/sample_for_rating.csv")


def _layout(root: Path):
    """The checkout at `root`; a folder that is not one is a usage error suggesting --root."""
    from memrecall.corpus.sources import Layout

    _require_checkout(root)
    return Layout(root.resolve())


def _in(layout) -> str:
    """` (checkout /abs/path)`: the checkout a corpus command looked at, for its last line."""
    return f" (checkout {layout.root})"


CHECKOUT_MARKS = ("data/personas", "data/archive/v1/personas", "data/epirec_v1.json", "data/SHA256SUMS")


def _require_checkout(root: Path) -> None:
    """Refuse a folder that holds none of an EpiRec checkout's files, naming the folder looked at."""
    from memrecall.errors import UsageError

    if not any((root / mark).exists() for mark in CHECKOUT_MARKS) and not list(root.glob("data/epirec_v*.json")):
        raise UsageError(
            f"no EpiRec checkout in {root.resolve()}: it has none of {', '.join(CHECKOUT_MARKS)}; "
            "run this inside a checkout, or give --root PATH/TO/CHECKOUT"
        )


def _corpus_plan(layout, generated: bool = True):
    """An output plan protecting the checkout: its source folders are read-only trees, its corpus files inputs."""
    from memrecall.cli.common import new_plan, protect_checkout

    plan = new_plan(checkout=False)
    for release in layout.releases:
        plan.protect("the corpus sources", layout.sources_dir(release))
        if generated:
            plan.input("the corpus file", layout.release_file(release))
    protect_checkout(plan, layout.root, generated)
    if generated:
        plan.input("the corpus file", layout.checksums)
        plan.input("the corpus file", layout.croissant)
    return plan


def _guard(option: str, output: Path, layout) -> Path:
    """Refuse an output that is a folder, unwritable, or inside or one of the corpus files; returns it absolute."""
    plan = _corpus_plan(layout)
    output = plan.output(option, output)
    plan.check()
    return output


def _schema_valid_personas(layout):
    """The persona sources, or every reading/schema violation on stderr and exit 1."""
    from memrecall.corpus.sources import load_personas

    loaded = load_personas(layout)
    if loaded.violations:
        for violation in loaded.violations:
            click.echo(f"violation: {violation}", err=True)
        sys.exit(1)
    return loaded


def _print_counts(counts_by_version: dict) -> None:
    """Per release: one line of totals, then one line per count group."""
    for version, counts in counts_by_version.items():
        click.echo(
            f"EpiRec v{version} personas: {counts.get('personas', 0)}  episodes: {counts.get('episodes', 0)}  "
            f"probes: {counts.get('probes', 0)}"
        )
        for key in ("intensity_bands", "valences", "age_buckets"):
            values = counts.get(key, {})
            click.echo(f"  {key}: " + ", ".join(f"{k} {v}" for k, v in values.items()))


@click.command(cls=Command)
@ROOT
def validate(root: Path) -> None:
    """Check schemas, spec rules, release and checksums."""
    from memrecall.corpus.validate import validate_root

    layout = _layout(root)
    result = validate_root(layout)
    _print_counts(result.counts)
    for note in result.not_checked:
        click.echo(f"not checked: {note}")
    for violation in result.violations:
        click.echo(f"violation: {violation}")
    if not result.ok:
        click.echo(f"{len(result.violations)} violation(s){_in(layout)}", err=True)
        sys.exit(1)
    click.echo(f"valid: 0 violations{_in(layout)}")


@click.command(cls=Command)
@ROOT
@click.option("--check", is_flag=True, help="Write nothing; fail if any generated file is stale.")
def build(root: Path, check: bool) -> None:
    """Build release, SHA256SUMS and croissant.json."""
    from memrecall.corpus.build import dropped_entries, generated_files, stale_files, write_files
    from memrecall.corpus.validate import validate_sources

    layout = _layout(root)
    result = validate_sources(layout)
    if not result.ok:
        for violation in result.violations:
            click.echo(f"violation: {violation}", err=True)
        click.echo(f"refusing to build: {len(result.violations)} violation(s) in the sources{_in(layout)}", err=True)
        sys.exit(1)
    if not result.sources:
        _check_foreign_checkout(layout, check)
        return
    files = generated_files(layout, result.sources)
    dropped = dropped_entries(layout, list(result.sources))
    if dropped:
        for line in dropped:
            click.echo(f"cannot rebuild: {line}", err=True)
        click.echo(
            "refusing to build: it would drop what it cannot rebuild; restore the release's sources and declare "
            "it in data/memrecall_rules.json",
            err=True,
        )
        sys.exit(1)
    if not check:
        plan = _corpus_plan(layout, generated=False)
        for path in files:
            plan.output("build", path)
        plan.check()
    if check:
        stale = stale_files(files)
        for path in stale:
            click.echo(f"stale: {layout.display(path)} differs from what build would write", err=True)
        if stale:
            sys.exit(1)
        click.echo("current: " + ", ".join(layout.display(p) for p in files) + _in(layout))
        return
    written = write_files(files)
    for path in written:
        announce(f"wrote {layout.display(path)}")
    announce(f"built {len(written)} file(s){_in(layout)}" if written else f"up to date: nothing written{_in(layout)}")


def _check_foreign_checkout(layout, check: bool) -> None:
    """A checkout that declares no memrecall rules: --check verifies its checksums and Croissant; build refuses."""
    from memrecall.corpus.validate import validate_root

    if not check:
        click.echo("refusing to build: the checkout declares no memrecall rules (data/memrecall_rules.json)", err=True)
        sys.exit(1)
    result = validate_root(layout)
    for note in result.not_checked:
        click.echo(f"not checked: {note}")
    for violation in result.violations:
        click.echo(f"stale: {violation}", err=True)
    if not result.ok:
        sys.exit(1)
    click.echo(f"current: the release agrees with data/SHA256SUMS and data/croissant.json{_in(layout)}")


@click.command(cls=Command)
@ROOT
@click.option(
    "--threshold",
    type=click.FloatRange(0.0, 1.0),
    default=0.10,
    show_default=True,
    help="Jaccard threshold for episode near-neighbours.",
)
@OUTPUT
def audit(root: Path, threshold: float, output: Path | None) -> None:
    """List lexical ambiguity candidates for review into --output [default: results/ambiguity_candidates.json]."""
    from memrecall.corpus.audit import audit_personas
    from memrecall.io import write_json

    layout = _layout(root)
    output = _guard("--output", output or AUDIT_OUTPUT, layout)
    loaded = _schema_valid_personas(layout)
    result = audit_personas(loaded.personas, threshold)
    write_json(output, result)
    counts = result["counts"]
    click.echo(f"episode pairs with Jaccard >= {threshold:.2f}: {counts['episode_pairs']}")
    for pair in result["episode_pairs"][:10]:
        click.echo(f"  {' ~ '.join(pair['episodes'])}  {pair['jaccard']:.3f}  {', '.join(pair['shared'])}")
    click.echo(
        f"probes with a rival episode: {counts['probes_with_candidates']} "
        + "("
        + ", ".join(f"{k} {v}" for k, v in counts["by_probe_type"].items())
        + ")"
    )
    announce(f"written: {output}{_in(layout)}")


@click.group(cls=Group)
def labels() -> None:
    """Human label audit: sample, then rater agreement."""


@labels.command("sample")
@ROOT
@click.option("--size", type=click.IntRange(min=1), default=60, show_default=True, help="Episodes to sample.")
@OUTPUT
def labels_sample(root: Path, size: int, output: Path | None) -> None:
    """Write the stratified 60-episode rating sheet to --output [default: results/sample_for_rating.csv]."""
    from memrecall.corpus.labels import sample_csv, sample_episodes
    from memrecall.io import atomic_write_text

    layout = _layout(root)
    output = _guard("--output", output or SHEET, layout)
    loaded = _schema_valid_personas(layout)
    sample = sample_episodes(loaded.personas, size)
    atomic_write_text(output, sample_csv(sample))
    announce(f"sampled {len(sample)} episodes -> {output}{_in(layout)}")


@labels.command("agree")
@ROOT
@click.argument("ratings", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--sheet",
    "sample_path",
    type=click.Path(path_type=Path),
    default=Path("human_validation/sample_for_rating.csv"),
    show_default=True,
    help="The rating sheet the raters filled in (`memrecall labels sample` writes it).",
)
@click.option(
    "--out-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("results"),
    show_default=True,
    help="Where agreement.json and disputes.csv go.",
)
def labels_agree(root: Path, ratings: tuple[Path, ...], sample_path: Path, out_dir: Path) -> None:
    """Score rater agreement (kappa) and list disputes."""
    from memrecall.corpus.labels import LabelsError, agreement, disputes_csv, read_ratings
    from memrecall.corpus.sources import load_personas
    from memrecall.data.jsonfile import read_csv_rows
    from memrecall.errors import DatasetError
    from memrecall.io import atomic_write_text, write_json

    if len(ratings) < 2:
        raise click.BadParameter("give at least two rater files", param_hint="RATINGS")
    layout = _layout(root)
    plan = _corpus_plan(layout)
    for path in ratings:
        plan.input("RATINGS", path)
    plan.input("--sample", sample_path)
    out_dir = plan.folder("--out-dir", out_dir, ["agreement.json", "disputes.csv"])
    plan.check()
    try:
        sample_ids = [row["episode_id"] for row in read_csv_rows(sample_path)]
    except DatasetError as exc:
        raise LabelsError(f"{sample_path}: cannot read the sample ({exc.problem})") from None
    except KeyError:
        raise LabelsError(f"{sample_path}: cannot read the sample (it has no episode_id column)") from None
    if len({p.resolve() for p in ratings}) != len(ratings):
        raise LabelsError("the same rater file is given twice")
    stems = [p.stem for p in ratings]
    keys = stems if len(set(stems)) == len(stems) else [p.as_posix() for p in ratings]
    problems, raters = [], {}
    for key, path in zip(keys, ratings, strict=True):
        try:
            raters[key] = read_ratings(path, sample_ids)
        except LabelsError as exc:
            problems.append(str(exc))
    if problems:
        raise LabelsError("\n".join(problems))
    episodes = {e["id"]: e for p in load_personas(layout).personas for e in p["episodes"]}
    unknown = [i for i in sample_ids if i not in episodes]
    if unknown:
        raise LabelsError(f"{sample_path}: {len(unknown)} id(s) not in the corpus, e.g. {unknown[0]}")
    summary, disputes = agreement(raters, {i: episodes[i] for i in sample_ids})
    write_json(out_dir / "agreement.json", summary)
    atomic_write_text(out_dir / "disputes.csv", disputes_csv(disputes))
    for pair, values in summary["pairs"].items():
        click.echo(
            f"{pair}: band kappa {values['band_kappa']:.3f}, valence kappa {values['valence_kappa']:.3f}, "
            f"band exact {values['band_exact']:.2f}, within one {values['band_within_one']:.2f}"
        )
    click.echo(f"disputed: {summary['disputed']} of {summary['episodes']} -> {out_dir / 'disputes.csv'}{_in(layout)}")
