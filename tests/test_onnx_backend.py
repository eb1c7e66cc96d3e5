"""The onnx encoder backend: option checks, the cached export (damaged and stale ones redone), identity, no torch."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import MINI_RELEASE, run

from memrecall.encoding.backends import BACKEND_ENV, EncoderBackend, choose_backend
from memrecall.encoding.embeddings import Encoder, resolve_model, weights_sha256
from memrecall.encoding.onnx_export import RECIPE, ensure_export, export_paths, export_problem, file_sha256
from memrecall.errors import ConfigError

SOURCE = resolve_model()
WEIGHTS = weights_sha256(SOURCE.location)


@pytest.mark.parametrize(
    ("backend", "precision", "device", "message"),
    [
        ("torch", "int8", "auto", "--precision int8 needs --encoder-backend onnx"),
        ("onnx", "fp16", "auto", "unknown --precision fp16"),
        ("tensorflow", "fp32", "auto", "unknown encoder backend in --encoder-backend tensorflow"),
        ("onnx", "fp32", "cuda", "--device cuda needs --encoder-backend torch"),
        ("onnx", "int8", "mps", "--device mps needs --encoder-backend torch"),
    ],
)
def test_backend_choices_that_cannot_run_are_one_line_config_errors(backend, precision, device, message):
    with pytest.raises(ConfigError, match=message.replace("-", r"\-")) as caught:
        choose_backend(backend, precision, device)
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize("absent", [("onnxruntime",), ("tokenizers",), ("onnxruntime", "tokenizers")])
def test_onnx_without_its_engine_is_one_line_naming_the_extra_before_any_work(tmp_path, monkeypatch, absent):
    from memrecall.encoding import backends

    real = backends.find_spec
    monkeypatch.setattr(backends, "find_spec", lambda name: None if name in absent else real(name))
    assert choose_backend("torch") == EncoderBackend("torch", "fp32")  # torch needs neither
    output = tmp_path / "out.json"
    result = run("baseline", "--data", MINI_RELEASE, "--output", output, "--encoder-backend", "onnx", "--quiet")
    assert result.exit_code == 1
    assert result.output.strip().splitlines() == [
        f"error: --encoder-backend onnx needs {' and '.join(absent)}, not installed here: pip install 'memrecall[onnx]'"
    ]
    assert not output.exists()


def test_backend_comes_from_the_option_then_the_environment_then_torch(monkeypatch):
    monkeypatch.delenv(BACKEND_ENV, raising=False)
    assert choose_backend() == EncoderBackend("torch", "fp32")
    monkeypatch.setenv(BACKEND_ENV, "onnx")
    assert choose_backend(None, "int8") == EncoderBackend("onnx", "int8")
    assert choose_backend("torch") == EncoderBackend("torch", "fp32")
    monkeypatch.setenv(BACKEND_ENV, "jax")
    with pytest.raises(ConfigError, match=f"{BACKEND_ENV}=jax"):
        choose_backend()


@pytest.mark.parametrize(
    ("backend", "identity", "suffix"),
    [
        (EncoderBackend("torch", "fp32"), {}, ""),
        (EncoderBackend("onnx", "fp32"), {"backend": "onnx", "precision": "fp32"}, "+onnx-fp32-unpadded"),
        (EncoderBackend("onnx", "int8"), {"backend": "onnx", "precision": "int8"}, "+onnx-int8-unpadded"),
    ],
)
def test_identity_and_cache_key_name_the_backend_except_for_torch_fp32(tmp_path, backend, identity, suffix):
    encoder = Encoder(SOURCE, tmp_path, backend=backend)
    assert encoder.describe() == {"id": SOURCE.model_id, "weights_sha256": WEIGHTS, **identity}
    assert encoder.cache_key == f"{SOURCE.model_id}@{WEIGHTS[:16]}{suffix}"


def test_cli_refuses_int8_on_torch_in_one_line_and_writes_nothing(tmp_path):
    output = tmp_path / "out.json"
    result = run("baseline", "--data", MINI_RELEASE, "--output", output, "--precision", "int8", "--quiet")
    assert result.exit_code == 1
    assert result.output.strip().splitlines() == [
        "error: --precision int8 needs --encoder-backend onnx (--encoder-backend torch encodes in fp32 only)"
    ]
    assert not output.exists()


@pytest.mark.parametrize("command", ["baseline", "run", "longmemeval", "locomo"])
def test_every_encoding_command_takes_the_backend_options(command):
    result = run(command, "--help")
    assert result.exit_code == 0
    assert "--encoder-backend [torch|onnx]" in result.output
    assert "--precision [fp32|int8]" in result.output
    assert BACKEND_ENV in result.output


def _copy_exporter(good: Path, calls: list):
    """A stand-in for the torch exporter that copies a known-good export (and counts the calls)."""

    def export(location, out):
        calls.append(location)
        shutil.copyfile(good, out)

    return export


@pytest.mark.slow
def test_cached_export_is_reused_untouched(onnx_cache, monkeypatch):
    calls: list = []
    model_file, _ = export_paths(onnx_cache, SOURCE.model_id, "fp32")
    monkeypatch.setattr("memrecall.encoding.onnx_export.export_fp32", _copy_exporter(model_file, calls))
    before = model_file.stat().st_mtime_ns
    assert ensure_export(onnx_cache, SOURCE.model_id, SOURCE.location, WEIGHTS, "fp32") == model_file
    assert calls == [] and model_file.stat().st_mtime_ns == before


def _damage_bytes(model_file: Path, manifest_file: Path) -> None:
    data = bytearray(model_file.read_bytes())
    data[len(data) // 2] ^= 0xFF
    model_file.write_bytes(bytes(data))


def _truncate(model_file: Path, manifest_file: Path) -> None:
    model_file.write_bytes(model_file.read_bytes()[:1000])


def _delete_model(model_file: Path, manifest_file: Path) -> None:
    model_file.unlink()


def _garble_manifest(model_file: Path, manifest_file: Path) -> None:
    manifest_file.write_text("{not json")


def _delete_manifest(model_file: Path, manifest_file: Path) -> None:
    manifest_file.unlink()


def _other_weights(model_file: Path, manifest_file: Path) -> None:
    manifest = json.loads(manifest_file.read_text())
    manifest_file.write_text(json.dumps({**manifest, "weights_sha256": "0" * 64}))


def _other_recipe(model_file: Path, manifest_file: Path) -> None:
    manifest = json.loads(manifest_file.read_text())
    manifest_file.write_text(json.dumps({**manifest, "recipe": "memrecall-onnx/v0"}))


@pytest.mark.parametrize(
    ("spoil", "problem"),
    [
        (
            _damage_bytes,
            "damaged: sentence-transformers_all-MiniLM-L6-v2.fp32.onnx does not match the sha256 its manifest records",
        ),
        (
            _truncate,
            "damaged: sentence-transformers_all-MiniLM-L6-v2.fp32.onnx does not match the sha256 its manifest records",
        ),
        (_delete_model, "damaged: sentence-transformers_all-MiniLM-L6-v2.fp32.onnx is missing or unreadable"),
        (_garble_manifest, "damaged: its manifest sentence-transformers_all-MiniLM-L6-v2.fp32.json is unreadable"),
        (_delete_manifest, "damaged: its manifest sentence-transformers_all-MiniLM-L6-v2.fp32.json is unreadable"),
        (_other_weights, "stale: it was made from other weights or by another recipe"),
        (_other_recipe, "stale: it was made from other weights or by another recipe"),
    ],
)
def test_damaged_or_stale_export_is_redone_with_a_warning(onnx_cache, tmp_path, monkeypatch, capsys, spoil, problem):
    good, good_manifest = export_paths(onnx_cache, SOURCE.model_id, "fp32")
    model_file, manifest_file = export_paths(tmp_path, SOURCE.model_id, "fp32")
    model_file.parent.mkdir()
    shutil.copyfile(good, model_file)
    shutil.copyfile(good_manifest, manifest_file)
    spoil(model_file, manifest_file)
    assert export_problem(model_file, manifest_file, WEIGHTS) == problem
    calls: list = []
    monkeypatch.setattr("memrecall.encoding.onnx_export.export_fp32", _copy_exporter(good, calls))
    assert ensure_export(tmp_path, SOURCE.model_id, SOURCE.location, WEIGHTS, "fp32") == model_file
    assert calls == [SOURCE.location]
    assert capsys.readouterr().err == f"warning: ONNX export {model_file} is {problem}; exporting it again\n"
    assert export_problem(model_file, manifest_file, WEIGHTS) is None
    manifest = json.loads(manifest_file.read_text())
    assert manifest == {"onnx_sha256": file_sha256(good), "recipe": RECIPE, "weights_sha256": WEIGHTS}
    assert sorted(p.name for p in model_file.parent.iterdir()) == sorted([model_file.name, manifest_file.name])


@pytest.mark.parametrize(
    ("field", "problem"),
    [
        ("source_onnx_sha256", "stale: it was quantized from another fp32 export"),
        (
            "onnx_sha256",
            "damaged: sentence-transformers_all-MiniLM-L6-v2.int8.onnx does not match the sha256 its manifest records",
        ),
    ],
)
def test_int8_export_is_redone_when_damaged_or_quantized_from_another_export(
    onnx_cache, tmp_path, monkeypatch, capsys, field, problem
):
    shutil.copytree(onnx_cache / "onnx", tmp_path / "onnx")
    int8_file, int8_manifest = export_paths(tmp_path, SOURCE.model_id, "int8")
    assert ensure_export(tmp_path, SOURCE.model_id, SOURCE.location, WEIGHTS, "int8") == int8_file
    assert capsys.readouterr().err == ""
    manifest = json.loads(int8_manifest.read_text())
    int8_manifest.write_text(json.dumps({**manifest, field: "f" * 64}))
    calls: list = []
    good = export_paths(onnx_cache, SOURCE.model_id, "int8")[0]
    monkeypatch.setattr(
        "memrecall.encoding.onnx_export.quantize_int8",
        lambda source, out: calls.append(source) or shutil.copyfile(good, out),
    )
    ensure_export(tmp_path, SOURCE.model_id, SOURCE.location, WEIGHTS, "int8")
    assert capsys.readouterr().err == f"warning: ONNX export {int8_file} is {problem}; exporting it again\n"
    assert calls == [export_paths(tmp_path, SOURCE.model_id, "fp32")[0]]
    assert json.loads(int8_manifest.read_text()) == manifest


def test_onnx_needs_a_local_model_folder(tmp_path):
    with pytest.raises(ConfigError, match="needs a local sentence-transformers folder with tokenizer.json"):
        ensure_export(tmp_path, "some/hub-name", "some/hub-name", None, "fp32")


def test_backends_keep_their_vectors_apart_in_one_cache(onnx_cache, tmp_path):
    shutil.copytree(onnx_cache / "onnx", tmp_path / "onnx")
    texts = ["The dentist moved my appointment to Friday.", "I adopted a grey cat."]
    torch_vectors = Encoder(SOURCE, tmp_path).encode(texts)
    onnx = Encoder(SOURCE, tmp_path, backend=EncoderBackend("onnx", "fp32"))
    onnx_vectors = onnx.encode(texts)
    assert onnx.encoded_count == 2
    int8 = Encoder(SOURCE, tmp_path, backend=EncoderBackend("onnx", "int8"))
    int8_vectors = int8.encode(texts)
    assert int8.encoded_count == 2
    assert np.all((torch_vectors * onnx_vectors).sum(1) >= 0.99999)
    assert not np.array_equal(onnx_vectors, int8_vectors)
    import sqlite3

    models = sqlite3.connect(tmp_path / "vectors-v2.sqlite").execute("SELECT model FROM models ORDER BY model")
    key = f"{SOURCE.model_id}@{WEIGHTS[:16]}"
    assert [row[0] for row in models] == [key, f"{key}+onnx-fp32-unpadded", f"{key}+onnx-int8-unpadded"]


NO_TORCH = """
import sys
from memrecall.cli import main
try:
    main(sys.argv[1:], standalone_mode=False)
