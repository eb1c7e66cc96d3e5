"""A plug-in run across the trust boundary: sealed view out, plain id lists back, real ids restored, checked.

A plug-in (anything that is not memrecall's own code) sees a sealed task (running/sealing.py) and runs in
a spawned worker process (running/worker_client.py) inside bubblewrap (isolation: sandbox), or with
`--sandbox none` outside it (isolation: process), or, with `--in-process`, in this interpreter through
the same session code (isolation: none). Under Ray each ranking task spawns its own worker: nothing of
the plug-in runs in the driver. Its declarations are read once in a worker and come back as values.
"""

from __future__ import annotations

import math
import os
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from memrecall.data.model import Task
from memrecall.data.rankings import RankingRow
from memrecall.errors import ConfigError, SystemFailure
from memrecall.progress import progress_bar
from memrecall.running.boundary.sealing import Sealed, seal
from memrecall.running.boundary.wire import task_to_plain, unpack_positions
from memrecall.running.boundary.worker_client import DEFAULT_TIMEOUT, InProcess, Worker
from memrecall.running.cost import PER_CALL, TimedAnswers, run_cost
from memrecall.running.limits import TooLong
from memrecall.running.pipeline import SystemRun, checked_run
from memrecall.systems.sandbox import Mounts

ISOLATIONS = ("sandbox", "process", "none")


@dataclass(frozen=True)
class Plugin:
    """A plug-in to run: its spec (MODULE:ATTR or an entry-point name) or a built object, and how to run it."""

    spec: str | None
    name: str | None = None
    isolation: str = "process"
    built: Any = None
    timeout: float = DEFAULT_TIMEOUT
    pass_env: tuple[str, ...] = field(default_factory=tuple)
    allow_read: tuple[str, ...] = field(default_factory=tuple)
    hidden: tuple[str, ...] = field(default_factory=tuple)
    code: dict | None = None  # identity.code_manifest(): the hashed files, the only plug-in code the worker runs

    @property
    def label(self) -> str:
        """What error lines call it before it has told its name."""
        return self.name or self.spec or type(self.built).__name__

    @property
    def mounts(self) -> Mounts | None:
        """What its sandbox binds beside the Python installation (None: no sandbox)."""
        if self.isolation != "sandbox":
            return None
        code: tuple[str, ...] = ()
        if self.code is not None:
            root = self.code["root"]
            code = (root,) if self.code["package"] else tuple(f"{root}/{name}" for name in self.code["files"])
            code += (self.code["metadata"],) if self.code.get("metadata") else ()
        return Mounts(code, self.allow_read, self.hidden)

    def worker(self, label: str, cwd: str | None = None) -> Worker:
        """A fresh worker process for it (sandboxed when its isolation says so)."""
        return Worker(label, self.timeout, self.pass_env, cwd, self.mounts)

    def load_payload(self, path: Sequence[str], cwd: str) -> dict:
        """The `load` frame: spec, name, the search path (the scorer's working folder first), the code manifest."""
        return {"spec": self.spec, "name": self.name, "path": [cwd, *path], "code": self.code}


def _open(plugin: Plugin, label: str) -> tuple[Any, dict]:
    """A transport to the plug-in's session, and its declarations (read once, inside the session)."""
    from memrecall.running.boundary.worker import PluginSession

    if plugin.isolation == "none":
        if plugin.built is not None:
            session = PluginSession.of(plugin.built, plugin.name)
        else:
            session = PluginSession.load(str(plugin.spec), plugin.name)
        transport: Any = InProcess(session)
        return transport, _declared(transport.call("declarations", "loading"), label, plugin.spec)
    worker = plugin.worker(label)
    try:
        declared = worker.call("load", "import and construction", **plugin.load_payload(sys.path, os.getcwd()))
        declared = _declared(declared, label, plugin.spec)
    except BaseException:
        worker.kill()
        raise
    worker.system = declared["name"]
    return worker, declared


def _declared(declared: dict, label: str, spec: str | None = None) -> dict:
    """The declarations as the types they must have, under a name that is the plug-in's own; else one line."""
    from memrecall.systems.registry import reserved_name_problem

    name, flag, config, kind = (declared.get(k) for k in ("name", "uses_gold_labels", "config", "class"))
    if not isinstance(name, str) or not name or not isinstance(flag, bool) or not isinstance(config, dict):
        raise SystemFailure(f"system {label}: the worker sent malformed declarations")
    problem = reserved_name_problem(name, spec)
    if problem:
        raise ConfigError(problem)
    return {"name": name, "uses_gold_labels": flag, "config": config, "class": str(kind)}


