"""mem0 `Memory` with infer=False over a local Qdrant store and its huggingface embedder on the bundled MiniLM.

Environment set before mem0 is imported (besides common.OFFLINE_ENV):
- MEM0_TELEMETRY=False: no posthog analytics, and no fetch of mem0's remote notice file (mem0 reads it once,
  at import: when something imported mem0 earlier with telemetry on, index() refuses with ConfigError);
- MEM0_DIR=<a temp folder removed at exit>: mem0 writes config.json (a user id) there, not in ~/.mem0;
- OPENAI_API_KEY=<placeholder> only when unset: `Memory` builds its default OpenAI LLM client at init even
  though infer=False never calls it; no request is ever made with it.
Search uses threshold=0.0 (mem0's default 0.1 drops documents) and top_k = the store size. mem0 still drops
documents whose cosine score is below 0: those are appended in store order. Ties keep mem0's order (Qdrant's
score order, then Python's stable sort on the combined score).
"""

from __future__ import annotations

import atexit
import importlib.util
import logging
import os
import shutil
import sys
import tempfile
from collections.abc import Sequence
from typing import Any

from memrecall.errors import ConfigError
from memrecall.systems.adapters.common import (
    UNRETURNED,
    import_stack,
    local_model_path,
    model_config,
    offline_env,
    stack_version,
    task_depth,
    with_unreturned,
)

USER = "memrecall"
PLACEHOLDER_KEY = "sk-placeholder-never-used"
_MEM0_DIR: list[str] = []


def _mem0_env() -> None:
    """Set the offline environment mem0 reads at import time (once per process)."""
    if not _MEM0_DIR:
        folder = tempfile.mkdtemp(prefix="memrecall-mem0-")
        _MEM0_DIR.append(folder)
        atexit.register(shutil.rmtree, folder, True)
    offline_env({"MEM0_TELEMETRY": "False", "MEM0_DIR": _MEM0_DIR[0]})
    os.environ.setdefault("OPENAI_API_KEY", PLACEHOLDER_KEY)


def optional_parts() -> dict[str, str]:
    """Which of mem0's optional scoring signals are active here (they change rankings)."""
    fastembed = importlib.util.find_spec("fastembed") is not None
    spacy = importlib.util.find_spec("spacy") is not None
    spacy_model = importlib.util.find_spec("en_core_web_sm") is not None
    return {
        "bm25": "on (fastembed Qdrant/bm25)" if fastembed else "off: fastembed not installed",
        "entity_boost": "on (spaCy en_core_web_sm)" if spacy and spacy_model else "off: spaCy not installed",
    }


def _metadata(document: Any) -> dict[str, str]:
    """The document's id, and its timestamp as mem0's created_at (mem0 uses the wall clock otherwise)."""
    stamp = {"created_at": document.timestamp.isoformat()} if document.timestamp is not None else {}
    return {"doc_id": document.id, **stamp}


class Mem0Adapter:
    """mem0 Memory (infer=False, local Qdrant, huggingface MiniLM); ranks by Memory.search."""

    name = "mem0"

    def __init__(self) -> None:
        self._memory: Any = None
        self._folder: str | None = None
        self._store_ids: list[str] = []
        self._depth: int | None = None
        self.unreturned = 0  # documents mem0 left out of the answers so far (score below 0)

    def prepare(self, task: Any) -> None:
        """Use the task's depth when it gives one; otherwise rank the whole store."""
        self._depth = task_depth(task)

    def _build(self, folder: str) -> Any:
        """A fresh Memory whose Qdrant store and history database live in `folder`."""
        _mem0_env()
        parts = optional_parts()
        if importlib.util.find_spec("spacy") is not None and "off" in parts["entity_boost"]:
            raise ConfigError(
                "mem0 adapter: spaCy is installed without en_core_web_sm, so mem0 would download it at the first "
                "search; `pip install en_core_web_sm` or uninstall spacy"
            )
        mem0 = import_stack("mem0", "mem0", "mem0")
        if sys.modules["mem0.memory.telemetry"].MEM0_TELEMETRY:
            raise ConfigError(
                "mem0 adapter: mem0 was imported with its telemetry on (it reads MEM0_TELEMETRY once, at import); "
                "set MEM0_TELEMETRY=False before anything imports mem0"
            )
        for logger in ("mem0.utils.spacy_models", "mem0.vector_stores.qdrant"):  # the state is in config()
            logging.getLogger(logger).setLevel(logging.ERROR)
        return mem0.Memory.from_config(
            {
                "vector_store": {
                    "provider": "qdrant",
                    "config": {
                        "collection_name": "memrecall",
                        "embedding_model_dims": 384,
                        "path": os.path.join(folder, "qdrant"),
                        "on_disk": False,
                    },
                },
                "embedder": {
                    "provider": "huggingface",
                    "config": {"model": local_model_path(), "embedding_dims": 384, "model_kwargs": {"device": "cpu"}},
                },
                "history_db_path": os.path.join(folder, "history.db"),
            }
        )

    def close(self) -> None:
        """Close the current Memory and remove its temp folder."""
        if self._memory is not None:
            self._memory.close()
            self._memory = None
        if self._folder is not None:
            shutil.rmtree(self._folder, ignore_errors=True)
            self._folder = None

    def index(self, documents: Sequence[Any]) -> None:
        """A fresh Memory per store; one add(infer=False) per document, its id and timestamp in metadata."""
        self.close()
        self._folder = tempfile.mkdtemp(prefix="memrecall-mem0-store-")
        self._memory = self._build(self._folder)
        self._store_ids = [document.id for document in documents]
        for document in documents:
            self._memory.add(
                [{"role": "user", "content": document.text}],
                user_id=USER,
                infer=False,
                metadata=_metadata(document),
            )

    def rank(self, query: Any) -> list[str]:
        """Memory.search over the whole store (threshold 0.0), then unreturned ids in store order."""
        limit = min(self._depth, len(self._store_ids)) if self._depth else len(self._store_ids)
        if not limit:
            return []
        found = self._memory.search(query.text, filters={"user_id": USER}, top_k=limit, threshold=0.0)
        ids = [hit["metadata"]["doc_id"] for hit in found["results"]]
        self.unreturned += limit - len(ids)
        return with_unreturned(ids, self._store_ids, self._depth)

    def config(self) -> dict:
        """mem0's version and every setting that changes its rankings."""
        return {
            "name": self.name,
            "stack": "mem0ai",
            "version": stack_version("mem0ai"),
            "infer": False,
            "vector_store": "qdrant local (path, on_disk=False)",
            "qdrant_client": stack_version("qdrant-client"),
            "distance": "cosine",
            "embedder": "huggingface",
            **model_config(),
            "threshold": 0.0,
            "top_k": self._depth or "store size",
            **optional_parts(),
            "ties": "mem0 order (Qdrant score order, then a stable sort on the combined score)",
            "unreturned": f"{UNRETURNED} (mem0 drops cosine scores below 0 even at threshold 0.0)",
        }
