"""The Task model: the public view systems get (Document, Query, PublicTask), the scorer's side, rankings."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from types import MappingProxyType
from typing import NamedTuple


class Document(NamedTuple):
    """One memory as a system sees it: id, text and time. A tuple, so nothing a system does can change it."""

    id: str
    text: str
    timestamp: datetime | None = None


class Query(NamedTuple):
    """One prompt as a system sees it: id, the store it is asked of, text and time; no gold, no strata."""

    id: str
    store_id: str
    text: str
    time: datetime | None = None


class PublicTask(NamedTuple):
    """Everything a system may see of a task: the public stores and queries, and how deep to rank (a tuple).

    `depth` is None when every document of a store must be ranked, else the longest prefix the scoring reads.
    """

    stores: Mapping[str, tuple[Document, ...]]
    queries: tuple[Query, ...]
    depth: int | None = None


@dataclass(frozen=True)
class LabelledDocument:
    """The scorer's view of a document: the public part plus authored labels (band, valence, session...)."""

    id: str
    text: str
    timestamp: datetime | None = None
    labels: Mapping[str, str] = field(default_factory=dict)

    def public(self) -> Document:
        """What a system is handed."""
        return Document(self.id, self.text, self.timestamp)


@dataclass(frozen=True)
class JudgedQuery:
    """The scorer's view of a query: the public part plus the gold targets and the strata it is scored in.

    `grades` maps each target to its relevance grade (> 0) where judgements are graded (beir); it is empty
    when every target simply counts as relevant (grade 1), as in EpiRec, LongMemEval and LoCoMo.
    """

    id: str
    store_id: str
    text: str
    time: datetime | None
    targets: frozenset[str]
    strata: Mapping[str, str] = field(default_factory=dict)
    grades: Mapping[str, int] = field(default_factory=dict)

    def gain(self, doc_id: str) -> int:
        """The relevance grade of a document for this query: its grade, 1 for an ungraded target, else 0."""
        if doc_id not in self.targets:
            return 0
        return self.grades.get(doc_id, 1)

    def public(self) -> Query:
        """What a system is handed."""
        return Query(self.id, self.store_id, self.text, self.time)


@dataclass(frozen=True)
class Task:
    """A benchmark on the scorer's side: stores of labelled documents and judged queries against them.

    Systems never see a Task; they get `task.public()`, a fresh copy without targets, strata or labels.
    """

    name: str
    version: str
    source_sha256: str
    stores: Mapping[str, tuple[LabelledDocument, ...]]
    queries: tuple[JudgedQuery, ...]
    reference_time: datetime | None = None

    def store_of(self, query: JudgedQuery | Query) -> tuple[LabelledDocument, ...]:
        """The documents of the store a query is asked against."""
        return self.stores[query.store_id]

    def public(self, depth: int | None = None) -> PublicTask:
        """A new sealed view for one system: public documents and queries only."""
        stores = MappingProxyType({sid: tuple(d.public() for d in docs) for sid, docs in self.stores.items()})
        return PublicTask(stores, tuple(q.public() for q in self.queries), depth)

    def gold_labels(self) -> Mapping[str, Mapping[str, Mapping[str, str]]]:
        """Authored labels by store and document id, for built-ins that declare `uses_gold_labels`."""
        return MappingProxyType(
            {
                sid: MappingProxyType({d.id: MappingProxyType(dict(d.labels)) for d in docs})
                for sid, docs in self.stores.items()
            }
        )


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
