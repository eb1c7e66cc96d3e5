"""One encoder per run, loaded only when a system asks for it."""

from __future__ import annotations

from pathlib import Path

from memrecall.embeddings import Encoder, cache_dir, resolve_model


class SharedEncoder:
    """Loads the encoder (and opens its cache) on first use; every system of the run shares it."""

    def __init__(self, model: str | None, cache: Path | None) -> None:
        self.model, self.cache = model, cache
        self._encoder: Encoder | None = None

    def get(self) -> Encoder:
        """The encoder, loaded on the first call."""
        if self._encoder is None:
            self._encoder = Encoder(resolve_model(self.model), cache_dir(self.cache))
        return self._encoder

    @property
    def loaded(self) -> bool:
        """True once a system asked for the encoder."""
        return self._encoder is not None

    def run_facts(self) -> dict:
        """The encoder's unsigned run facts (device, cache hits) when it was used, else nothing."""
        return self._encoder.run_facts() if self._encoder else {}
