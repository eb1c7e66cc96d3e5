"""One place that resolves and loads the sentence encoder and caches vectors on disk."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path

import numpy as np

from memrecall.encoding.backends import EncoderBackend
from memrecall.encoding.sources import HUB_MODEL, MODEL_ENV, ModelSource, identified, resolve_model, weights_sha256
from memrecall.encoding.vector_cache import CHECK_TOLERANCE, VectorCache, check_count, check_sample
from memrecall.errors import ConfigError, DatasetError

__all__ = ["HUB_MODEL", "MODEL_ENV", "ModelSource", "resolve_model", "weights_sha256"]  # moved to sources.py
CACHE_ENV = "MEMRECALL_CACHE"
DEFAULT_CACHE = Path(".memrecall_cache")


def text_sha256(text: str) -> str:
    """Hex sha256 of a text's UTF-8 bytes."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def cache_dir(explicit: str | Path | None = None) -> Path:
    """--cache-dir, else MEMRECALL_CACHE, else .memrecall_cache in the working directory."""
    return Path(explicit or os.environ.get(CACHE_ENV) or DEFAULT_CACHE)


DEVICES = ("auto", "cpu", "cuda", "mps")
ENCODE_BATCH = 64


def select_device(requested: str, cuda_available: bool, mps_available: bool) -> str:
    """auto -> cuda, else mps, else cpu; an explicit device must be available."""
    if requested not in DEVICES:
        raise ConfigError(f"unknown device {requested!r}; choose {', '.join(DEVICES)}")
    if requested == "auto":
        return "cuda" if cuda_available else "mps" if mps_available else "cpu"
    if requested == "cuda" and not cuda_available:
        raise ConfigError("--device cuda: torch sees no CUDA device here")
    if requested == "mps" and not mps_available:
        raise ConfigError("--device mps: torch sees no Apple MPS device here")
    return requested


def available_device(requested: str) -> str:
    """The device to encode on, asking torch what it can see."""
    import torch

    mps = getattr(torch.backends, "mps", None)
    return select_device(requested, torch.cuda.is_available(), bool(mps and mps.is_available()))


def encoding_batches(
    texts: dict[str, str], size: int = ENCODE_BATCH, tokens: Mapping[str, int] | None = None
) -> list[list[tuple[str, str]]]:
    """The fixed batching rule: (sha256, text) sorted by length then sha256, cut every `size` items.

    Length is the text's character count, or its token count when `tokens` (sha256 -> count) is
    given; then a batch is also cut wherever the count changes, so no batch holds padding (the onnx
    backend). A text's vector can differ in its last bits with the batch it is encoded in, so every
    executor encodes exactly these batches, whatever the number of workers.
    """
    if tokens is None:
        ordered = sorted(texts.items(), key=lambda item: (len(item[1]), item[0]))
        return [ordered[start : start + size] for start in range(0, len(ordered), size)]
    batches: list[list[tuple[str, str]]] = []
    for item in sorted(texts.items(), key=lambda item: (tokens[item[0]], item[0])):
        if not batches or len(batches[-1]) == size or tokens[batches[-1][0][0]] != tokens[item[0]]:
            batches.append([])
        batches[-1].append(item)
    return batches


def load_sentence_model(location: str, device: str, max_seq_length: int | None = None):
    """A SentenceTransformer loaded offline when the model is a local folder (its length capped if given)."""
    if Path(location).is_dir():
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    from sentence_transformers import SentenceTransformer
    from transformers.utils import logging as transformers_logging

    transformers_logging.disable_progress_bar()
    try:
        model = SentenceTransformer(location, device=device)
    except Exception as exc:  # noqa: BLE001 - any load failure becomes one line
        raise ConfigError(f"cannot load encoder {location!r}: {exc}") from None
    if max_seq_length is not None:
        model.max_seq_length = max_seq_length
    return model


def encode_batch(model, texts: list[str]) -> np.ndarray:
    """One batch through the model as a single forward pass: normalised float32 vectors."""
    if hasattr(model, "encode_batch"):  # the ONNX Runtime model encodes a batch as it is
        return model.encode_batch(texts)
    vectors = model.encode(
        texts, batch_size=max(len(texts), 1), normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False
    )
    return np.asarray(vectors, dtype=np.float32)


