"""The ONNX Runtime encoder: the folder's tokenizer.json through `tokenizers`, mean pooling, L2 norm; no torch."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from memrecall.errors import ConfigError

DEFAULT_MAX_LENGTH = 512
COUNT_CHUNK = 1024  # texts tokenized at a time to count tokens; holding every encoding at once cost 1.6 GB for 40k


def read_json(path: Path) -> dict:
    """A JSON object from a model folder, {} when the file is absent."""
    if not path.is_file():
        return {}
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ConfigError(f"cannot read {path}: {exc}") from None
    return value if isinstance(value, dict) else {}


def max_seq_length(folder: Path) -> int:
    """sentence_bert_config.json's max_seq_length, capped like sentence-transformers at the position embeddings."""
    configured = read_json(folder / "sentence_bert_config.json").get("max_seq_length")
    if configured is None:
        configured = read_json(folder / "tokenizer_config.json").get("model_max_length", DEFAULT_MAX_LENGTH)
    positions = read_json(folder / "config.json").get("max_position_embeddings")
    return int(min(configured, positions)) if positions else int(configured)


COVERED = ("sentence_transformers.models.Transformer", "sentence_transformers.models.Pooling")
NORMALIZE = "sentence_transformers.models.Normalize"


def check_pooling(folder: Path) -> None:
    """The folder must be a transformer, mean pooling and (optionally) a norm: what this encoder implements."""
    modules = read_json_list(folder / "modules.json")
    types = [str(m.get("type", "")) for m in modules if isinstance(m, dict)]
    kinds = [t.rsplit(".", 1)[-1] for t in types if t != NORMALIZE]
    if types and tuple(t for t in types if t != NORMALIZE) != COVERED:
        raise ConfigError(
            f"--encoder-backend onnx does not cover {folder.name} ({' > '.join(kinds)}; it exports a transformer "
            "with mean pooling only): use --encoder-backend torch"
        )
    pooling = read_json(folder / "1_Pooling" / "config.json")
    if pooling and not pooling.get("pooling_mode_mean_tokens"):
        raise ConfigError(f"--encoder-backend onnx: {folder} does not use mean pooling; use --encoder-backend torch")


def read_json_list(path: Path) -> list:
    """A JSON list from a model folder, [] when the file is absent or not a list."""
    if not path.is_file():
        return []
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ConfigError(f"cannot read {path}: {exc}") from None
    return value if isinstance(value, list) else []


def mean_pool_normalise(hidden: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Masked mean over tokens, then unit length (norms floored at 1e-12, as torch's normalize does)."""
    weights = mask[:, :, None].astype(np.float32)
    pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
    norms = np.linalg.norm(pooled, axis=1, keepdims=True)
    return (pooled / np.maximum(norms, 1e-12)).astype(np.float32)


class FolderTokenizer:
    """The folder's tokenizer.json as sentence-transformers applies it: lower-cased if configured, truncated."""

    def __init__(self, location: str) -> None:
        from tokenizers import Tokenizer

        folder = Path(location)
        self.lower = bool(read_json(folder / "sentence_bert_config.json").get("do_lower_case"))
        try:
            self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        except Exception as exc:  # noqa: BLE001 - any load failure becomes one line
            raise ConfigError(f"cannot load the tokenizer {folder / 'tokenizer.json'}: {str(exc)[:200]}") from None
        padding = self.tokenizer.padding or {}
        self.tokenizer.enable_truncation(max_length=max_seq_length(folder), strategy="longest_first")
        self.counter = Tokenizer.from_str(self.tokenizer.to_str())  # the same, truncated, never padded
        self.counter.no_padding()
        self.tokenizer.enable_padding(pad_id=padding.get("pad_id", 0), pad_token=padding.get("pad_token", "[PAD]"))

    def prepared(self, texts: list[str]) -> list[str]:
        """The texts as the model's tokenizer takes them (lower-cased when the folder says so)."""
        return [t.lower() for t in texts] if self.lower else list(texts)

    def encode(self, texts: list[str]) -> list:
        """One encoding per text, padded to the batch's longest."""
        return self.tokenizer.encode_batch(self.prepared(texts))

    def token_counts(self, texts: list[str]) -> list[int]:
        """How many tokens the model sees for each text (after truncation), in chunks so memory stays flat."""
        counts: list[int] = []
        for start in range(0, len(texts), COUNT_CHUNK):
            counts += [len(e.ids) for e in self.counter.encode_batch(self.prepared(texts[start : start + COUNT_CHUNK]))]
        return counts


class OnnxModel:
    """One ONNX Runtime session and the folder's tokenizer, padding each batch to its longest text."""

    def __init__(self, model_file: Path, location: str, tokenizer: FolderTokenizer | None = None) -> None:
        import onnxruntime

        check_pooling(Path(location))
        self.tokenizer = tokenizer or FolderTokenizer(location)
        options = onnxruntime.SessionOptions()
        options.log_severity_level = 3
        try:
            self.session = onnxruntime.InferenceSession(str(model_file), options, providers=["CPUExecutionProvider"])
        except Exception as exc:  # noqa: BLE001 - any load failure becomes one line
            raise ConfigError(f"cannot load the ONNX export {model_file}: {str(exc)[:200]}") from None
        self.inputs = [item.name for item in self.session.get_inputs()]

    def encode_batch(self, texts: list[str]) -> np.ndarray:
        """One batch as a single forward pass: normalised float32 vectors."""
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        encodings = self.tokenizer.encode(texts)
        arrays = {
            "input_ids": np.array([e.ids for e in encodings], dtype=np.int64),
            "attention_mask": np.array([e.attention_mask for e in encodings], dtype=np.int64),
            "token_type_ids": np.array([e.type_ids for e in encodings], dtype=np.int64),
        }
        (hidden,) = self.session.run(["last_hidden_state"], {name: arrays[name] for name in self.inputs})
        return mean_pool_normalise(hidden, arrays["attention_mask"])