finally:
    heavy = sorted(m for m in ("torch", "transformers", "sentence_transformers") if m in sys.modules)
    print("HEAVY", heavy, "ORT", "onnxruntime" in sys.modules)
"""


@pytest.mark.parametrize(
    "command",
    [
        ["baseline", "--data", MINI_RELEASE, "--strategies", "recency,dense", "--output", "{out}/b.json"],
        ["run", "epirec", "--system", "dense", "--data", MINI_RELEASE, "--output", "{out}/r.json"],
        [
            "locomo",
            "--data",
            Path(__file__).parent / "fixtures" / "locomo_mini.json",
            "--modes",
            "dense,hybrid",
            "--output",
            "{out}/l.json",
        ],
        [
            "longmemeval",
            "--data",
            Path(__file__).parent / "fixtures" / "lme_format_mini.json",
            "--modes",
            "auto",
            "--output",
            "{out}/m.json",
        ],
    ],
)
def test_onnx_path_encodes_without_importing_torch(onnx_cache, tmp_path, command):
    shutil.copytree(onnx_cache / "onnx", tmp_path / "cache" / "onnx")
    args = [str(a).format(out=tmp_path) for a in command]
    args += ["--cache-dir", str(tmp_path / "cache"), "--encoder-backend", "onnx", "--quiet"]
    done = subprocess.run([sys.executable, "-c", NO_TORCH, *args], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "HEAVY [] ORT True"
    report = json.loads(next(tmp_path.glob("*.json")).read_text())
    identities = list(_encoder_identities(report["content"]))  # signed: the report states its backend
    assert identities and all(i["backend"] == "onnx" and i["precision"] == "fp32" for i in identities)
    assert report["env"]["encoder_backend"] == "onnx fp32"
    assert report["env"]["texts_encoded"] > 0


def _encoder_identities(value):
    """Every encoder identity (a dict with weights_sha256) anywhere in report content."""
    if isinstance(value, dict):
        if "weights_sha256" in value:
            yield value
        for item in value.values():
            yield from _encoder_identities(item)
    elif isinstance(value, list):
        for item in value:
            yield from _encoder_identities(item)


COMMANDS = {
    "baseline": ["baseline", "--data", MINI_RELEASE, "--strategies", "recency,dense"],
    "run": ["run", "epirec", "--system", "hybrid", "--data", MINI_RELEASE],
}


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_compare_says_a_torch_and_an_onnx_report_differ_in_encoder(onnx_cache, tmp_path, embedding_cache, command):
    from memrecall.reports.compare_reports import compare_reports

    shutil.copytree(onnx_cache / "onnx", tmp_path / "cache" / "onnx")
    paths = []
    for backend, cache in (("torch", embedding_cache), ("onnx", tmp_path / "cache")):
        paths.append(tmp_path / f"{backend}.json")
        options = ["--output", paths[-1], "--cache-dir", cache, "--encoder-backend", backend, "--quiet"]
        result = run(*COMMANDS[command], *options)
        assert result.exit_code == 0, result.output
    content = compare_reports(paths)["content"]
    assert content["like_for_like"] is False
    fields = {m["field"]: (m["first"], m["this"]) for m in content["mismatches"]}
    # one rule for both: a baseline's encoder and a run's system claim are the manifest's encoder field
    assert fields == {"encoder.backend": (None, "onnx"), "encoder.precision": (None, "fp32")}
    same = compare_reports([paths[1], paths[1]])["content"]
    assert same["like_for_like"] is True


@pytest.mark.parametrize("load_first", [False, True])
def test_a_local_onnx_encoder_reads_its_tokenizer_once(onnx_cache, tmp_path, monkeypatch, load_first):
    from memrecall.encoding import onnx_encoder

    made = []
    real = onnx_encoder.FolderTokenizer.__init__
    monkeypatch.setattr(onnx_encoder.FolderTokenizer, "__init__", lambda self, loc: made.append(loc) or real(self, loc))
    shutil.copytree(onnx_cache / "onnx", tmp_path / "onnx")
    encoder = Encoder(SOURCE, tmp_path, backend=EncoderBackend("onnx", "fp32"))
    if load_first:
        encoder.load()
    vectors = encoder.encode(["A short one.", "A somewhat longer second text to encode."])
    assert vectors.shape == (2, 384)
    assert made == [SOURCE.location]
