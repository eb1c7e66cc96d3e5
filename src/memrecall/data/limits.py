"""The limits on what untrusted input may make the scorer do, each named once (docs/verification.md lists them)."""

from __future__ import annotations

# JSON nested deeper than this is refused before any parser builds it (memrecall's own files nest at most 8 deep).
MAX_JSON_DEPTH = 64
# A gzip file is inflated in a stream and refused once its output passes the smaller of these two caps.
MAX_INFLATED_BYTES = 256 << 20
MAX_GZIP_RATIO = 100  # output bytes per input byte; deflate's own maximum is about 1032
GZIP_RATIO_FLOOR = 1 << 20  # up to this many output bytes, any ratio is accepted (a tiny file of one repeated id)
