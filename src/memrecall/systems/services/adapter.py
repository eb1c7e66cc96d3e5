"""What the http and mcp service adapters share: the store loop, the id mapping and config()."""

from __future__ import annotations

import atexit
import json
import re
import uuid
from collections.abc import Sequence
from typing import Any

from memrecall.errors import SystemFailure
from memrecall.systems.adapters import common
from memrecall.systems.contract import NotMeasurable
from memrecall.systems.services.process import sandbox_fact
from memrecall.systems.services.spec import Call, PathMissing, ServiceSpec, lookup

MAX_HITS = 10_000
"""The most hits one search reply may hold beyond twice the store's size; more is refused in one line."""
MAX_COUNTED_VALUES = 20
"""The most distinct values a `count` path is counted under per store; the rest are counted as one, "(other)"."""


def one_line(text: str, limit: int = 200) -> str:
    """Text on one line (whitespace runs folded), cut to `limit` characters."""
    return re.sub(r"\s+", " ", str(text)).strip()[:limit]


class ServiceAdapter(common.StoreCounts):
    """One service file run as a system; subclasses give _start, _stop and _call (a reply as JSON)."""

    stack = ""

    def __init__(self, spec: ServiceSpec) -> None:
        self.spec = spec
        self.name = spec.name
        self._folder = common.WorkingFolder(re.sub(r"[^A-Za-z0-9_.-]+", "-", spec.name)[:40] or "service")
        self._depth: int | None = None
        self._ids: list[str] = []
        self._known: set[str] = set()
        self._by_text: dict[str, str] = {}
        self._added: dict[str, str] = {}
        self._namespace = ""
        self._started = False
        self._used = False  # the running service has seen a store
        self._stores = 0
        self.service_info: dict[str, Any] = {}
        atexit.register(self.close)

    # the parts a kind gives
    def _start(self) -> None:
        """Start (or connect to) the service for the next store."""
        raise NotImplementedError

    def _stop(self) -> None:
        """Stop the service memrecall started (nothing for one it only connects to)."""
        raise NotImplementedError

    def _call(self, call: Call, values: dict[str, Any]) -> Any:
        """The reply to one filled call, as JSON; SystemFailure (one line) on any problem."""
        raise NotImplementedError

    # the contract
    def prepare(self, task: Any) -> None:
        """Keep the task's depth when it gives one; otherwise the whole store is asked for."""
        self._depth = common.task_depth(task)

    def _k(self) -> int:
        """How many hits to ask for: the depth or the store size, capped by search.max_k."""
        k = min(self._depth or len(self._ids), len(self._ids))
        return min(k, self.spec.max_k) if self.spec.max_k else k

    def index(self, documents: Sequence[Any]) -> None:
        """A fresh namespace (or a fresh server process) for this store; every document added by one call."""
        self._ids = [d.id for d in documents]
        self._known = set(self._ids)
        self._by_text, self._added = {}, {}
        self._new_store()
        for document in documents:
            self._count("texts_shared", document.text in self._by_text)
            self._by_text.setdefault(document.text, document.id)
        self._stores += 1
        self._namespace = f"memrecall-{uuid.uuid4().hex[:12]}-{self._stores}"
        if self.spec.fresh_store == "restart" and self._used:
            self.close()
        self._begin()
        self._used = True
        for document in documents:
            stamp = document.timestamp.isoformat() if document.timestamp is not None else None
            values = {"namespace": self._namespace, "doc_id": document.id, "text": document.text, "timestamp": stamp}
            reply = self._call(self.spec.add, values)
            self._tally("add", self.spec.add, reply)
            if self.spec.match == "added_id":
                own = self._get(reply, self.spec.added_id_path, self.spec.add)
                if not isinstance(own, (str, int)) or isinstance(own, bool):
                    raise SystemFailure(f"{self.name}: {self.spec.add.target}: the added id is {one_line(repr(own))}")
                self._added[str(own)] = document.id

    def _begin(self) -> None:
        """Start the service unless it is running."""
        if not self._started:
            self._start()
            self._started = True

    def _get(self, value: Any, path: str, call: Call) -> Any:
        """lookup(value, path), a missing path being one SystemFailure line naming it."""
        try:
            return lookup(value, path)
        except PathMissing:
            raise SystemFailure(f"{self.name}: {call.target}: malformed reply: no {path!r} in it") from None

    def _tally(self, table: str, call: Call, reply: Any) -> None:
        """Count, per store, the value each of the call's `count` paths holds in this reply (or its absence)."""
        for path in call.count:
            try:
                value = one_line(json.dumps(lookup(reply, path), sort_keys=True), 60)
            except PathMissing:
                self._count(f"{table} {path}: absent")
                continue
            key = f"{table} {path} = {value}"
            seen = [k for k in self._counts if k.startswith(f"{table} {path} = ")]
            if key not in seen and len(seen) >= MAX_COUNTED_VALUES:
                key = f"{table} {path} = (other)"
            self._count(key)

    def _hit_id(self, hit: Any, query_id: str) -> str | None:
        """The store id a hit maps to; None when it carries none; SystemFailure for an id the store lacks."""
        if self.spec.match == "text":
            text = self._get(hit, self.spec.text_path, self.spec.search)
            found = self._by_text.get(text) if isinstance(text, str) else None
            self._count("hits_text_unmatched", found is None)
            return found
        value = self._get(hit, self.spec.id_path, self.spec.search)
        if value is None:
            self._count("hits_without_id")
            return None
        key = str(value) if isinstance(value, (str, int)) and not isinstance(value, bool) else None
        found = (key if key in self._known else None) if self.spec.match == "id" else self._added.get(str(key))
        if found is None:
            raise SystemFailure(
                f"{self.name}: query {query_id!r}: the service returned id {one_line(repr(value), 80)},"
                f" which {'is not in the store' if self.spec.match == 'id' else 'no add call returned'}"
            )
        return found

    def rank(self, query: Any) -> Any:
        """The service's hits mapped back to store ids, best first, then the rest in store order."""
        if not self._ids:
            return []
        stamp = getattr(query, "time", None) or getattr(query, "timestamp", None)
        values = {"namespace": self._namespace, "query": query.text, "k": self._k(), "timestamp": None}
        values["timestamp"] = stamp.isoformat() if stamp is not None else None
        reply = self._call(self.spec.search, values)
        self._tally("search", self.spec.search, reply)
        hits = self._get(reply, self.spec.hits, self.spec.search)
        if not isinstance(hits, list):
            what = f"{self.spec.search.target}: malformed reply"
            raise SystemFailure(f"{self.name}: {what}: {self.spec.hits!r} is not a list")
        if len(hits) > MAX_HITS + 2 * len(self._ids):
            raise SystemFailure(
                f"{self.name}: {self.spec.search.target}: {len(hits)} hits for a store of {len(self._ids)} "
                f"documents (at most {MAX_HITS + 2 * len(self._ids)})"
            )
        if self.spec.score:
            for hit in hits:
                score = self._get(hit, self.spec.score, self.spec.search)
                if not isinstance(score, (int, float)) or isinstance(score, bool):
                    raise SystemFailure(f"{self.name}: {self.spec.search.target}: a score is {one_line(repr(score))}")
        listed = hits[::-1] if self.spec.order == "ascending" else hits  # best first
        mapped = [found for found in (self._hit_id(hit, query.id) for hit in listed) if found is not None]
        if not hits:
            self._count("queries_without_hits")
        elif not mapped:
            self._count("not_measurable")
            return NotMeasurable(f"{self.name}: none of the {len(hits)} hits for query {query.id!r} maps to a store id")
        return common.with_unreturned(mapped, self._ids, self._depth)

    def config(self) -> dict:
        """The service file (basename and sha256), what the service says it is, k, the id mapping."""
        if self._stores == 0:
            self._begin()  # the first store's service, started early so that it can say its name and version
        return {
            "name": self.name,
            "stack": self.stack,
            "spec_file": self.spec.file.name,
            "spec_sha256": self.spec.sha256,
            "service": dict(self.service_info) or None,
            "k": "whole store" if self._depth is None else self._depth,
            "max_k": self.spec.max_k,
            "fresh_store": "a fresh server process per store" if self.spec.fresh_store == "restart" else "namespace",
            "ids": {"match": self.spec.match, "id_path": self.spec.id_path, "added_id_path": self.spec.added_id_path}
            if self.spec.match != "text"
            else {"match": "text", "text_path": self.spec.text_path, "shared": "the first document in store order"},
            "order": "the service's, reversed (it lists the best hit last)"
            if self.spec.order == "ascending"
            else "the service's (best first)",
            "counted": {"add": list(self.spec.add.count), "search": list(self.spec.search.count)},
            "unreturned": common.UNRETURNED,
            "ties": "the service's order",
            "sandbox": sandbox_fact(),
        }

    def close(self) -> None:
        """Stop the service (when memrecall started it) and end the session."""
        if self._started:
            self._started = self._used = False
            self._stop()
