"""Official release files recognised by their sha256, offline: what a report records as `data.official`."""

from __future__ import annotations

import hashlib
import json
from functools import cache
from importlib import resources
from pathlib import Path

from memrecall.data.jsonfile import file_sha256
from memrecall.data.releases import RELEASES, bundled_release

NOT_OFFICIAL = "not an official release file"


@cache
def published_files() -> tuple[dict, ...]:
    """The official files memrecall knows (official_files.json), each with benchmark, file, variant, sha256."""
    text = resources.files(__package__).joinpath("official_files.json").read_text(encoding="utf-8")
    return tuple(json.loads(text)["files"])


@cache
def bundled_digests() -> dict[str, str]:
    """sha256 -> file name of each EpiRec release installed with memrecall (the releases are their own reference)."""
    return {file_sha256(bundled_release(name)): name for name in RELEASES}


def family(benchmark: str) -> str:
    """The family whose official files apply: epirec, locomo-plus, locomo-audit, locomo, longmemeval, or the name."""
    kinds = ("epirec", "locomo-plus", "locomo-audit", "locomo", "longmemeval")
    return next((f for f in kinds if benchmark.startswith(f)), benchmark)


def official_record(benchmark: str, sha256: str) -> dict:
    """`{"official": {file, variant} | false | null, "sha256": ...}` for a task's source file.

    false: the benchmark has official files and this is none of them. null: memrecall knows no official
    digest for this benchmark (BEIR folders, your own data), so it makes no claim either way.
    """
    kind = family(benchmark)
    if kind == "epirec":
        name = bundled_digests().get(sha256)
        found = {"file": name, "variant": name.removesuffix(".json").replace("epirec_", "")} if name else False
        return {"official": found, "sha256": sha256}
    known = [f for f in published_files() if f["benchmark"] == kind]
    if not known:
        return {"official": None, "sha256": sha256}
    match = next((f for f in known if f["sha256"] == sha256), None)
    return {"official": {"file": match["file"], "variant": match["variant"]} if match else False, "sha256": sha256}


def official_note(data: dict | None) -> str | None:
    """A card's or a table's line for a report's `data` block: the official file's name, the warning, or None."""
    if not isinstance(data, dict) or "official" not in data:
        return None
    official = data["official"]
    if official is False:
        return f"{NOT_OFFICIAL} (sha256 {str(data.get('sha256'))[:12]}...)"
    if isinstance(official, dict):
        return f"official release file {official.get('file')} ({official.get('variant')})"
    return None


def manifest_sha256(root: Path, files: list[Path]) -> str:
    """The digest of a release that is a folder of files: sha256 of its SHA256SUMS text.

    That text is one `<sha256>  <path relative to root>` line per file, sorted by path, each ending in a newline.
    """
    lines = sorted(f"{file_sha256(f)}  {f.relative_to(root).as_posix()}\n" for f in files)
    return hashlib.sha256("".join(lines).encode("utf-8")).hexdigest()
