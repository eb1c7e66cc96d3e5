"""What a report proves: its fingerprint, its signatures, a trusted signer, and a replay of its rankings."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memrecall.errors import MemrecallError, short
from memrecall.io import canonical_json
from memrecall.reports.content import shape_problem
from memrecall.reports.proof.fingerprint import content_sha256, report_fingerprint
from memrecall.reports.shapes import current_shape, old_shape, old_shape_note


@dataclass(frozen=True)
class Check:
    """One verification step: its name, whether it passed, and what was found."""

    name: str
    ok: bool
    detail: str


def verify_report(
    report: Any, keys: Sequence[Any] = (), rankings: Sequence[str | Path] = (), data: str | Path | None = None
) -> list[Check]:
    """The checks in order (fingerprint, each signature, a trusted key, a replay), ending at the first failure.

    `keys` are public keys (PEM files, 64-hex raw keys or key objects) of signers you trust; `rankings` are
    the report's rankings files, one per system, replayed against `data` (default: the benchmark's own file).
    """
    checks: list[Check] = []
    for check in _checks(report, keys, rankings, data):
        checks.append(check)
        if not check.ok:
            break
    return checks


def _checks(report: Any, keys: Sequence[Any], rankings: Sequence[str | Path], data: str | Path | None):
    """Each check as it is made; the caller stops at the first failure."""
    from memrecall.reports.proof.signing import load_public_key, raw_public_bytes, signature_problem

    problem = shape_problem(current_shape(report)[0])  # an old shape is read; the hash is of what was written
    if problem:
        yield Check("report", False, problem)
        return
    recorded, actual = report_fingerprint(report), content_sha256(report["content"])
    if recorded != actual:
        found = f"recorded {short(recorded, 16)}" if recorded else "no content_sha256 recorded"
        yield Check("fingerprint", False, f"{found}, but the content hashes to {actual} (edited by hand?)")
        return
    yield Check("fingerprint", True, f"content_sha256 {actual} is the sha256 of the content")
    entries = report.get("signatures", [])
    if not isinstance(entries, list):
        yield Check("signatures", False, "`signatures` is not a list")
        return
    if not entries:
        yield Check("signatures", True, "none: no key vouches for this report")
    valid = []
    for index, entry in enumerate(entries, start=1):
        name = short(f"signature {entry.get('key_id')}" if isinstance(entry, dict) else f"signature #{index}", 40)
        problem = signature_problem(entry, actual)
        if problem:
            yield Check(name, False, problem)
            return
        valid.append(entry)
        yield Check(name, True, "Ed25519 signature over the content_sha256 verifies")
    if keys:
        trusted = {raw_public_bytes(load_public_key(key)).hex() for key in keys}
        signers = [e["key_id"] for e in valid if e["public_key"] in trusted]
        if not signers:
            yield Check("trusted key", False, f"none of the signatures is by the {len(trusted)} key(s) given")
            return
        for key_id in signers:
            yield Check(f"trusted key {key_id}", True, "signed by a key given with --key")
    if rankings:
        yield _replay_check(report, rankings, data)


def _replay_check(report: dict, rankings: Sequence[str | Path], data: str | Path | None) -> Check:
    """Score the rankings again and compare the content byte for byte."""
    from memrecall.reports.proof.replay import first_difference, replay_content

    shape = old_shape(report)
    if shape is not None:
        return Check("replay", False, old_shape_note(shape))
    try:
        replayed = replay_content(report, rankings, data)
    except MemrecallError as exc:
        return Check("replay", False, "; ".join(line.strip() for line in str(exc).splitlines()))
    if canonical_json(replayed) == canonical_json(report["content"]):
        return Check("replay", True, f"{len(rankings)} rankings file(s) scored again give identical content")
    return Check("replay", False, first_difference(report["content"], replayed) or "the content differs")


def report_state(report: Any, checks: Sequence[Check]) -> str:
    """ "replayed", "signed by <key_id>[, ...]", "fingerprint only", or "UNVERIFIED" when any check failed."""
    if not checks or not all(check.ok for check in checks):
        return "UNVERIFIED"
    names = [check.name for check in checks]
    if "replay" in names:
        return "replayed"
    trusted = [n.removeprefix("trusted key ") for n in names if n.startswith("trusted key ")]
    signers = trusted or [n.removeprefix("signature ") for n in names if n.startswith("signature ")]
    return f"signed by {', '.join(signers)}" if signers else "fingerprint only"


STATE_MEANING = {
    "replayed": "its rankings were scored again and gave this content byte for byte",
    "signed": "the holder of that key vouches for this content; nothing was re-scored",
    "fingerprint only": "the content hashes to its fingerprint; no key vouches for it, anyone could have made it",
    "UNVERIFIED": "a check failed; these numbers may have been edited",
}


def state_meaning(state: str) -> str:
    """One sentence on what a state proves."""
    return STATE_MEANING["signed" if state.startswith("signed by") else state]
