"""Executors decide where work happens, never what it computes: Ray gives local's rankings and signatures."""

import json
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import FIXTURES, run

from memrecall.encoding.embeddings import encoding_batches, select_device

LME = FIXTURES / "lme_format_mini.json"
ROOT = Path(__file__).resolve().parents[1]


def test_device_selection_prefers_cuda_then_mps_then_cpu():
    assert select_device("auto", cuda_available=False, mps_available=False) == "cpu"
    assert select_device("auto", cuda_available=True, mps_available=True) == "cuda"
    assert select_device("auto", cuda_available=False, mps_available=True) == "mps"
    assert select_device("cpu", cuda_available=True, mps_available=False) == "cpu"
    with pytest.raises(Exception, match="sees no CUDA device"):
        select_device("cuda", cuda_available=False, mps_available=False)
    with pytest.raises(Exception, match="unknown device"):
        select_device("tpu", cuda_available=False, mps_available=False)


def test_encoding_batches_follow_a_fixed_rule_whatever_the_input_order():
    texts = {f"{i:064x}": "word " * (i % 7 + 1) for i in range(150)}
    forward = encoding_batches(dict(texts.items()), size=64)
    backward = encoding_batches(dict(reversed(list(texts.items()))), size=64)
    assert forward == backward
    assert [len(b) for b in forward] == [64, 64, 22]
    lengths = [len(t) for batch in forward for _, t in batch]
    assert lengths == sorted(lengths)


