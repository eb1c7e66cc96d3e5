"""The ONNX export of a local sentence-transformers folder, made once and cached beside the embedding cache.

An export lives in `<cache>/onnx/<model>.<precision>.onnx` with a JSON manifest naming the weights'
sha256 it came from and the file's own sha256. A missing, damaged (hash differs) or stale (other weights
or recipe) export is redone, written to a temp file and renamed into place. Exporting needs torch
(torch.onnx's exporter) and int8 needs onnxruntime.quantization; checking a cached export needs neither.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
from collections.abc import Callable
from pathlib import Path

from memrecall.encoding.vector_cache import warn
from memrecall.errors import ConfigError

RECIPE = (
    "memrecall-onnx/v1: torch.onnx dynamo export of the transformer's last_hidden_state, opset 18; "
    "int8 = onnxruntime quantize_dynamic, QInt8 weights, per channel"
)
OPSET = 18
INPUTS = ("input_ids", "attention_mask", "token_type_ids")


def export_folder(cache_folder: Path) -> Path:
    """Where exports are cached: an `onnx` folder inside the embedding cache folder."""
    return Path(cache_folder) / "onnx"


def export_paths(cache_folder: Path, model_id: str, precision: str) -> tuple[Path, Path]:
    """The model file and its manifest for one model id and precision."""
    slug = re.sub(r"[^A-Za-z0-9._-]+", "_", model_id).strip("._") or "model"
    folder = export_folder(cache_folder)
    return folder / f"{slug}.{precision}.onnx", folder / f"{slug}.{precision}.json"


def file_sha256(path: Path) -> str:
    """Hex sha256 of a file's bytes."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def export_problem(model_file: Path, manifest_file: Path, weights: str, source: str | None = None) -> str | None:
    """Why a cached export can't be used ("missing", "damaged: ...", "stale: ..."), or None when it can."""
    if not model_file.exists() and not manifest_file.exists():
        return "missing"
    try:
        manifest = json.loads(manifest_file.read_text(encoding="utf-8"))
        recorded = manifest["onnx_sha256"]
    except (OSError, ValueError, KeyError, TypeError):
        return f"damaged: its manifest {manifest_file.name} is unreadable"
    if manifest.get("weights_sha256") != weights or manifest.get("recipe") != RECIPE:
        return "stale: it was made from other weights or by another recipe"
    if source is not None and manifest.get("source_onnx_sha256") != source:
        return "stale: it was quantized from another fp32 export"
    try:
        if file_sha256(model_file) != recorded:
            return f"damaged: {model_file.name} does not match the sha256 its manifest records"
    except OSError:
        return f"damaged: {model_file.name} is missing or unreadable"
    return None


def ensure_export(cache_folder: Path, model_id: str, location: str, weights: str | None, precision: str) -> Path:
    """The cached ONNX file for these weights and precision, exported (or quantized) first when needed."""
    if weights is None or not (Path(location) / "tokenizer.json").is_file():
        raise ConfigError(
            f"--encoder-backend onnx needs a local sentence-transformers folder with tokenizer.json; "
            f"{location!r} is not one"
        )
    from memrecall.encoding.onnx_encoder import check_pooling

    check_pooling(Path(location))
    model_file, manifest_file = export_paths(cache_folder, model_id, "fp32")
    problem = export_problem(model_file, manifest_file, weights)
    if problem:
        _redo(problem, model_file, manifest_file, weights, lambda out: export_fp32(location, out), None)
    if precision == "fp32":
        return model_file
    source = json.loads(manifest_file.read_text(encoding="utf-8"))["onnx_sha256"]
    int8_file, int8_manifest = export_paths(cache_folder, model_id, precision)
    problem = export_problem(int8_file, int8_manifest, weights, source)
    if problem:
        _redo(problem, int8_file, int8_manifest, weights, lambda out: quantize_int8(model_file, out), source)
    return int8_file


def _redo(
    problem: str, model_file: Path, manifest_file: Path, weights: str, make: Callable, source: str | None
) -> None:
    """Build the export into a temp file, then rename it and its manifest into place."""
    if problem != "missing":
        warn(f"ONNX export {model_file} is {problem}; exporting it again")
    try:
        model_file.parent.mkdir(parents=True, exist_ok=True)
        handle, temp = tempfile.mkstemp(prefix=f".{model_file.name}.", suffix=".tmp", dir=model_file.parent)
        os.close(handle)
    except OSError as exc:
        raise ConfigError(f"cannot write the ONNX export in {model_file.parent}: {exc.strerror or exc}") from None
    try:
        make(Path(temp))
        manifest = {"recipe": RECIPE, "weights_sha256": weights, "onnx_sha256": file_sha256(Path(temp))}
        if source is not None:
            manifest["source_onnx_sha256"] = source
        _write_atomic(manifest_file, json.dumps(manifest, indent=2, sort_keys=True) + "\n")
        os.chmod(temp, 0o644)
        os.replace(temp, model_file)
    finally:
        Path(temp).unlink(missing_ok=True)


def _write_atomic(path: Path, text: str) -> None:
    """Write a small text file through a temp file and a rename."""
    handle, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    with os.fdopen(handle, "w", encoding="utf-8") as out:
        out.write(text)
    os.chmod(temp, 0o644)
    os.replace(temp, path)


def export_fp32(location: str, out: Path) -> None:
    """Export the folder's transformer (input ids, mask, token types -> last hidden state) with torch.onnx."""
    import contextlib
    import io
    import logging
    import sys
    import warnings

    print(f"exporting {location} to ONNX (once; it is cached beside the embedding cache)", file=sys.stderr)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    import torch
    from transformers import AutoModel
    from transformers.utils import logging as transformers_logging

    transformers_logging.disable_progress_bar()
    model = AutoModel.from_pretrained(location).eval()
    names = model_inputs(model)
    example = tuple(torch.ones((2, 8), dtype=torch.long) for _ in names)
    batch, length = torch.export.Dim("batch"), torch.export.Dim("length")
    shapes = {name: {0: batch, 1: length} for name in names}
    logging.getLogger("torch.onnx").setLevel(logging.ERROR)
    with warnings.catch_warnings(), torch.no_grad(), contextlib.redirect_stdout(io.StringIO()):
        warnings.simplefilter("ignore")
        torch.onnx.export(
            model,
            example,
            str(out),
            dynamo=True,
            input_names=list(names),
            output_names=["last_hidden_state"],
            dynamic_shapes=shapes,
            opset_version=OPSET,
            external_data=False,
            verbose=False,
        )


def model_inputs(model) -> tuple[str, ...]:
    """The leading forward() parameters among INPUTS, in order (BERT takes all three, MPNet no token types)."""
    import inspect

    parameters = list(inspect.signature(model.forward).parameters)
    names = tuple(name for name in INPUTS if name in parameters)
    if parameters[: len(names)] != list(names):
        kind = type(model).__name__
        raise ConfigError(f"--encoder-backend onnx does not cover {kind}: its first inputs are {parameters[:3]}")
    return names


def quantize_int8(fp32_file: Path, out: Path) -> None:
    """ONNX Runtime dynamic quantization: int8 weights per output channel, activations quantized on the fly."""
    import logging

    from onnxruntime.quantization import QuantType, quantize_dynamic

    logging.disable(logging.WARNING)  # its advice to pre-process; symbolic shape inference fails on this graph
    try:
        quantize_dynamic(str(fp32_file), str(out), weight_type=QuantType.QInt8, per_channel=True)
    finally:
        logging.disable(logging.NOTSET)
