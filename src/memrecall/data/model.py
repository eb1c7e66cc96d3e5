"""The Task model every dataset is turned into: documents, queries, stores, rankings."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime


@dataclass(frozen=True)
class Document:
    """One memory in a store: an episode, a chat session or a dialogue turn."""

    id: str
    text: str
    timestamp: datetime | None = None
    labels: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Query:
    """One prompt asked of one store, with the document ids that count as hits."""

    id: str
    store_id: str
    text: str
    time: datetime | None
    targets: frozenset[str]
    strata: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Task:
    """A benchmark turned into stores of documents and queries against them."""

    name: str
    version: str
    source_sha256: str
    stores: Mapping[str, tuple[Document, ...]]
    queries: tuple[Query, ...]
    reference_time: datetime | None = None

    def store_of(self, query: Query) -> tuple[Document, ...]:
        """The documents of the store a query is asked against."""
        return self.stores[query.store_id]


@dataclass(frozen=True)
class Ranking:
    """A full ranking of one store for one query: every document id once, best first."""

    query_id: str
    doc_ids: tuple[str, ...]
    scores: tuple[float, ...]

    def __post_init__(self) -> None:
        if len(self.doc_ids) != len(self.scores):
            raise ValueError(f"ranking for {self.query_id}: {len(self.doc_ids)} ids but {len(self.scores)} scores")
        if len(set(self.doc_ids)) != len(self.doc_ids):
            raise ValueError(f"ranking for {self.query_id}: repeated document ids")


def rank_by_score(query_id: str, doc_ids: list[str], scores: list[float]) -> Ranking:
    """Order documents by score descending, ties broken by their position in the store."""
    order = sorted(range(len(doc_ids)), key=lambda i: (-scores[i], i))
    return Ranking(query_id, tuple(doc_ids[i] for i in order), tuple(float(scores[i]) for i in order))
