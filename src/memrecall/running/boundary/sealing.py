"""Opaque ids and a fresh query order for a plug-in: what it sees of a task says nothing about the answers.

Every store, document and query id a plug-in is handed is a random token drawn afresh for the run, and the
queries of each store reach it in a freshly shuffled order. Documents keep their store order, so a system
can still break ties by position. The tokens are mapped back to the real ids before anything is checked.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from memrecall.data.model import Document, PublicTask, Query

TOKEN_BYTES = 8
TOKEN = re.compile(r"\b[sdq][0-9a-f]{16}\b")


def _token(kind: str, taken: set[str]) -> str:
    """A fresh random token of a kind (s store, d document, q query), never one already drawn in this run."""
    while True:
        token = kind + secrets.token_hex(TOKEN_BYTES)
        if token not in taken:
            taken.add(token)
            return token


@dataclass(frozen=True)
class Sealed:
    """A public task with opaque ids and shuffled queries, and the way back to the real ids."""

    view: PublicTask
    store_ids: Mapping[str, str]  # token -> real store id
    doc_ids: Mapping[str, Mapping[str, str]]  # store token -> document token -> real document id
    query_ids: Mapping[str, str]  # token -> real query id
    store_tokens: Mapping[str, str]  # real store id -> token

    def real_doc(self, store_token: str, token: str) -> str | None:
        """The real id of a document token of a store, or None when the store has no such token."""
        return self.doc_ids[store_token].get(token)

    def real_ids(self, text: str) -> str:
        """A message with every token it names replaced by the real id (for error lines)."""
        flat = {**self.store_ids, **self.query_ids}
        for docs in self.doc_ids.values():
            flat.update(docs)
        return TOKEN.sub(lambda m: repr(flat[m.group(0)])[1:-1] if m.group(0) in flat else m.group(0), text)

    def sealed_labels(self, labels: Mapping[str, Mapping[str, Mapping[str, str]]]) -> dict:
        """Authored labels by store and document token (for a plug-in that declared `uses_gold_labels`)."""
        out: dict = {}
        for store_token, docs in self.doc_ids.items():
            real_store = self.store_ids[store_token]
            out[store_token] = {token: dict(labels[real_store][real]) for token, real in docs.items()}
        return out


def seal(public: PublicTask) -> Sealed:
    """The task with every id replaced by a fresh token and each store's queries in a fresh random order."""
    taken: set[str] = set()
    rng = secrets.SystemRandom()
    store_tokens = {sid: _token("s", taken) for sid in public.stores}
    stores: dict[str, tuple[Document, ...]] = {}
    doc_ids: dict[str, dict[str, str]] = {}
    for sid, documents in public.stores.items():
        mapping = {_token("d", taken): d.id for d in documents}
        doc_ids[store_tokens[sid]] = mapping
        stores[store_tokens[sid]] = tuple(
            Document(token, d.text, d.timestamp) for token, d in zip(mapping, documents, strict=True)
        )
    by_store: dict[str, list[Query]] = {}
    query_ids: dict[str, str] = {}
    for query in public.queries:
        token = _token("q", taken)
        query_ids[token] = query.id
        by_store.setdefault(query.store_id, []).append(
            Query(token, store_tokens[query.store_id], query.text, query.time)
        )
    queries: list[Query] = []
    for sid in public.stores:
        group = by_store.get(sid, [])
        rng.shuffle(group)
        queries.extend(group)
    view = PublicTask(MappingProxyType(stores), tuple(queries), public.depth)
    return Sealed(
        view,
        MappingProxyType({t: s for s, t in store_tokens.items()}),
        MappingProxyType({t: MappingProxyType(m) for t, m in doc_ids.items()}),
        MappingProxyType(query_ids),
        MappingProxyType(store_tokens),
    )
