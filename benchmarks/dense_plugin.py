"""memrecall's own dense retriever dressed as an outside plug-in, so `run` isolates it (benchmarks only).

`isolation_overhead.py` runs it beside the built-in `dense`: same code, same cache, same rankings; the
difference in time is what the trust boundary costs.
"""

from __future__ import annotations

from memrecall.encoding.encoders import SharedEncoder
from memrecall.systems.registry import SystemContext, build_builtin


class _Dense:
    """The built-in dense system of one policy, built inside the plug-in's worker, on the default cache."""

    policy = "truncate"

    def __init__(self) -> None:
        self.inner = build_builtin("dense", SystemContext(SharedEncoder(None, None).get, self.policy))

    def prepare(self, task):
        """Encode the whole task at once, as the built-in does."""
        self.inner.prepare(task)

    def index(self, documents):
        """Index one store."""
        self.inner.index(documents)

    def rank(self, query):
        """Rank one query."""
        return self.inner.rank(query)


class DenseTruncate(_Dense):
    """EpiRec's dense: each text truncated by the encoder."""


class DenseWindows(_Dense):
    """LoCoMo's and LongMemEval's dense: the best <= 160-word window of each document."""

    policy = "windows"
