"""Check draft v2 persona files one by one while authoring: `python -m memrecall.corpus.draft_check FILE...`."""

from __future__ import annotations

import sys
from pathlib import Path

from memrecall.corpus import rules
from memrecall.corpus.checks import Violation
from memrecall.corpus.checks_v2 import check_corpus_v2, check_persona_v2
from memrecall.corpus.sources import read_json_file, schema_violations


def check_draft_files(paths: list[Path]) -> list[Violation]:
    """Schema and every v2 per-persona rule for each file, then the cross-probe phrase rule over them all."""
    reference = rules.parse_timestamp(rules.REFERENCE_NOW)
    out: list[Violation] = []
    valid = []
    for path in paths:
        document, problems = read_json_file(path, str(path))
        problems = problems or schema_violations(document, "persona", str(path))
        out.extend(problems)
        if not problems:
            out.extend(
                Violation(f"{path}: {v.where}", v.message) for v in check_persona_v2(document, path.stem, reference)
            )
            valid.append(document)
    out.extend(check_corpus_v2(valid))
    return out


def main(argv: list[str]) -> int:
    """Print every violation; exit 1 when there is any."""
    violations = check_draft_files([Path(a) for a in argv])
    for violation in violations:
        print(f"violation: {violation}")
    print(f"{len(violations)} violation(s)")
    return 1 if violations else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
