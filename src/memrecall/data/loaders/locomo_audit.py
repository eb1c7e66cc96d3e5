"""LoCoMo on audited gold: the evidence a public audit (dial481/locomo-audit, errors.json) corrected.

Each audit record names a question as `locomo_<conversation>_qa<n>` (0-based, file order), the evidence the
release cites and the evidence the audit finds correct. `audited` gold replaces a question's evidence where the
two differ and keeps every other question's; a record whose question text or cited evidence is not the
release's is refused. The report records the gold and counts what changed.
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path
from typing import Any

from memrecall.data.jsonfile import describe, file_sha256, read_json
from memrecall.data.loaders.locomo import LocomoLoad, load_locomo, resolve_evidence
from memrecall.data.official import official_record
from memrecall.errors import DatasetError

GOLDS = ("official", "audited")
AUDIT_FILE = Path("locomo_audit") / "errors.json"
_QUESTION_ID = re.compile(r"^locomo_(\d+)_qa(\d+)$")


def default_audit(data: Path) -> Path:
    """Where the audit file is looked for by default: locomo_audit/errors.json beside the LoCoMo file."""
    return Path(data).parent / AUDIT_FILE


def audited(loaded: LocomoLoad, data: Path, audit: Path | None = None) -> tuple[LocomoLoad, dict]:
    """`loaded` with the audited evidence in place, and the `gold` facts its report records."""
    audit = Path(audit) if audit is not None else default_audit(data)
    if not audit.is_file():
        raise DatasetError(
            str(audit), "", "no LoCoMo audit file here; give --gold-file errors.json of dial481/locomo-audit"
        )
    records = read_json(audit)
    if not isinstance(records, list):
        raise DatasetError(str(audit), "$", f"expected an array of audit records, got {describe(records)}")
    release = read_json(Path(data))
    turns = load_locomo(data, "turn").task
    sessions_of = {sid: {d.id: d.labels["session"] for d in docs} for sid, docs in turns.stores.items()}
    sample_ids = list(turns.stores)
    by_id = {q.id: q for q in loaded.task.queries}
    granularity = loaded.task.version.split("+")[0]
    changed: dict[str, dict] = {}
    kept = 0
    for index, record in enumerate(records):
        query_id, cited, correct = _record(str(audit), index, record, release, sample_ids)
        if sorted(cited) == sorted(correct):
            kept += 1
            continue
        store = query_id.split(":")[0]
        resolved = {
            t
            for raw in correct
            for t, outcome in resolve_evidence(raw, set(sessions_of[store]))
            if outcome in ("ok", "split", "repaired")
        }
        targets = resolved if granularity == "turn" else {sessions_of[store][t] for t in resolved}
        query = by_id[query_id]
        by_id[query_id] = replace(query, targets=frozenset(targets))
        changed[query_id] = {
            "cited": cited,
            "correct": correct,
            "targets_before": len(query.targets),
            "targets_after": len(targets),
        }
    task = loaded.task
    version = f"{task.version}+audited"
    queries = tuple(by_id[q.id] for q in task.queries)
    facts = {
        "name": "audited",
        "file": audit.name,
        "sha256": (digest := file_sha256(audit)),
        "official": official_record("locomo-audit", digest)["official"],
        "records": len(records),
        "evidence_changed": len(changed),
        "evidence_kept": kept,
        "targets_changed": sum(1 for q in task.queries if by_id[q.id].targets != q.targets),
        "left_without_evidence": sorted(q for q, c in changed.items() if not c["targets_after"]),
        "changed": changed,
    }
    return LocomoLoad(replace(task, version=version, queries=queries), loaded.evidence_issues), facts


def _record(source: str, index: int, record: Any, release: list, sample_ids: list[str]) -> tuple[str, list, list]:
    """(query id, cited evidence, correct evidence) of one audit record, checked against the release."""
    where = f"[{index}]"
    if not isinstance(record, dict):
        raise DatasetError(source, where, f"expected an audit record object, got {describe(record)}")
    match = _QUESTION_ID.match(str(record.get("question_id")))
    if not match:
        raise DatasetError(
            source, f"{where}.question_id", f"expected locomo_<n>_qa<m>, got {describe(record.get('question_id'))}"
        )
    conversation, number = int(match[1]), int(match[2])
    if conversation >= len(release) or number >= len(release[conversation].get("qa") or []):
        raise DatasetError(source, f"{where}.question_id", f"{match[0]} names no question of the LoCoMo file")
    for key in ("cited_evidence", "correct_evidence"):
        value = record.get(key)
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise DatasetError(source, f"{match[0]}.{key}", f"expected an array of strings, got {describe(value)}")
    qa = release[conversation]["qa"][number]
    if record.get("question") != qa.get("question"):
        raise DatasetError(
            source, f"{match[0]}.question", f"is not the LoCoMo file's question {describe(qa.get('question'))}"
        )
    if record["cited_evidence"] != qa.get("evidence"):
        raise DatasetError(
            source, f"{match[0]}.cited_evidence", f"is not the LoCoMo file's evidence {describe(qa.get('evidence'))}"
        )
    return f"{sample_ids[conversation]}:qa{number}", record["cited_evidence"], record["correct_evidence"]
