"""Check draft persona files while authoring: `python -m memrecall.corpus.draft_check FILE...`.

Files p01..p12 get the v2 rules; p13 and on (EpiRec v3's new part) get v3's, their roster line
(data/personas_v3_roster.json) and a check that no text repeats the v1.0 or v2 release. A draft may sit in
data/personas/ or below it in data/drafts/v3/: data/ is the nearest folder above the file that holds v2.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from memrecall.corpus import rules
from memrecall.corpus.checks import Violation, check_corpus
from memrecall.corpus.checks_v2 import check_corpus_v2, reused_texts
from memrecall.corpus.checks_v3 import ROSTER_FILE, check_persona_in_v3, is_new_persona, roster_lines
from memrecall.corpus.sources import read_json_file, schema_violations

OLDER_RELEASES = {"v1.0": "epirec_v1.json", "v2": "epirec_v2.json"}


def check_draft_files(paths: list[Path]) -> list[Violation]:
    """Schema and each file's per-persona rules, then the corpus rules over them all and reuse of older text."""
    reference = rules.parse_timestamp(rules.REFERENCE_NOW)
    out: list[Violation] = []
    valid, new = [], []
    rosters: dict[Path, dict[str, dict]] = {}  # each checkout's roster and older releases, read once
    older: dict[Path, dict[str, list[dict]]] = {}
    for path in paths:
        document, problems = read_json_file(path, str(path))
        problems = problems or schema_violations(document, "persona", str(path))
        out.extend(problems)
        if problems:
            continue
        folder = data_folder(path)
        if folder not in rosters:
            rosters[folder] = roster_lines(folder / ROSTER_FILE)
        out.extend(
            Violation(f"{path}: {v.where}", v.message)
            for v in check_persona_in_v3(document, path.stem, reference, rosters[folder])
        )
        if is_new_persona(document["persona_id"]):
            new.append((path, folder, document))
        valid.append(document)
    out.extend(check_corpus(valid, reference) if valid else [])
    out.extend(check_corpus_v2(valid))
    for path, folder, document in new:
        if folder not in older:
            older[folder] = {
                name: json.loads((folder / file_name).read_text(encoding="utf-8"))["personas"]
                for name, file_name in OLDER_RELEASES.items()
            }
        for name, personas in older[folder].items():
            out.extend(Violation(f"{path}: {v.where}", v.message) for v in reused_texts([document], personas, name))
    return out


def data_folder(path: Path) -> Path:
    """The checkout's data/ folder for a draft file: the nearest folder above it holding the v2 release."""
    for folder in path.resolve().parents:
        if (folder / OLDER_RELEASES["v2"]).is_file():
            return folder
    return path.parent.parent


def main(argv: list[str]) -> int:
    """Print every violation; exit 1 when there is any."""
    violations = check_draft_files([Path(a) for a in argv])
    for violation in violations:
        print(f"violation: {violation}")
    print(f"{len(violations)} violation(s)")
    return 1 if violations else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
