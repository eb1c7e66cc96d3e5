"""Every generated artefact under site/, rebuilt and checked by one command.

    python scripts/site.py build [PART ...]    rebuild the parts (default: all but `analyses`), in place
    python scripts/site.py check [PART ...]    exit 1 naming every file a rebuild would change (what CI runs)

The parts, what they make and how `check` holds them:

    leaderboard  site/leaderboard/ (page, cards, figures, diff pages, summaries) from its committed entries, with
                 README's table and docs/encoders.md's overview: rebuilt in a scratch copy, byte for byte
    figures      site/figures/NAME/ (card and PNGs) of each committed report (`memrecall report`): byte for byte
    audit        site/ambiguity_candidates.json (`memrecall audit`, the newest release): byte for byte
    separable    site/epirec_separable.json (scripts/epirec_separable.py, from the entries): byte for byte
    claims       docs/claims.md's table from site/claims.json (scripts/measure_claims.py --render): the table;
                 claims.json itself is measured by running every product (scripts/measure_claims.py)
    validity     docs/construct-validity.md's table from site/construct_validity.json: the table; the JSON
                 itself is remade from runs by scripts/construct_validity.py (the page gives the commands)
    reports      site/{baselines,memory_models}*.json and site/locomo_*.json: regenerated and compared by
                 fingerprint (scripts/check_signatures.py; `build` writes those that differ, with --write)
    analyses     site/epirec_v3_analyses.json (scripts/epirec_v3_analyses.py: runs baselines and an adapter,
                 minutes): byte for byte; only when named

site/ambiguity_candidates_v2.json and _v1.json are frozen: `memrecall audit` made them when v2 and v1.0 were the
newest release, and it audits only the newest. Rebuilding the leaderboard's entries themselves (rerunning systems,
or rescoring them under new rules) is scripts/leaderboard.py sweep / rescore.
"""

from __future__ import annotations

import filecmp
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SITE = ROOT / "site"
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT / "src"))

import check_signatures  # noqa: E402  (a sibling script)
import leaderboard  # noqa: E402

AUDIT = SITE / "ambiguity_candidates.json"
SEPARABLE = SITE / "epirec_separable.json"
ANALYSES = SITE / "epirec_v3_analyses.json"


def memrecall(*args: str | Path) -> list[str]:
    """The memrecall CLI of this checkout with `args`, as a command."""
    return [sys.executable, "-m", "memrecall", *(str(a) for a in args)]


def differs(fresh: Path, committed: Path) -> list[str]:
    """Each file under `fresh` and `committed` (files or folders) that is missing, extra or not the same bytes."""
    if fresh.is_file() or committed.is_file():
        same = fresh.is_file() and committed.is_file() and filecmp.cmp(fresh, committed, shallow=False)
        return [] if same else [committed.relative_to(ROOT).as_posix()]
    names = {p.relative_to(fresh) for p in fresh.rglob("*") if p.is_file()}
    names |= {p.relative_to(committed) for p in committed.rglob("*") if p.is_file()}
    return [(committed / n).relative_to(ROOT).as_posix() for n in sorted(names) if differs(fresh / n, committed / n)]


def figures(out: Path | None) -> list[str]:
    """Each committed report's card and figures (into `out`, or in place); the paths that differ."""
    problems = []
    for report, folder in check_signatures.FIGURES.items():
        target = ROOT / folder if out is None else out / folder
        subprocess.run(memrecall("report", report, "--out", target), cwd=ROOT, check=True, capture_output=True)
        problems += [] if out is None else differs(target, ROOT / folder)
    return problems


def remade(committed: Path, out: Path | None, command: list[str | Path], quiet: bool = True) -> list[str]:
    """Run `command` + ["--output", target] (target: `committed`, or its name in `out`); the path when it differs."""
    target = committed if out is None else out / committed.name
    subprocess.run([str(a) for a in [*command, "--output", target]], cwd=ROOT, check=True, capture_output=quiet)
    return [] if out is None else differs(target, committed)


def audit(out: Path | None) -> list[str]:
    """The newest release's ambiguity candidates; the path when it differs."""
    return remade(AUDIT, out, memrecall("audit"))


