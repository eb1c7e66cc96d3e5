"""A plug-in's side of the trust boundary: build it, read its declarations once, answer in plain data.

`python -m memrecall.running.boundary.worker READ_FD WRITE_FD` is the worker process the scorer spawns: a fresh
interpreter that imports and builds one plug-in and answers the scorer's frames (running/wire.py). It is
handed only the sealed public view (opaque ids, texts, times) and sends back lists of id strings and
declared values. `--in-process` runs the same session in the scorer's own interpreter.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any

from memrecall.data.model import PublicTask, Query, Ranking
from memrecall.errors import MemrecallError, SystemFailure
from memrecall.running.boundary.wire import pack_positions, read_frame, task_from_plain, write_frame
from memrecall.running.cost import TimedSystem, peak_rss_mib
from memrecall.systems.contract import SystemAdapter, adapt, unwrapped


def plain_answer(query_id: str, output: Any, store_id: str, position: Mapping[str, int]) -> dict:
    """One answer read once into plain data: {"positions": store positions best first, packed}, or its problem.

    Positions (into the store as it was handed) travel faster than ids; the scorer maps them to real ids.
    """
    where = f"query {query_id}"
    if isinstance(output, Ranking):
        if output.query_id != query_id:
            return {"problem": f"{where}: rank() returned the ranking of {str(output.query_id)[:40]!r}"}
        ids = tuple(output.doc_ids)
    elif isinstance(output, (list, tuple)):
        ids = tuple(output)
    else:
        return {"problem": f"{where}: rank() returned {type(output).__name__}, expected a sequence of ids or a Ranking"}
    if len(ids) > len(position):
        return {"too_long": len(ids)}
    found = [position.get(d) if type(d) is str else None for d in ids]
    if None in found:
        bad = ids[found.index(None)]
        if type(bad) is not str:
            return {"problem": f"{where}: ranked ids must be strings, got {type(bad).__name__} {str(bad)[:40]!r}"}
        return {
            "problem": f"{where}: ranked {bad[:40]!r}, which is not an id of a document in store {store_id!r} "
            "(ids are opaque tokens drawn afresh for each run)"
        }
    return {"positions": pack_positions(found)}


def search_path(scorer: Sequence[str], own: Sequence[str]) -> list[str]:
    """The scorer's search path in its order, then the worker's own other entries: a module resolves to the file
    the scorer hashed for the plug-in's identity, whatever order the worker's own path had."""
    first = list(dict.fromkeys(scorer))
    taken = set(first)
    return first + [p for p in own if p not in taken]


class PluginSession:
    """One plug-in seen only through plain data: declarations read once, answers as lists of id strings."""

    def __init__(self, adapter: SystemAdapter, class_name: str) -> None:
        self.adapter = adapter
        self.class_name = class_name
        self.task: PublicTask | None = None
        self.by_store: dict[str, list[Query]] = {}

    @classmethod
    def load(cls, spec: str, name: str | None, path: Sequence[str] = (), code: dict | None = None) -> PluginSession:
        """Import and build the plug-in of `spec` (its search path first; its own code only from the hashed
        source bytes of `code`, the scorer's manifest), read its name and flag once."""
        from memrecall.running.boundary.hashed_import import install
        from memrecall.systems.registry import load_plugin

        install(code)
        sys.path[:] = search_path(path, sys.path)
        system, default_name = load_plugin(spec)
        return cls.of(system, name, default_name)

    @classmethod
    def of(cls, system: Any, name: str | None, default_name: str | None = None) -> PluginSession:
        """A session over an already built system (the Python API's in-process objects)."""
        kind = type(unwrapped(system))
        return cls(adapt(system, name, default_name), f"{kind.__module__}.{kind.__qualname__}")

    def declarations(self) -> dict:
        """The plug-in's declared values, each read once: name, uses_gold_labels, config, class."""
        return {
            "name": self.adapter.name,
            "uses_gold_labels": self.adapter.uses_gold_labels,
            "config": self.adapter.config(),
            "class": self.class_name,
        }

    def labels(self, labels: Mapping[str, Mapping[str, Mapping[str, str]]]) -> dict:
        """Hand authored labels (by store and document token) to a plug-in that declared it reads them."""
        frozen = {s: {d: MappingProxyType(dict(v)) for d, v in docs.items()} for s, docs in labels.items()}
        self.adapter.give_gold_labels(MappingProxyType({s: MappingProxyType(d) for s, d in frozen.items()}))
        return {}

    def prepare(self, task: PublicTask) -> dict:
        """Keep the sealed task and call the plug-in's prepare(task) with a fresh copy of it."""
        self.task = task
        self.by_store = {}
        for query in task.queries:
            self.by_store.setdefault(query.store_id, []).append(query)
        self.adapter.prepare(PublicTask(task.stores, task.queries, task.depth))
        return {}

    def store(self, store_id: str) -> dict:
        """Index one store and rank its queries in the order they were handed; plain answers and timings."""
        if self.task is None or store_id not in self.task.stores:
            raise SystemFailure(f"worker: no store {store_id!r} in the task it was given")
        documents, queries = self.task.stores[store_id], tuple(self.by_store.get(store_id, ()))
        position = {d.id: i for i, d in enumerate(documents)}
        timed = TimedSystem(self.adapter)
        timed.index(documents, store_id)
        answers = timed.rank_many(queries, store_id)
        if len(answers) != len(queries):
            return {"returned": len(answers)}
        return {
            "answers": [plain_answer(q.id, a, store_id, position) for q, a in zip(queries, answers, strict=True)],
            "index_seconds": answers.index_seconds,
            "query_seconds": list(answers.query_seconds),
            "basis": answers.basis,
        }

    def finish(self) -> dict:
        """The worker's own facts at the end: its peak memory."""
        return {"peak_rss_mib": round(peak_rss_mib(), 1)}

    def call(self, op: str, payload: dict) -> dict:
        """One operation by name, as the scorer's frames ask for it."""
        if op == "declarations":
            return self.declarations()
        if op == "labels":
            return self.labels(payload["labels"])
        if op == "prepare":
            return self.prepare(task_from_plain(payload["task"]))
        if op == "store":
            return self.store(payload["store"])
        if op == "finish":
            return self.finish()
        raise SystemFailure(f"worker: unknown operation {op!r}")


def _error(exc: BaseException) -> dict:
    """An error as a frame: its memrecall kind, its one line, and the plug-in's traceback (shown by --debug)."""
    import traceback

    kind = type(exc).__name__ if isinstance(exc, MemrecallError) else "SystemFailure"
    cause = exc.__cause__ if isinstance(exc, MemrecallError) else exc
    trace = "".join(traceback.format_exception(cause)) if cause is not None else ""
    return {"error": {"kind": kind, "message": str(exc) or type(exc).__name__, "traceback": trace}}


def serve(read_fd: int, write_fd: int) -> None:
    """Answer frames until `finish`: the first must be `load`; each answer goes back after stdout is flushed."""
    session: PluginSession | None = None
    while True:
        try:
            message = read_frame(read_fd)
        except EOFError:
            return
        op, payload = message.get("op"), message.get("payload") or {}
        started = time.perf_counter()
        try:
            if op == "load":
                session = PluginSession.load(
                    payload["spec"], payload.get("name"), payload.get("path", ()), payload.get("code")
                )
                reply = session.declarations()
            elif session is None:
                raise SystemFailure("worker: no plug-in loaded")
            else:
                reply = session.call(op, payload)
            answer: dict = {"ok": reply, "seconds": time.perf_counter() - started}
        except BaseException as exc:  # noqa: BLE001 - every failure goes back as one line
            answer = _error(exc)
        sys.stdout.flush()
        write_frame(write_fd, answer)
        if op == "finish" or "error" in answer:
            return


def main(argv: Sequence[str]) -> int:
    """The worker process: ignore Ctrl-C (the scorer decides), then serve the two pipes named in argv."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    serve(int(argv[0]), int(argv[1]))
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)  # the work is done and answered: no interpreter teardown (a second or more with torch loaded)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
