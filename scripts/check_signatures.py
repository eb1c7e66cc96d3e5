"""Regenerate the committed reports and check their fingerprints are the same: `python scripts/check_signatures.py`.

Run by .ci/run. The LoCoMo reports are checked too when ../shared/data/locomo10.json is present.
Exit 1 naming every report whose content_sha256 differs from the committed one (old reports' `signature` key
is read as the same fingerprint).

`--write` (after a change that is meant to move them) writes the regenerated reports over the committed ones,
redraws each one's card and figures in site/figures/, and prints every old and new fingerprint for the
changelog.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LOCOMO = ROOT.parent / "shared" / "data" / "locomo10.json"
MEMORY_MODELS = "recency,dense,time-decay,salience-oracle,salience-vader,gated"
# each committed report's card and figures
FIGURES = {
    "site/baselines.json": "site/figures/epirec",
    "site/baselines_v2.json": "site/figures/epirec_v2",
    "site/baselines_v1.json": "site/figures/epirec_v1",
    "site/memory_models.json": "site/figures/memory_models",
    "site/memory_models_v2.json": "site/figures/memory_models_v2",
    "site/memory_models_v1.json": "site/figures/memory_models_v1",
    "site/locomo_session.json": "site/figures/locomo_session",
    "site/locomo_turn.json": "site/figures/locomo_turn",
}
REPORTS = [
    ("site/baselines.json", ["baseline"]),
    ("site/baselines_v2.json", ["baseline", "--data", "data/epirec_v2.json"]),
    ("site/baselines_v1.json", ["baseline", "--data", "data/epirec_v1.json"]),
    ("site/memory_models.json", ["baseline", "--strategies", MEMORY_MODELS]),
    ("site/memory_models_v2.json", ["baseline", "--data", "data/epirec_v2.json", "--strategies", MEMORY_MODELS]),
    ("site/memory_models_v1.json", ["baseline", "--data", "data/epirec_v1.json", "--strategies", MEMORY_MODELS]),
]
LOCOMO_REPORTS = [
    ("site/locomo_session.json", ["locomo", "--data", str(LOCOMO), "--granularity", "session", "--coverage-k", "20"]),
    ("site/locomo_turn.json", ["locomo", "--data", str(LOCOMO), "--granularity", "turn", "--coverage-k", "50"]),
]


def main(write: bool = False) -> int:
    """Regenerate each report into a temporary folder and compare fingerprints (and write them, with --write)."""
    sys.path.insert(0, str(ROOT / "src"))
    from memrecall.reports.proof.fingerprint import report_fingerprint

    reports = REPORTS + (LOCOMO_REPORTS if LOCOMO.exists() else [])
    if not LOCOMO.exists():
        print(f"check_signatures: {LOCOMO} is not present; LoCoMo reports not checked", file=sys.stderr)
    failures = 0
    with tempfile.TemporaryDirectory() as folder:
        for committed, args in reports:
            output = Path(folder) / Path(committed).name
            command = [sys.executable, "-m", "memrecall", *args, "--quiet", "--output", str(output)]
            done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
            if done.returncode != 0:
                print(f"FAILED {committed}: {done.stderr.strip()}", file=sys.stderr)
                failures += 1
                continue
            expected = report_fingerprint(json.loads((ROOT / committed).read_text(encoding="utf-8")))
            actual = report_fingerprint(json.loads(output.read_text(encoding="utf-8")))
            status = "ok" if actual is not None and actual == expected else "DIFFERS"
            if write and status != "ok":
                shutil.copyfile(output, ROOT / committed)
                card = [sys.executable, "-m", "memrecall", "report", committed, "--out", FIGURES[committed]]
                subprocess.run(card, cwd=ROOT, check=True, capture_output=True)
                status = "WRITTEN"
            failures += status == "DIFFERS"
            print(f"{status} {committed}: committed {expected}, regenerated {actual}", file=sys.stderr)
    return 1 if failures else 0


def parse(argv: list[str]) -> bool:
    """--write or nothing; -h/--help prints the module's description, anything else is a usage error."""
    import argparse

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--write", action="store_true", help="write the regenerated reports over the committed ones")
    return parser.parse_args(argv).write


if __name__ == "__main__":
    sys.exit(main(write=parse(sys.argv[1:])))
