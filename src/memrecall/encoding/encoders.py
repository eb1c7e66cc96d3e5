"""One encoder per run, loaded only when a system asks for it."""

from __future__ import annotations

from pathlib import Path

from memrecall.encoding.backends import choose_backend
from memrecall.encoding.embeddings import Encoder, cache_dir, resolve_model, weights_sha256


class SharedEncoder:
    """Loads the encoder (and opens its cache) on first use; every system of the run shares it."""

    def __init__(
        self,
        model: str | None,
        cache: Path | None,
        device: str = "auto",
        executor=None,
        backend: str | None = None,
        precision: str | None = None,
    ) -> None:
        self.model, self.cache, self.device, self.executor = model, cache, device, executor
        self.backend = choose_backend(backend, precision, device)
        self.source = resolve_model(model)  # a named encoder that is not fetched is refused before any work
        if self.backend.name == "onnx" and Path(self.source.location).is_dir():
            from memrecall.encoding.onnx_encoder import check_pooling

            check_pooling(Path(self.source.location))  # a model the export does not cover, too
        self._encoder: Encoder | None = None

    def get(self) -> Encoder:
        """The encoder, loaded on the first call; it encodes where the executor says."""
        if self._encoder is None:
            runner = self.executor.runner() if self.executor is not None else None
            self._encoder = Encoder(self.source, cache_dir(self.cache), self.device, runner, self.backend)
        return self._encoder

    def attach(self, executor) -> None:
        """Encode through this executor from now on (also when the encoder is already loaded)."""
        self.executor = executor
        if self._encoder is not None and executor is not None:
            self._encoder.runner = executor.runner()

    @property
    def loaded(self) -> bool:
        """True once a system asked for the encoder."""
        return self._encoder is not None

    def computed_at_least(self) -> int:
        """The vectors this run's encoding calls computed at the least so far (0 before the encoder is loaded)."""
        return self._encoder.computed_at_least if self._encoder else 0

    def run_facts(self) -> dict:
        """The encoder's unsigned run facts (device, cache hits) when it was used, else nothing."""
        return self._encoder.run_facts() if self._encoder else {}


def export_for(cache_folder: Path, precision: str, model: str | None = None) -> Path:
    """The cached ONNX export of the model `resolve_model(model)` picks (the bundled MiniLM by default)."""
    from memrecall.encoding.onnx_export import ensure_export

    source = resolve_model(model)
    return ensure_export(cache_folder, source.model_id, source.location, weights_sha256(source.location), precision)
