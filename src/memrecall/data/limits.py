"""The limits on what untrusted input may make the scorer do, each named once (docs/verification.md lists them)."""

from __future__ import annotations

# JSON nested deeper than this is refused before any parser builds it (memrecall's own files nest at most 8 deep).
MAX_JSON_DEPTH = 64
# The most bytes of one input file memrecall holds: a plain file larger than this is refused before any of it is
# read, and a gzip file is inflated in a stream and refused once its output passes it. Files streamed record by
# record (LongMemEval) are never held whole and are bounded by their nesting instead.
MAX_INPUT_BYTES = 256 << 20
MAX_GZIP_RATIO = 100  # a gzip file's output bytes per input byte; deflate's own maximum is about 1032
GZIP_RATIO_FLOOR = 1 << 20  # up to this many output bytes, any ratio is accepted (a tiny file of one repeated id)
