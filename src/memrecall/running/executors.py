"""Executors decide where work happens, never what it computes: this process, or a Ray cluster.

Encoding goes through the encoder's batch runner (the fixed batches of `encoding_batches`);
ranking goes store by store. Both executors give the same rankings and the same signed content.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from memrecall.errors import ConfigError, MemrecallError, SystemFailure
from memrecall.running.limits import cap_to_store

CHUNKS_PER_WORKER = 4


@dataclass
class LocalExecutor:
    """Everything in this process."""

    name: str = "local"
    workers: int = 1

    def runner(self):
        """The encoder's default in-process batch runner."""
        from memrecall.encoding.embeddings import local_runner

        return local_runner

    def rank_stores(self, system, work: list[tuple[str, Sequence, list]], progress: Callable[[int], None]) -> dict:
        """Index each store and rank its queries here."""
        out = {}
        for store_id, documents, queries in work:
            out[store_id] = _index_and_rank(system, store_id, documents, queries)
            progress(len(queries))
        return out

    def describe(self) -> dict:
        """What goes in a report's env."""
        return {"executor": "local"}


class RayExecutor:
    """Encoding through a Ray Data actor pool (each actor loads the encoder once), ranking in Ray tasks."""

    name = "ray"

    def __init__(self, workers: int = 2, address: str | None = None) -> None:
        if workers < 1:
            raise ConfigError("--workers must be at least 1")
        try:
            import ray
        except ImportError:
            raise ConfigError("--executor ray needs Ray: pip install 'memrecall[ray]'") from None
        import warnings

        warnings.filterwarnings("ignore", module=r"ray(\..*)?$")
        warnings.filterwarnings("ignore", message=".*ray_remote_args.*")
        self.workers, self.address = workers, address
        import logging

        for name in ("ray", "ray.data"):
            logging.getLogger(name).setLevel(logging.ERROR)
        if not ray.is_initialized():
            kwargs: dict[str, Any] = {
                "include_dashboard": False,
                "log_to_driver": False,
                "logging_level": logging.ERROR,
            }
            try:
                if address:
                    ray.init(address=address, **kwargs)
                else:
                    ray.init(num_cpus=workers, **kwargs)
            except Exception as exc:  # noqa: BLE001 - any start-up failure of Ray is one line
                where = f"at {address}" if address else f"locally with {workers} CPUs"
                detail = str(exc).strip().splitlines()[-1][:200] if str(exc).strip() else ""
                problem = f"{type(exc).__name__}: {detail}"
                raise ConfigError(f"--executor ray: Ray did not start {where}: {problem}") from None
        context = ray.data.DataContext.get_current()
        context.enable_progress_bars = False
        context.print_on_execution_start = False
        context.enable_auto_log_stats = False
        for name in ("ray", "ray.data"):
            logging.getLogger(name).setLevel(logging.ERROR)

    def runner(self):
        """A batch runner that sends the fixed batches to an actor pool of `workers` encoders."""
        workers = self.workers

        def run(encoder, batches: list[list[str]]) -> Iterator[tuple[int, np.ndarray]]:
            import ray

            items = [{"index": i, "texts": json.dumps(batch)} for i, batch in enumerate(batches)]
            dataset = ray.data.from_items(items, override_num_blocks=max(1, min(len(items), workers * 8)))
            encoded = dataset.map_batches(
                EncodeActor,
                fn_constructor_kwargs=encoder.loader_args(),
                batch_size=1,
                compute=ray.data.ActorPoolStrategy(size=workers),
                num_cpus=1,
                max_restarts=0,
            )
            for row in encoded.iter_rows():
                vectors = np.frombuffer(row["vectors"], dtype=np.float32).reshape(int(row["count"]), -1)
                yield int(row["index"]), vectors

        return run

    def rank_stores(self, system, work: list[tuple[str, Sequence, list]], progress: Callable[[int], None]) -> dict:
        """Stores ranked in parallel Ray tasks, in chunks; results keyed by store, so order does not matter.

        Only memrecall's own systems come here, pickled to the workers; a plug-in is built in each Ray task's
        own worker process instead (running/boundary/isolated.py).
        """
        import ray

        size = max(1, math.ceil(len(work) / (self.workers * CHUNKS_PER_WORKER)))
        try:
            shared = ray.put(system)
        except Exception as exc:  # noqa: BLE001 - pickling an outside stack's objects fails in many ways
            raise SystemFailure(
                f"system {system.name} cannot be sent to Ray workers: {type(exc).__name__}: {str(exc)[:200]}; "
                "run it with --executor local, or keep unpicklable state (open files, locks) out of the object"
            ) from None
        pending = {
            _rank_chunk.remote(shared, work[i : i + size]): len(work[i : i + size]) for i in range(0, len(work), size)
        }
        sizes = {store_id: len(queries) for store_id, _, queries in work}
        out: dict = {}
        while pending:
            done, _ = ray.wait(list(pending), num_returns=1)
            pending.pop(done[0])
            try:
                chunk = ray.get(done[0])
            except ray.exceptions.RayTaskError as exc:
                _drain(pending)
                cause = exc.cause if isinstance(getattr(exc, "cause", None), MemrecallError) else None
                raise cause or SystemFailure(f"a ranking task failed: {str(exc).splitlines()[-1][:200]}") from None
            out.update(chunk)
            progress(sum(sizes[s] for s in chunk))
        return out

    def describe(self) -> dict:
        """What goes in a report's env (never in signed content)."""
        return {"executor": "ray", "workers": self.workers, "ray_address": self.address or "local"}


