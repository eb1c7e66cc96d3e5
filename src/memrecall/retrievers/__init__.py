"""The built-in retrievers; they are built by name in memrecall.systems."""

from memrecall.retrievers.base import Retriever, System, TaskAware
from memrecall.retrievers.fusion import reciprocal_rank_fusion

__all__ = ["Retriever", "System", "TaskAware", "reciprocal_rank_fusion"]