def _session(transport: Any, declared: dict, sealed: Sealed, task: Task, tokens: Sequence[str], bar) -> dict:
    """Labels when declared, prepare, then each store of `tokens`: the replies by store token, and the facts."""
    rename = sealed.real_ids
    if declared["uses_gold_labels"]:
        transport.call("labels", "receive_gold_labels()", rename, labels=sealed.sealed_labels(task.gold_labels()))
    view = sealed.view if isinstance(transport, InProcess) else task_to_plain(sealed.view)
    transport.call("prepare", "prepare()", rename, task=view)
    prepared = time.perf_counter()
    replies = {}
    for token in tokens:
        doing = f"index() and rank() on store {sealed.store_ids[token]!r}"
        replies[token] = transport.call("store", doing, rename, store=token)
        bar(len(replies[token].get("answers") or ()))
    facts = transport.finish()
    return {"replies": replies, "facts": facts, "prepared": prepared}


def rank_plugin(
    plugin: Plugin,
    task: Task,
    require_full: bool,
    show_progress: bool = False,
    executor: Any = None,
    depth: int | None = None,
) -> tuple[SystemRun, dict]:
    """Run a plug-in on a task across the boundary: its checked run, and its declarations."""
    if plugin.isolation not in ISOLATIONS:
        raise ConfigError(f"unknown isolation {plugin.isolation!r}; choose {' or '.join(ISOLATIONS)}")
    started = time.perf_counter()
    depth = None if require_full else depth
    sealed = seal(task.public(depth))
    tokens = list(dict.fromkeys(q.store_id for q in sealed.view.queries))
    with progress_bar(len(task.queries), f"{plugin.label}: ranking", show_progress, unit="query") as bar:
        if executor is not None and getattr(executor, "name", "local") == "ray":
            if plugin.isolation == "none":
                raise ConfigError(
                    "a plug-in object (or --in-process) runs in this interpreter, so not on the ray executor; "
                    "give run_system its spec string (MODULE:ATTR) to run it isolated on Ray"
                )
            declared, done = _on_ray(plugin, sealed, task, tokens, executor, bar.update)
        else:
            transport, declared = _open(plugin, plugin.label)
            try:
                done = _session(transport, declared, sealed, task, tokens, bar.update)
            except BaseException:
                transport.kill()
                raise
    order = {q.id: i for i, q in enumerate(task.queries)}
    rows, problems, outputs = _unseal(sealed, done["replies"], order)
    seconds = time.perf_counter() - started
    run = checked_run(declared["name"], declared["config"], rows, {}, problems, task, require_full, depth)
    cost = run_cost(outputs, done["prepared"] - started, seconds)
    if done["facts"].get("peak_rss_mib") is not None and plugin.isolation != "none":
        cost.update(peak_rss_mib=done["facts"]["peak_rss_mib"], peak_rss_scope="the plug-in's worker process")
    run.seconds, run.cost, run.uses_gold_labels = seconds, cost, declared["uses_gold_labels"]
    return run, declared


def _unseal(sealed: Sealed, replies: dict, order: dict[str, int]) -> tuple[list[RankingRow], list[str], dict]:
    """Rankings rows with the real ids, the problems found (both in task order), and each store's timings."""
    by_store: dict[str, list] = {}
    for query in sealed.view.queries:
        by_store.setdefault(query.store_id, []).append(query)
    rows: list[tuple[int, RankingRow]] = []
    problems: list[tuple[int, str]] = []
    outputs = {}
    for token, reply in replies.items():
        real_store, queries = sealed.store_ids[token], by_store.get(token, [])
        answers = reply.get("answers")
        if not isinstance(answers, list) or len(answers) != len(queries):
            count = reply.get("returned", "malformed")
            first = min(order[sealed.query_ids[q.id]] for q in queries) if queries else -1
            problems.append(
                (first, f"store {real_store}: rank_many returned {count} rankings for {len(queries)} queries")
            )
            continue
        timed = TimedAnswers(answers)
        timed.index_seconds = _seconds(reply.get("index_seconds"))
        timed.query_seconds = tuple(_seconds(s) for s in reply.get("query_seconds") or ())
        timed.basis = str(reply.get("basis") or PER_CALL)
        outputs[real_store] = timed
        reals = list(sealed.doc_ids[token].values())  # the real ids in store order, as the tokens were drawn
        size = len(reals)
        for query, answer in zip(queries, answers, strict=True):
            real_query = sealed.query_ids[query.id]
            at = order[real_query]
            problem = _answer_problem(answer, real_query, real_store, size, sealed)
            if problem is None:
                try:
                    ids = tuple([reals[p] for p in unpack_positions(answer["positions"])])
                except (ValueError, IndexError):
                    problem = f"query {real_query}: the worker sent a malformed answer"
            if problem:
                problems.append((at, problem))
                continue
            rows.append((at, RankingRow(f"query {real_query}", None, real_query, ids)))
    return [r for _, r in sorted(rows, key=lambda p: p[0])], [p for _, p in sorted(problems)], outputs


