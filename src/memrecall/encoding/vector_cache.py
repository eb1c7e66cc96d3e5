"""The on-disk embedding cache: one SQLite file, each vector stored with its dimension and checksum."""

from __future__ import annotations

import hashlib
import math
import random
import sqlite3
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from memrecall.errors import ConfigError

CACHE_FILE = "vectors-v2.sqlite"
CHECK_ROWS, CHECK_SHARE = 32, 0.01
"""Every run re-encodes max(32, 1 %) of the vectors it reads from the cache (all of them when fewer)."""
COMPUTED = "vectors_computed_at_least"
"""The key of an encoder claim's signed count: the vectors its encoding calls computed in the run, at the least."""
CHECK_TOLERANCE = 5e-3
"""The largest difference in any component between a cached vector and a fresh encoding of its text: batch
composition moves the last bits (1.3e-7 measured for MiniLM in torch), quantized backends more, and an
altered or damaged row far more."""
LOCK_TIMEOUT_SECONDS = 5.0
_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS vectors (model TEXT NOT NULL, text_sha256 TEXT NOT NULL, dim INTEGER NOT NULL, "
    "checksum TEXT NOT NULL, vector BLOB NOT NULL, PRIMARY KEY (model, text_sha256));"
    "CREATE TABLE IF NOT EXISTS models (model TEXT PRIMARY KEY, dim INTEGER NOT NULL)"
)


def vector_checksum(blob: bytes) -> str:
    """sha256 of a vector's float32 bytes, 16 hex digits: what proves a cached row is the one written."""
    return hashlib.sha256(blob).hexdigest()[:16]


def check_count(total: int) -> int:
    """How many of `total` vectors a check re-encodes: max(CHECK_ROWS, CHECK_SHARE of them), all when fewer."""
    return min(total, max(CHECK_ROWS, math.ceil(CHECK_SHARE * total)))


def check_sample(keys: Sequence[str], draw: random.Random | None = None) -> list[str]:
    """The cached keys to re-encode: check_count of them, drawn afresh each run (a fixed seed would tell whoever
    altered the cache which rows are checked), in key order."""
    return sorted((draw or random.SystemRandom()).sample(sorted(keys), check_count(len(keys))))


def cache_check_text(claim: object) -> str:
    """What an encoder claim signs of the cache check, in words; a report made before the check records none."""
    count = claim.get(COMPUTED) if isinstance(claim, dict) else None
    if count is None:
        return "no cache check recorded"
    if isinstance(count, bool) or not isinstance(count, int) or count < 0:
        return f"cache check unreadable ({COMPUTED} is {str(count)[:40]!r})"
    return f"at least {count:,} vector(s) computed in the run (fresh or re-encoded from the cache)"


def warn(message: str) -> None:
    """One warning line on stderr."""
    print(f"warning: {message}", file=sys.stderr)