def _drain(pending) -> None:
    """Collect the other tasks' results before raising, so Ray logs no unhandled errors for them."""
    import ray

    for ref in list(pending):
        try:
            ray.get(ref)
        except Exception:  # noqa: BLE001 - the first failure is the one reported
            pass


class EncodeActor:
    """A Ray Data actor: loads the encoder once, then encodes one fixed batch per call."""

    def __init__(
        self, location: str, device: str, onnx_file: str | None = None, max_seq_length: int | None = None
    ) -> None:
        from memrecall.encoding.embeddings import load_model

        self.model = load_model(location, device, onnx_file, max_seq_length=max_seq_length)

    def __call__(self, batch: dict) -> dict:
        from memrecall.encoding.embeddings import encode_batch

        index = int(batch["index"][0])
        vectors = encode_batch(self.model, json.loads(str(batch["texts"][0])))
        return {
            "index": np.array([index]),
            "count": np.array([len(vectors)]),
            "vectors": np.array([vectors.tobytes()], dtype=object),
        }


def _index_and_rank(system, store_id: str, documents, queries: list) -> list:
    """Index one store and rank its queries; the adapter's user_code wrapper names the method, store or query.

    An answer longer than the store is replaced by a TooLong marker as soon as it comes back.
    """
    system.index(documents, store_id)
    answers = system.rank_many(queries, store_id)
    answers[:] = cap_to_store(answers, len(documents))
    return answers


def _rank_chunk_body(system, work: list) -> dict:
    """A chunk of stores ranked in one Ray task."""
    return {store_id: _index_and_rank(system, store_id, documents, queries) for store_id, documents, queries in work}


def remote_function(function):
    """Wrap lazily so importing this module never imports Ray."""

    class Lazy:
        _wrapped = None

        def remote(self, *args):
            import ray

            if Lazy._wrapped is None:
                Lazy._wrapped = ray.remote(function)
            return Lazy._wrapped.remote(*args)

    return Lazy()


_rank_chunk = remote_function(_rank_chunk_body)


def executor_facts(executor) -> dict:
    """Where a run's work happened, for a report's env (no executor given means local)."""
    return executor.describe() if executor is not None else {"executor": "local"}


def make_executor(name: str, workers: int | None = None, address: str | None = None):
    """`local` or `ray` (a local Ray of `workers` CPUs, or the cluster at `address`)."""
    if name == "local":
        return LocalExecutor()
    if name == "ray":
        return RayExecutor(workers or 2, address)
    raise ConfigError(f"unknown executor {name!r}; choose local or ray")