def separable(out: Path | None) -> list[str]:
    """Which rows each EpiRec release separates from dense; the path when it differs."""
    return remade(SEPARABLE, out, [sys.executable, "scripts/epirec_separable.py"])


def analyses(out: Path | None) -> list[str]:
    """EpiRec v3's registered analyses (minutes: their progress shows); the path when it differs."""
    return remade(ANALYSES, out, [sys.executable, "scripts/epirec_v3_analyses.py"], quiet=False)


def claims(out: Path | None) -> list[str]:
    """docs/claims.md's table from site/claims.json (rewritten in place by build); docs/claims.md when it differs."""
    import json

    import measure_claims

    measured = json.loads(measure_claims.CLAIMS_JSON.read_text(encoding="utf-8"))
    if out is None:
        measure_claims.render(measured)
        return []
    text = measure_claims.CLAIMS_DOC.read_text(encoding="utf-8")
    between = text.split(measure_claims.MARK + "\n")
    return [] if len(between) > 1 and between[1] == measure_claims.table(measured) + "\n" else ["docs/claims.md"]


def validity(out: Path | None) -> list[str]:
    """docs/construct-validity.md's table from site/construct_validity.json (its runs are not committed, so the JSON
    is remade only by scripts/construct_validity.py); docs/construct-validity.md when the table differs."""
    import json

    import construct_validity

    result = json.loads(construct_validity.OUT.read_text(encoding="utf-8"))
    text = construct_validity.with_table(construct_validity.DOC, construct_validity.markdown(result))
    if out is None:
        construct_validity.DOC.write_text(text, encoding="utf-8")
        return []
    return [] if text == construct_validity.DOC.read_text(encoding="utf-8") else ["docs/construct-validity.md"]


def site_leaderboard(out: Path | None) -> list[str]:
    """The leaderboard page and README's table from the committed entries; `check` says what differs."""
    if out is None:
        leaderboard.build(leaderboard.SITE)
        leaderboard.write_readmes(leaderboard.SITE / "entries")
        return []
    return leaderboard.problems()


def reports(out: Path | None) -> list[str]:
    """The committed reports' fingerprints against a regeneration (build writes those that differ)."""
    if check_signatures.main(write=out is None) and out is not None:
        return ["site/*.json: a committed report's fingerprint differs (see above)"]
    return []


PARTS: dict[str, Callable[[Path | None], list[str]]] = {
    "leaderboard": site_leaderboard,
    "figures": figures,
    "audit": audit,
    "separable": separable,
    "claims": claims,
    "validity": validity,
    "reports": reports,
    "analyses": analyses,
}
DEFAULT = [name for name in PARTS if name != "analyses"]


def main(argv: list[str]) -> int:
    """build or check the named parts (default: all but analyses); 2 on a usage error, 1 when check finds a change."""
    usage = f"usage: python scripts/site.py build|check [{' '.join(PARTS)}]"
    if argv[:1] in (["-h"], ["--help"]):
        print(f"{usage}\n\n{__doc__}")
        return 0
    if not argv or argv[0] not in ("build", "check") or any(a not in PARTS for a in argv[1:]):
        print(usage, file=sys.stderr)
        return 2
    chosen = argv[1:] or DEFAULT
    if argv[0] == "build":
        for name in chosen:
            print(f"site: building {name}", file=sys.stderr, flush=True)
            PARTS[name](None)
        return 0
    problems = []
    with tempfile.TemporaryDirectory(prefix="memrecall-site-") as scratch:
        for name in chosen:
            print(f"site: checking {name}", file=sys.stderr, flush=True)
            folder = Path(scratch) / name
            folder.mkdir()
            problems += [f"{name}: {p}" for p in PARTS[name](folder)]
    for problem in problems:
        print(f"site check: {problem}", file=sys.stderr)
    if problems:
        print("site check: run `python scripts/site.py build`, read the change, and commit", file=sys.stderr)
        return 1
    print(f"site check: {', '.join(chosen)}: site/ is what its commands make")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