@pytest.mark.parametrize("size", [1, 3, 64])
@pytest.mark.parametrize("seed", range(4))
def test_batches_by_token_count_hold_one_count_each_and_cut_at_size(seed, size):
    rng = random.Random(seed)
    texts = {f"{i:064x}": f"text {i}" for i in range(rng.randrange(1, 200))}
    tokens = {key: rng.randrange(1, 6) for key in texts}
    items = list(texts.items())
    rng.shuffle(items)
    batches = encoding_batches(dict(items), size=size, tokens=tokens)
    assert batches == encoding_batches(texts, size=size, tokens=tokens)  # input order does not matter
    assert sorted(item for batch in batches for item in batch) == sorted(texts.items())
    for batch in batches:
        assert 1 <= len(batch) <= size
        assert len({tokens[key] for key, _ in batch}) == 1
        assert [key for key, _ in batch] == sorted(key for key, _ in batch)
    order = [(tokens[batch[0][0]], batch[0][0]) for batch in batches]
    assert order == sorted(order)
    runs = {count: sum(1 for v in tokens.values() if v == count) for count in set(tokens.values())}
    assert len(batches) == sum(-(-run // size) for run in runs.values())  # fewest batches the rule allows


@pytest.fixture(scope="module")
def ray_cluster():
    import ray

    if not ray.is_initialized():  # an earlier in-process `--executor ray` run may have started it
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    yield
    ray.shutdown()


def _harness(tmp_path, name, data, modes, *extra):
    result = run(
        "longmemeval",
        "--data",
        data,
        "--modes",
        *modes,
        "--quiet",
        "--output",
        tmp_path / f"{name}.json",
        "--export-rankings",
        tmp_path / f"{name}.jsonl",
        "--cache-dir",
        tmp_path / f"cache-{name}",
        *extra,
    )
    assert result.exit_code == 0, result.output
    report = json.loads((tmp_path / f"{name}.json").read_text())
    rankings = {p.name.split(".", 1)[1]: p.read_bytes() for p in tmp_path.glob(f"{name}.*.jsonl")}
    return report, rankings


@pytest.mark.parametrize("workers", ["1", "2"])
@pytest.mark.slow
def test_ray_encodes_and_ranks_the_fixture_exactly_as_local(ray_cluster, tmp_path, workers):
    local, local_rankings = _harness(tmp_path, "local", LME, ["fts5", "dense"])
    ray_report, ray_rankings = _harness(
        tmp_path, "ray", LME, ["fts5", "dense"], "--executor", "ray", "--workers", workers
    )
    assert ray_rankings == local_rankings and len(ray_rankings) == 2
    assert ray_report["content"] == local["content"] and ray_report["content_sha256"] == local["content_sha256"]
    assert ray_report["env"]["executor"] == "ray" and ray_report["env"]["workers"] == int(workers)
    assert ray_report["env"]["texts_encoded"] == local["env"]["texts_encoded"] > 0


@pytest.mark.slow
def test_ray_encodes_on_the_onnx_backend_exactly_as_local(ray_cluster, onnx_cache, tmp_path):
    for name in ("local", "ray"):
        shutil.copytree(onnx_cache / "onnx", tmp_path / f"cache-{name}" / "onnx")
    onnx = ("--encoder-backend", "onnx")
    local, local_rankings = _harness(tmp_path, "local", LME, ["fts5", "dense"], *onnx)
    ray_report, ray_rankings = _harness(
        tmp_path, "ray", LME, ["fts5", "dense"], *onnx, "--executor", "ray", "--workers", "2"
    )
    assert ray_rankings == local_rankings and len(ray_rankings) == 2
    assert ray_report["content_sha256"] == local["content_sha256"]
    assert '"backend": "onnx"' in json.dumps(ray_report["content"])
    assert ray_report["env"]["encoder_backend"] == "onnx fp32"
    assert ray_report["env"]["texts_encoded"] == local["env"]["texts_encoded"] > 0


@pytest.mark.slow
def test_ray_ranks_a_generated_s_shaped_file_exactly_as_local(ray_cluster, tmp_path):
    """50 questions x 48 sessions: local encodes (cold); Ray ranks from a copy of that cache, on 1 and 2 workers.

    Encoding on Ray against local from a cold cache is the fixture test above; this one is about
    ranking the per-question stores in parallel Ray tasks.
    """
    data = tmp_path / "lme_s50.json"
    generate = [sys.executable, str(ROOT / "benchmarks" / "generate_longmemeval.py"), "--out", str(data)]
    sizes = ["--questions", "50", "--sessions", "48", "--turns", "2", "--user-words", "12", "--assistant-words", "20"]
    subprocess.run(generate + sizes, check=True, capture_output=True)
    modes = ["fts5", "dense", "bm25-official"]
    local, local_rankings = _harness(tmp_path, "local", data, modes)
    for workers in ("1", "2"):
        shutil.copytree(tmp_path / "cache-local", tmp_path / f"cache-ray{workers}")
        report, rankings = _harness(tmp_path, f"ray{workers}", data, modes, "--executor", "ray", "--workers", workers)
        assert rankings == local_rankings and len(rankings) == 3
        assert report["content_sha256"] == local["content_sha256"]
        assert report["env"]["texts_encoded"] == 0
    assert local["content"]["task"]["queries"] == 50


@pytest.mark.slow
def test_a_plug_in_system_runs_on_ray_with_the_same_result(ray_cluster, tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    args = [
        "run",
        "locomo",
        "--system",
        "examples.tfidf_system:TfidfSystem",
        "--data",
        FIXTURES / "locomo_mini.json",
        "--quiet",
    ]
    assert run(*args, "--output", tmp_path / "local.json").exit_code == 0
    result = run(*args, "--output", tmp_path / "ray.json", "--executor", "ray", "--workers", "2")
    assert result.exit_code == 0, result.output
    assert (
        json.loads((tmp_path / "ray.json").read_text())["content_sha256"]
        == json.loads((tmp_path / "local.json").read_text())["content_sha256"]
    )


def test_a_crashing_plug_in_on_ray_gives_one_line_naming_the_query_and_its_line(ray_cluster, tmp_path, monkeypatch):
    (tmp_path / "crashy.py").write_text(
        "class Crashes:\n    name = 'crashes'\n    def index(self, documents):\n        pass\n"
        "    def rank(self, query):\n        raise RuntimeError('model server is down')\n"
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    result = run(
        "run",
        "locomo",
        "--system",
        "crashy:Crashes",
        "--data",
        FIXTURES / "locomo_mini.json",
        "--quiet",
        "--output",
        tmp_path / "r.json",
        "--executor",
        "ray",
        "--workers",
        "2",
    )
    assert result.exit_code == 1
    assert "system crashes: rank() on query 'conv-" in result.output
    assert "RuntimeError: model server is down (at " in result.output and "crashy.py:6)" in result.output
    assert "Traceback" not in result.output and not (tmp_path / "r.json").exists()
