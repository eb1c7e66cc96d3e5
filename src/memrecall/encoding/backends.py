"""Which engine runs the encoder (torch or ONNX Runtime) and at what precision; torch fp32 is the default."""

from __future__ import annotations

import os
from dataclasses import dataclass
from importlib.util import find_spec

from memrecall.errors import ConfigError

BACKENDS = ("torch", "onnx")
PRECISIONS = ("fp32", "int8")
BACKEND_ENV = "MEMRECALL_ENCODER_BACKEND"
ONNX_ENGINE = ("onnxruntime", "tokenizers")  # what the onnx backend runs on (the export also needs torch)


@dataclass(frozen=True)
class EncoderBackend:
    """An encoder engine and precision; the default (torch, fp32) leaves reports and cache keys as before."""

    name: str = "torch"
    precision: str = "fp32"

    @property
    def is_default(self) -> bool:
        """True for torch fp32, the reference implementation."""
        return (self.name, self.precision) == ("torch", "fp32")

    def identity(self) -> dict:
        """What signed content records about the engine: nothing for the default, else backend and precision."""
        return {} if self.is_default else {"backend": self.name, "precision": self.precision}

    def cache_suffix(self) -> str:
        """Appended to the embedding cache's model key, so vectors of different engines never mix.

        onnx's key also names its batching (texts of one token count, unpadded; see encoding_batches),
        which moves a vector's last bits, so vectors cached under the earlier padded batches are not reused.
        """
        return "" if self.is_default else f"+{self.name}-{self.precision}-unpadded"


def choose_backend(backend: str | None = None, precision: str | None = None, device: str = "auto") -> EncoderBackend:
    """--encoder-backend (else MEMRECALL_ENCODER_BACKEND, else torch) and --precision, checked together."""
    from_env = not backend and bool(os.environ.get(BACKEND_ENV))
    name = backend or os.environ.get(BACKEND_ENV) or "torch"
    where = f"{BACKEND_ENV}={name}" if from_env else f"--encoder-backend {name}"
    if name not in BACKENDS:
        raise ConfigError(f"unknown encoder backend in {where}; choose {' or '.join(BACKENDS)}")
    precision = precision or "fp32"
    if precision not in PRECISIONS:
        raise ConfigError(f"unknown --precision {precision}; choose {' or '.join(PRECISIONS)}")
    if precision == "int8" and name != "onnx":
        raise ConfigError(f"--precision int8 needs --encoder-backend onnx ({where} encodes in fp32 only)")
    if name == "onnx" and device not in ("auto", "cpu"):
        raise ConfigError(f"--device {device} needs --encoder-backend torch: the onnx backend runs on the CPU")
    missing = [m for m in ONNX_ENGINE if name == "onnx" and find_spec(m) is None]
    if missing:
        raise ConfigError(f"{where} needs {' and '.join(missing)}, not installed here: pip install 'memrecall[onnx]'")
    return EncoderBackend(name, precision)
