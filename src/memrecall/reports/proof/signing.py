"""Ed25519 signatures over a report's fingerprint: who vouches for a report, kept outside its content."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

from memrecall.data.jsonfile import read_regular_bytes
from memrecall.errors import ConfigError, DatasetError
from memrecall.reports.proof.fingerprint import content_sha256, report_fingerprint

SIGNED_PREFIX = b"memrecall report content_sha256 "  # what is signed: this prefix, then the hex fingerprint
PRIVATE_SUFFIX = ".key"
PUBLIC_SUFFIX = ".pub"


def signed_message(fingerprint: str) -> bytes:
    """The bytes a signature covers: a fixed prefix and the fingerprint in hex (so a key signs nothing else)."""
    return SIGNED_PREFIX + fingerprint.encode("ascii")


def raw_public_bytes(public_key: Any) -> bytes:
    """The 32 raw bytes of an Ed25519 public key."""
    from cryptography.hazmat.primitives import serialization

    return public_key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def key_id(public_key: Any) -> str:
    """A short stable id: the first 16 hex digits of the sha256 of the raw public key."""
    return hashlib.sha256(raw_public_bytes(public_key)).hexdigest()[:16]


def _key_bytes(path: Path, what: str) -> bytes:
    """A key file's bytes; a FIFO, device, folder or unreadable file is a usage error at once, never read from."""
    try:
        return read_regular_bytes(path)
    except DatasetError as exc:
        raise ConfigError(f"{path}: cannot use as the {what}: {exc.problem}") from None


def load_private_key(path: str | Path) -> Any:
    """An Ed25519 private key from a PEM file written by `memrecall keys new`."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    path = Path(path)
    data = _key_bytes(path, "signing key")
    try:
        key = serialization.load_pem_private_key(data, password=None)
    except (ValueError, TypeError):
        raise ConfigError(f"{path}: not an unencrypted PEM private key (make one with `memrecall keys new`)") from None
    if not isinstance(key, Ed25519PrivateKey):
        raise ConfigError(f"{path}: the signing key must be Ed25519, not {type(key).__name__}")
    return key


def load_public_key(value: Any) -> Any:
    """An Ed25519 public key from a key object, 32 raw bytes, 64 hex digits, or a PEM file (public or private)."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

    if isinstance(value, Ed25519PublicKey):
        return value
    if isinstance(value, Ed25519PrivateKey):
        return value.public_key()
    if isinstance(value, bytes) and len(value) == 32:
        return Ed25519PublicKey.from_public_bytes(value)
    if isinstance(value, str) and len(value) == 64 and all(c in "0123456789abcdef" for c in value):
        return Ed25519PublicKey.from_public_bytes(bytes.fromhex(value))
    path = Path(value)
    data = _key_bytes(path, "public key")
    try:
        key = serialization.load_pem_public_key(data)
    except (ValueError, TypeError):
        try:
            key = serialization.load_pem_private_key(data, password=None).public_key()
        except (ValueError, TypeError):
            raise ConfigError(f"{path}: not a PEM public key (the .pub file `memrecall keys new` writes)") from None
    if not isinstance(key, Ed25519PublicKey):
        raise ConfigError(f"{path}: the key must be Ed25519, not {type(key).__name__}")
    return key


def signature_entry(fingerprint: str, private_key: Any) -> dict[str, str]:
    """`{key_id, public_key, signature}` (hex) of one key over one fingerprint."""
    public = private_key.public_key()
    return {
        "key_id": key_id(public),
        "public_key": raw_public_bytes(public).hex(),
        "signature": private_key.sign(signed_message(fingerprint)).hex(),
    }


def sign_report(report: dict, private_key: Any) -> dict:
    """The report with one more signature (a key that signed before is replaced); content and env untouched."""
    fingerprint = report_fingerprint(report)
    if fingerprint is None or fingerprint != content_sha256(report.get("content", {})):
        raise ConfigError("the report's fingerprint does not match its content; refusing to sign it")
    entry = signature_entry(fingerprint, private_key)
    kept = [s for s in report.get("signatures", []) if not (isinstance(s, dict) and s.get("key_id") == entry["key_id"])]
    return {**report, "signatures": [*kept, entry]}


def signature_problem(entry: Any, fingerprint: str) -> str | None:
    """Why a signature entry does not vouch for `fingerprint`, or None when it verifies."""
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    if not isinstance(entry, dict) or not all(isinstance(entry.get(k), str) for k in ("key_id", "public_key")):
        return "not a {key_id, public_key, signature} object"
    try:
        public = Ed25519PublicKey.from_public_bytes(bytes.fromhex(entry["public_key"]))
        signature = bytes.fromhex(str(entry.get("signature")))
    except ValueError:
        return "public_key or signature is not hex of the right length"
    if key_id(public) != entry["key_id"]:
        return f"key_id {entry['key_id']} is not the id of its public key ({key_id(public)})"
    try:
        public.verify(signature, signed_message(fingerprint))
    except InvalidSignature:
        return "the signature does not verify over the content's fingerprint"
    return None


def write_key_pair(folder: Path, name: str = "memrecall") -> tuple[Path, Path, str]:
    """A new Ed25519 key pair in `folder` (private key mode 0600); refuses to replace either file."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from memrecall.outputs import name_part

    stem = name_part(name, "--name")
    private_path, public_path = folder / f"{stem}{PRIVATE_SUFFIX}", folder / f"{stem}{PUBLIC_SUFFIX}"
    for path in (private_path, public_path):
        if path.exists() or path.is_symlink():
            raise ConfigError(f"{path} already exists; keys are never overwritten (choose another --out or --name)")
    key = Ed25519PrivateKey.generate()
    private_pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    public_pem = key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    folder.mkdir(parents=True, exist_ok=True)
    _write_new(private_path, private_pem, 0o600)
    try:
        _write_new(public_path, public_pem, 0o644)
    except BaseException:
        private_path.unlink(missing_ok=True)
        raise
    return private_path, public_path, key_id(key.public_key())


def _write_new(path: Path, data: bytes, mode: int) -> None:
    """Create `path` (it must not exist) with `mode` from the start, and write `data`."""
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    with os.fdopen(descriptor, "wb") as out:
        out.write(data)
    os.chmod(path, mode)
