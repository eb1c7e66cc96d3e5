"""Memory-model strategies: dense similarity fused with a time-decay or salience prior, optionally gated."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from importlib import resources

import numpy as np

from memrecall.data.model import Document, PublicTask, Query, Ranking, rank_by_score
from memrecall.errors import ConfigError
from memrecall.systems.builtin.affect import vader_intensity, vader_version
from memrecall.systems.builtin.base import TaskAware
from memrecall.systems.builtin.dense import DenseRetriever


@lru_cache(maxsize=1)
def memory_model_config() -> dict:
    """The committed, pre-registered settings (retrievers/memory_models.json)."""
    text = resources.files("memrecall.systems.builtin").joinpath("memory_models.json").read_text(encoding="utf-8")
    return json.loads(text)


def exponential_decay(age_days: float, half_life_days: float) -> float:
    """0.5 ** (age / half-life) for a non-negative age: 1 at age 0, 0.5 at one half-life."""
    if half_life_days <= 0:
        raise ValueError("half-life must be positive")
    return 0.5 ** (max(age_days, 0.0) / half_life_days)


def fuse(cosine: np.ndarray, prior: np.ndarray, weight: float) -> np.ndarray:
    """(1 - weight) * cosine + weight * prior; weight 0 returns the cosines unchanged."""
    if weight == 0.0:
        return cosine
    return (1.0 - weight) * cosine + weight * prior


def band_salience(labels: Mapping[str, Mapping[str, str]], document: Document, band_values: dict[str, float]) -> float:
    """The oracle salience of an episode from its authored intensity band (labels by document id)."""
    band = labels.get(document.id, {}).get("intensity_band")
    if band not in band_values:
        raise ConfigError(f"document {document.id} has no intensity_band label; the oracle needs EpiRec labels")
    return band_values[band]


def gate_open(query: Query, threshold: float) -> bool:
    """True when the query's VADER intensity reaches the threshold."""
    return vader_intensity(query.text) >= threshold


class PriorFusionRetriever(TaskAware):
    """Dense cosine fused with a per-document prior; ties keep store order like dense.

    `prior(store, query)` gives one value per document; `gate(query)` decides whether the
    fusion applies (plain dense otherwise).
    """

    def __init__(
        self,
        name: str,
        dense: DenseRetriever,
        prior: Callable[[Sequence[Document], Query], np.ndarray],
        weight: float,
        settings: dict,
        gate: Callable[[Query], bool] | None = None,
    ) -> None:
        self.name = name
        self.dense = dense
        self.prior = prior
        self.weight = weight
        self.settings = settings
        self.gate = gate
        self._store: tuple[Document, ...] = ()
        self.uses_gold_labels = False
        self.gold_labels: Mapping[str, Mapping[str, Mapping[str, str]]] = {}

    def receive_gold_labels(self, labels: Mapping[str, Mapping[str, Mapping[str, str]]]) -> None:
        """Keep the authored labels by store and document id (only an oracle declares that it reads them)."""
        self.gold_labels = labels

    def config(self) -> dict:
        """Name, pre-registered settings, and the encoder identity."""
        return {
            "name": self.name,
            "settings": self.settings,
            "weight": self.weight,
            "model": self.dense.encoder.describe(),
        }

    def prepare(self, task: PublicTask) -> None:
        """Encode the task once through the dense part."""
        self.dense.prepare(task)

    def index(self, store: Sequence[Document]) -> None:
        """Index the store for dense scoring and keep it for the prior."""
        self._store = tuple(store)
        self.dense.index(store)

    def rank(self, query: Query) -> Ranking:
        """Fused score when the gate is open (or absent), plain cosine otherwise."""
        cosine = self.dense.similarities(query).astype(np.float64)
        weight = self.weight if self.gate is None or self.gate(query) else 0.0
        scores = fuse(cosine, self.prior(self._store, query), weight) if weight else cosine
        return rank_by_score(query.id, [d.id for d in self._store], scores.tolist())


def build_memory_model(name: str, dense: DenseRetriever, weight: float | None = None) -> PriorFusionRetriever:
    """time-decay, salience-oracle, salience-vader or gated, with the committed settings."""
    config = memory_model_config()
    if name not in config or name.startswith("_"):
        raise ConfigError(f"unknown memory-model strategy {name!r}")
    settings = config[name]
    weight = settings["weight"] if weight is None else weight
    if name == "time-decay":
        half_life = settings["half_life_days"]

        def decay(store, query):
            if query.time is None or any(d.timestamp is None for d in store):
                raise ConfigError(f"time-decay needs a query time and dated documents (query {query.id})")
            return np.array(
                [exponential_decay((query.time - d.timestamp).total_seconds() / 86400, half_life) for d in store]
            )

        return PriorFusionRetriever(name, dense, decay, weight, settings)
    if name == "salience-oracle":
        values = settings["band_values"]

        def authored(store, query):
            labels = oracle.gold_labels.get(query.store_id, {})
            return np.array([band_salience(labels, d, values) for d in store])

        oracle = PriorFusionRetriever(name, dense, authored, weight, settings)
        oracle.uses_gold_labels = True
        return oracle
    vader = {**settings, "vader_version": vader_version()}
    estimated = _vader_prior()
    if name == "salience-vader":
        return PriorFusionRetriever(name, dense, estimated, weight, vader)
    threshold = settings["threshold"]
    return PriorFusionRetriever(name, dense, estimated, weight, vader, gate=lambda q: gate_open(q, threshold))


def _vader_prior() -> Callable[[Sequence[Document], Query], np.ndarray]:
    """Per-document VADER intensity, computed once per text."""
    cache: dict[str, float] = {}

    def prior(store: Sequence[Document], _query: Query) -> np.ndarray:
        for document in store:
            if document.text not in cache:  # not setdefault: its default would be computed on every call
                cache[document.text] = vader_intensity(document.text)
        return np.array([cache[d.text] for d in store])

    return prior