BatchRunner = Callable[["Encoder", list[list[str]]], Iterator[tuple[int, np.ndarray]]]


def load_model(
    location: str, device: str, onnx_file: str | None = None, tokenizer=None, max_seq_length: int | None = None
):
    """The ONNX Runtime model when an export is given (reusing `tokenizer` if given), else sentence-transformers."""
    if onnx_file is None:
        return load_sentence_model(location, device, max_seq_length)
    from memrecall.encoding.onnx_encoder import OnnxModel

    return OnnxModel(Path(onnx_file), location, tokenizer)


def local_runner(encoder: Encoder, batches: list[list[str]]) -> Iterator[tuple[int, np.ndarray]]:
    """Encode the batches one after another in this process."""
    model = encoder.load()
    for index, batch in enumerate(batches):
        yield index, encode_batch(model, batch)


class Encoder:
    """A sentence-transformers model, loaded on first use, with an on-disk vector cache.

    Missing texts are encoded in the batches `encoding_batches` forms, through a runner that decides
    where the work happens (this process, or a Ray actor pool); only this object writes the cache.
    """

    def __init__(
        self,
        source: ModelSource,
        cache_folder: Path,
        device: str = "auto",
        runner: BatchRunner | None = None,
        backend: EncoderBackend | None = None,
    ) -> None:
        self.requested_device = device
        self.backend = backend or EncoderBackend()
        self.weights_sha256 = weights_sha256(source.location)
        self.source = identified(source, self.weights_sha256)
        capped = f"+max{self.source.max_seq_length}" if self.source.max_seq_length is not None else ""
        digest = (self.weights_sha256 or "unhashed")[:16]
        self.cache_key = f"{self.source.model_id}@{digest}{capped}{self.backend.cache_suffix()}"
        self.cache_folder = Path(cache_folder)
        self._onnx_file: Path | None = None
        self._cache = VectorCache(cache_folder)
        self._model = None
        self._tokenizer = None
        self._device: str | None = None
        self.runner = runner or local_runner
        self.encoded_count = 0
        self.checked_count = 0
        self.computed_at_least = 0  # signed: fixed by the calls' sizes, the same cold or warm

    @property
    def device(self) -> str:
        """The device encoding runs on (resolved from --device on first use)."""
        if self._device is None:
            onnx = self.backend.name == "onnx"
            self._device = "cpu" if onnx else available_device(self.requested_device)
        return self._device

    def load(self):
        """The model, loaded on first use."""
        if self._model is None:  # in this process the onnx model reuses the tokenizer that counted tokens
            self._model = load_model(**self.loader_args(), tokenizer=self._tokenizer)
        return self._model

    def loader_args(self) -> dict:
        """What `load_model` needs to load this encoder in any process (the ONNX file is exported first)."""
        if self.backend.name == "onnx" and self._onnx_file is None:
            from memrecall.encoding.onnx_encoder import check_pooling
            from memrecall.encoding.onnx_export import ensure_export

            check_pooling(Path(self.source.location))
            if self.source.max_seq_length is not None:
                raise ConfigError(f"--encoder-backend onnx does not cover {self.source.model_id} (its length cap)")

            source, precision = self.source, self.backend.precision
            self._onnx_file = ensure_export(
                self.cache_folder, source.model_id, source.location, self.weights_sha256, precision
            )
        onnx_file = str(self._onnx_file) if self._onnx_file is not None else None
        location, length = self.source.location, self.source.max_seq_length
        return {"location": location, "device": self.device, "onnx_file": onnx_file, "max_seq_length": length}

    def encode(
        self, texts: Sequence[str], progress: Callable[[int], None] | None = None, role: str = "document"
    ) -> np.ndarray:
        """Normalised float32 vectors for `texts` as queries or documents (each after its role's prompt)."""
        return self.encode_seen([self.source.prompt(role) + t for t in texts], progress)

    def encode_pairs(
        self, pairs: Sequence[tuple[str, str]], progress: Callable[[int], None] | None = None
    ) -> np.ndarray:
        """Vectors for (role, text) pairs, all encoded together in the fixed batches of their prompted texts."""
        return self.encode_seen([self.source.prompt(role) + text for role, text in pairs], progress)

    def encode_seen(self, texts: Sequence[str], progress: Callable[[int], None] | None = None) -> np.ndarray:
        """Normalised float32 vectors for texts as the model sees them, computing only those missing from the cache."""
        keys = [text_sha256(t) for t in texts]
        cached = self._cache.get_many(self.cache_key, list(dict.fromkeys(keys)))
        by_key = dict(zip(keys, texts, strict=True))
        # cold, all T are computed; warm, check_count(T) are re-encoded; part warm, the fresh ones and the sample
        self.computed_at_least += check_count(len(by_key))
        if cached:
            self.check_cached(cached, by_key)
        missing = {k: t for k, t in by_key.items() if k not in cached}
        if missing:
            fresh: dict[str, np.ndarray] = {}
            for batch_keys, vectors in self.encode_batches(missing):
                fresh.update(zip(batch_keys, vectors, strict=True))
                if progress:
                    progress(len(batch_keys))
            self._cache.put_many(self.cache_key, fresh)
            self.encoded_count += len(fresh)
            cached.update(fresh)
        return np.stack([cached[k] for k in keys]) if keys else np.zeros((0, 0), dtype=np.float32)

    def encode_batches(self, texts: dict[str, str]) -> Iterator[tuple[list[str], np.ndarray]]:
        """(sha256s, vectors) of each fixed batch of `texts` (sha256 -> text), as the runner encodes them."""
        batches = encoding_batches(texts, tokens=self.token_counts(texts))
        for index, vectors in self.runner(self, [[t for _, t in batch] for batch in batches]):
            yield [k for k, _ in batches[index]], vectors

    def check_cached(self, cached: dict[str, np.ndarray], texts: dict[str, str]) -> None:
        """Re-encode a sample of the vectors read from the cache; refuse the run, naming the cache file, when any
        differs from its fresh encoding by more than CHECK_TOLERANCE (the cache was altered or damaged)."""
        sample = {k: texts[k] for k in check_sample(list(cached))}
        bad, worst = 0, 0.0
        for batch_keys, vectors in self.encode_batches(sample):
            for key, vector in zip(batch_keys, vectors, strict=True):
                difference = float(np.max(np.abs(cached[key] - vector)))
                bad, worst = bad + (difference > CHECK_TOLERANCE), max(worst, difference)
        self.checked_count += len(sample)
        if bad:
            raise DatasetError(
                str(self._cache.path),
                "",
                f"{bad} of {len(sample)} cached vectors re-encoded for {self.source.model_id} differ from a fresh "
                f"encoding (by up to {worst:.3g}; the tolerance is {CHECK_TOLERANCE:g}): the cache was altered or "
                "damaged; delete it and run again",
            )

    def token_counts(self, texts: dict[str, str]) -> dict[str, int] | None:
        """sha256 -> token count for the onnx backend, which batches texts of one length; None for torch."""
        if self.backend.name != "onnx":
            return None
        if self._tokenizer is None:  # the loaded onnx model's own, else one of the same folder
            from memrecall.encoding.onnx_encoder import FolderTokenizer

            self._tokenizer = getattr(self._model, "tokenizer", None) or FolderTokenizer(self.source.location)
        return dict(zip(texts, self._tokenizer.token_counts(list(texts.values())), strict=True))

    def run_facts(self) -> dict:
        """Where the model came from and how many texts this run encoded: unsigned env facts."""
        return {
            "model_origin": self.source.origin,
            "encoder_backend": f"{self.backend.name} {self.backend.precision}",
            "device": self._device or self.requested_device,
            "texts_encoded": self.encoded_count,
            "cache_vectors_checked": self.checked_count,
            "damaged_cache_rows_reencoded": self._cache.damaged_rows,
        }

    def describe(self) -> dict:
        """Signed content's encoder: id, weights sha256, prompts and length cap if set, backend unless torch fp32."""
        identity = {"id": self.source.model_id, "weights_sha256": self.weights_sha256}
        return {**identity, **self.source.identity(), **self.backend.identity()}
