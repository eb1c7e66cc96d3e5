"""TaskAware, the base class of the built-in retrievers."""

from __future__ import annotations

from typing import Any

from memrecall.data.model import PublicTask


class TaskAware:
    """Base of the built-in retrievers: a no-op prepare(task) and a config() naming the retriever."""

    def prepare(self, task: PublicTask) -> None:
        """Called once before any store of `task` is indexed; does nothing by default."""

    def config(self) -> dict[str, Any]:
        """The settings that define this retriever's output, recorded in reports."""
        return {"name": getattr(self, "name", type(self).__name__)}