class VectorCache:
    """Vectors keyed by (model key, text sha256); damaged rows are dropped and reported, never returned.

    A file that is not a readable SQLite cache is set aside (renamed) and a fresh one started; a
    read-only cache is read but not written; a cache locked by another process for more than 5 s
    is an error naming the file. A cache that is not there yet is created only when the first vector is
    stored, so a command refused before it encodes anything leaves no cache folder behind.
    """

    def __init__(self, folder: Path) -> None:
        folder = Path(folder)
        if folder.exists() and not folder.is_dir():
            raise ConfigError(f"embedding cache folder {folder} is a file; give a folder (--cache-dir)")
        self.folder = folder
        self.path = folder / CACHE_FILE
        self.damaged_rows = 0
        self.read_only = False
        self._connection: sqlite3.Connection | None = self._open() if self.path.exists() else None

    @property
    def _db(self) -> sqlite3.Connection:
        """The open cache, its folder and file created on first use."""
        if self._connection is None:
            try:
                self.folder.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                problem = exc.strerror or exc
                raise ConfigError(f"cannot create the embedding cache folder {self.folder}: {problem}") from None
            self._connection = self._open()
        return self._connection

    def _open(self) -> sqlite3.Connection:
        """Connect and create the table; set a damaged file aside; fall back to reading when read-only."""
        try:
            db = sqlite3.connect(self.path, timeout=LOCK_TIMEOUT_SECONDS)
            db.executescript(_SCHEMA)
            db.execute("SELECT count(*) FROM vectors").fetchone()
            return db
        except sqlite3.OperationalError as exc:
            return self._recover(exc)
        except sqlite3.DatabaseError as exc:
            return self._set_aside(exc)

    def _recover(self, exc: sqlite3.OperationalError) -> sqlite3.Connection:
        """Locked: an error. Read-only: read without writing. Anything else: set the file aside."""
        text = str(exc)
        if "locked" in text:
            raise ConfigError(
                f"embedding cache {self.path} is locked by another process for more than {LOCK_TIMEOUT_SECONDS:.0f} s"
            ) from None
        if "readonly" in text or "unable to open" in text:
            self.read_only = True
            warn(f"embedding cache {self.path} is read-only: vectors are read from it but new ones are not saved")
            if self.path.exists():
                return sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, timeout=LOCK_TIMEOUT_SECONDS)
            db = sqlite3.connect(":memory:")
            db.executescript(_SCHEMA)
            return db
        return self._set_aside(exc)

    def _set_aside(self, exc: Exception) -> sqlite3.Connection:
        """Rename a damaged cache file and start a fresh one."""
        number = 1
        while (aside := self.path.with_name(f"{self.path.name}.damaged-{number}")).exists():
            number += 1
        self.path.rename(aside)
        warn(f"embedding cache {self.path} was damaged ({exc}); set aside as {aside.name}, starting a new one")
        db = sqlite3.connect(self.path, timeout=LOCK_TIMEOUT_SECONDS)
        db.executescript(_SCHEMA)
        return db

    def get_many(self, model: str, keys: Sequence[str]) -> dict[str, np.ndarray]:
        """Cached vectors for the keys present whose length, checksum and model dimension all hold."""
        found: dict[str, np.ndarray] = {}
        if self._connection is None and not self.path.exists():
            return found
        bad = 0
        try:
            for start in range(0, len(keys), 500):
                chunk = list(keys[start : start + 500])
                marks = ",".join("?" * len(chunk))
                rows = self._db.execute(
                    "SELECT text_sha256, dim, checksum, vector FROM vectors "
                    f"WHERE model = ? AND text_sha256 IN ({marks})",
                    [model, *chunk],
                )
                for key, dim, checksum, blob in rows:
                    if not isinstance(blob, bytes) or len(blob) != 4 * dim or vector_checksum(blob) != checksum:
                        bad += 1
                        continue
                    found[key] = np.frombuffer(blob, dtype=np.float32)
        except sqlite3.OperationalError as exc:
            if "locked" in str(exc):
                raise ConfigError(f"embedding cache {self.path} is locked for more than 5 s") from None
            raise
        expected = self._db.execute("SELECT dim FROM models WHERE model = ?", [model]).fetchone()
        if expected is not None:
            bad += sum(v.shape[0] != expected[0] for v in found.values())
            found = {k: v for k, v in found.items() if v.shape[0] == expected[0]}
        if bad:
            self.damaged_rows += bad
            warn(f"embedding cache {self.path}: {bad} damaged vector(s) for {model}; they are encoded again")
        return found

    def put_many(self, model: str, items: dict[str, np.ndarray]) -> None:
        """Store vectors as float32 blobs with their dimension and checksum, in one transaction."""
        if self.read_only or not items:
            return
        rows = []
        for key, vector in items.items():
            blob = np.asarray(vector, dtype=np.float32).tobytes()
            rows.append((model, key, len(blob) // 4, vector_checksum(blob), blob))
        try:
            with self._db:
                self._db.execute("INSERT OR IGNORE INTO models VALUES (?, ?)", [model, rows[0][2]])
                self._db.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?, ?, ?, ?)", rows)
        except sqlite3.OperationalError as exc:
            if "locked" in str(exc):
                raise ConfigError(f"embedding cache {self.path} is locked for more than 5 s") from None
            self.read_only = True
            warn(f"embedding cache {self.path} cannot be written ({exc}); new vectors are not saved")