def _answer_problem(answer: Any, query_id: str, store_id: str, size: int, sealed: Sealed) -> str | None:
    """What is wrong with one plain answer (its problem line with real ids), or None."""
    if not isinstance(answer, dict):
        return f"query {query_id}: the worker sent a malformed answer"
    if "too_long" in answer:
        return TooLong(answer["too_long"], size).problem(query_id, store_id)
    if "problem" in answer:
        return sealed.real_ids(str(answer["problem"]))[:300]
    if not isinstance(answer.get("positions"), str):
        return f"query {query_id}: the worker sent a malformed answer"
    return None


def _seconds(value: Any) -> float:
    """A timing the worker reported, as a finite non-negative float (0.0 when it is not one)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value >= 0:
        return float(value)
    return 0.0


def _on_ray(plugin: Plugin, sealed: Sealed, task: Task, tokens: list[str], executor: Any, bar) -> tuple[dict, dict]:
    """Declarations from one local worker, then chunks of stores in Ray tasks that each spawn their own worker."""
    import ray

    from memrecall.running.executors import CHUNKS_PER_WORKER, remote_function

    worker, declared = _open(plugin, plugin.label)
    worker.finish()
    labels = sealed.sealed_labels(task.gold_labels()) if declared["uses_gold_labels"] else None
    shared = ray.put({"task": task_to_plain(sealed.view), "labels": labels})
    size = max(1, math.ceil(len(tokens) / (executor.workers * CHUNKS_PER_WORKER)))
    chunk, where = remote_function(_ray_chunk), {"path": list(sys.path), "cwd": os.getcwd()}
    pending = {
        chunk.remote(plugin, declared, shared, where, tokens[i : i + size]): i for i in range(0, len(tokens), size)
    }
    replies: dict = {}
    peak, started = 0.0, time.perf_counter()
    while pending:
        done, _ = ray.wait(list(pending), num_returns=1)
        pending.pop(done[0])
        try:
            out = ray.get(done[0])
        except Exception as exc:  # noqa: BLE001 - a Ray task's failure carries our one line as its cause
            for ref in pending:
                ray.cancel(ref, force=True)
            cause = getattr(exc, "cause", None)
            message = str(cause) if isinstance(cause, Exception) else str(exc).splitlines()[-1][:300]
            raise SystemFailure(sealed.real_ids(message)) from None
        replies.update(out["replies"])
        peak = max(peak, float(out["facts"].get("peak_rss_mib") or 0.0))
        bar(sum(len(r.get("answers") or ()) for r in out["replies"].values()))
    return declared, {"replies": {t: replies[t] for t in tokens}, "facts": {"peak_rss_mib": peak}, "prepared": started}


def _ray_chunk(plugin: Plugin, declared: dict, shared: dict, where: dict, tokens: list[str]) -> dict:
    """In a Ray task: spawn a worker, check it declares what the first did, hand labels, prepare, rank the chunk."""
    worker = plugin.worker(declared["name"], where["cwd"])
    try:
        again = _declared(
            worker.call("load", "import and construction", **plugin.load_payload(where["path"], where["cwd"])),
            declared["name"],
            plugin.spec,
        )
        if again != declared:
            differs = sorted(k for k in declared if declared[k] != again[k])
            raise SystemFailure(f"system {declared['name']}: declared {', '.join(differs)} differently in two workers")
        if shared["labels"] is not None:
            worker.call("labels", "receive_gold_labels()", labels=shared["labels"])
        worker.call("prepare", "prepare()", task=shared["task"])
        replies = {t: worker.call("store", f"index() and rank() on store {t}", store=t) for t in tokens}
        return {"replies": replies, "facts": worker.finish()}
    except BaseException:
        worker.kill()
        raise
