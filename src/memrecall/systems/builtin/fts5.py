"""SQLite FTS5 keyword search ranked by bm25(), one in-memory table per store."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Sequence

from memrecall.data.model import Document, Query, Ranking
from memrecall.systems.builtin.base import TaskAware

_WORD = re.compile(r"\w+", re.UNICODE)


def fts5_match_expression(text: str) -> str:
    """Distinct lowercase word tokens of `text`, each double-quoted, joined by OR; '' if none."""
    seen: dict[str, None] = {}
    for token in _WORD.findall(text.lower()):
        seen.setdefault(token, None)
    return " OR ".join('"' + token.replace('"', '""') + '"' for token in seen)


class Fts5Retriever(TaskAware):
    """bm25() over an FTS5 table (unicode61 tokenizer); score = -bm25, so higher is better.

    Ties keep store order; documents matching no query token follow the matched ones,
    in store order, with score 0.
    """

    name = "fts5"

    def __init__(self) -> None:
        self._connection = sqlite3.connect(":memory:")
        self._ids: list[str] = []

    def __getstate__(self) -> dict:
        """Picklable for parallel executors: the in-memory index is rebuilt by the next index()."""
        return {key: value for key, value in self.__dict__.items() if key != "_connection"}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._connection = sqlite3.connect(":memory:")

    def config(self) -> dict:
        """Name, tokenizer and query rule."""
        return {"name": self.name, "tokenizer": "unicode61", "query": "distinct tokens, quoted, OR", "rank": "bm25()"}

    def index(self, store: Sequence[Document]) -> None:
        """Rebuild the table with this store's documents; rowid = position + 1."""
        self._ids = [d.id for d in store]
        self._connection.execute("DROP TABLE IF EXISTS docs")
        self._connection.execute("CREATE VIRTUAL TABLE docs USING fts5(body, tokenize='unicode61')")
        self._connection.executemany(
            "INSERT INTO docs(rowid, body) VALUES (?, ?)", [(i + 1, d.text) for i, d in enumerate(store)]
        )

    def rank(self, query: Query) -> Ranking:
        """Matched documents by bm25 then store order, then the unmatched ones in store order."""
        expression = fts5_match_expression(query.text)
        matched: list[tuple[int, float]] = []
        if expression:
            rows = self._connection.execute(
                "SELECT rowid, bm25(docs) FROM docs WHERE docs MATCH ? ORDER BY bm25(docs), rowid", (expression,)
            )
            matched = [(rowid - 1, -score) for rowid, score in rows]
        seen = {position for position, _ in matched}
        rest = [(position, 0.0) for position in range(len(self._ids)) if position not in seen]
        ordered = matched + rest
        return Ranking(query.id, tuple(self._ids[p] for p, _ in ordered), tuple(s for _, s in ordered))
