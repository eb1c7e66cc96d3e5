"""Cost per named encoder, side by side in one run: cold and warm texts/s, peak RSS, share of the FP32 peak.

Usage:
  python benchmarks/generate_longmemeval.py --out /tmp/lme_synth_s.json
  python benchmarks/encoder_cost.py --lme /tmp/lme_synth_s.json [--sessions 12] [--encoders minilm,mpnet,...]

The sample is every <= 160-word window (the dense policy's unit) of the first --sessions sessions of a generated
LongMemEval file, encoded as documents (with the encoder's document prompt). Each encoder and engine runs in a
fresh process: cold is process start to the first batch's vectors (imports, loading, hashing the weights, one
batch), then the whole sample once (cold pass) and again (warm pass, model loaded). onnx exports are made
beforehand and are not timed (they are made once and cached). The projected cold `_s` dense run is the cold start
plus 24,000 sessions at the warm sessions/s. FLOPs per token: 2 x the transformer's non-embedding parameters plus
4 x layers x tokens x hidden for attention; static embeddings do no matrix work.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from longmemeval_scale import peak_flops  # noqa: E402

S_SESSIONS = 24_000
ENGINES = (("torch", "fp32"), ("onnx", "fp32"), ("onnx", "int8"))


def transformer_flops(model, tokens_per_text: float) -> float:
    """FLOPs per token of a sentence-transformers model's transformer (0 for static embeddings)."""
    module = model[0]
    inner = getattr(module, "auto_model", None) or getattr(module, "model", None)
    if inner is None or not hasattr(inner, "config"):
        return 0.0
    params = sum(p.numel() for name, p in inner.named_parameters() if "embed" not in name)
    config = inner.config
    return 2.0 * params + 4.0 * config.num_hidden_layers * tokens_per_text * config.hidden_size


def child(name: str, engine: str, precision: str, sample: Path, cache: Path) -> None:
    """Encode the sample twice in this fresh process, printing 'first' at the first vectors, then a JSON line."""
    from memrecall.encoding.backends import EncoderBackend
    from memrecall.encoding.embeddings import Encoder, encode_batch, encoding_batches, text_sha256
    from memrecall.encoding.sources import resolve_model

    encoder = Encoder(resolve_model(name), cache, backend=EncoderBackend(engine, precision))
    prompt = encoder.source.prompt("document")
    texts = {text_sha256(prompt + t): prompt + t for t in json.loads(sample.read_text(encoding="utf-8"))}
    model = encoder.load()
    batches = [[t for _, t in batch] for batch in encoding_batches(texts, tokens=encoder.token_counts(texts))]
    seconds = []
    for round_number in range(2):
        started = time.perf_counter()
        for index, batch in enumerate(batches):
            encode_batch(model, batch)
            if round_number == 0 and index == 0:
                print("first", flush=True)
        seconds.append(time.perf_counter() - started)
    facts = {"cold_pass_s": seconds[0], "warm_pass_s": seconds[1], "texts": len(texts)}
    if engine == "torch":
        tokens = sum(int(count) for count in token_counts(model, list(texts.values())))
        facts |= {"tokens": tokens, "flops_per_token": transformer_flops(model, tokens / len(texts))}
    facts["peak_rss_mb"] = peak_rss_mb()
    print(json.dumps(facts), flush=True)


def peak_rss_mb() -> int:
    """This process's peak resident memory (VmHWM: its own, unlike ru_maxrss, which a child inherits)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) // 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024


def token_counts(model, texts: list[str]) -> list[int]:
    """Tokens the model sees per text (after its truncation), from its own tokenize."""
    counts = []
    for text in texts:
        features = model.preprocess([text]) if hasattr(model, "preprocess") else model.tokenize([text])
        mask = features.get("attention_mask")
        counts.append(int(mask.sum()) if mask is not None else int(len(features["input_ids"])))
    return counts


def measure(name: str, engine: str, precision: str, sample: Path, cache: Path) -> dict:
    """One fresh child process: seconds to first vectors, its JSON facts."""
    command = [sys.executable, __file__, "--child", name, engine, precision, str(sample), str(cache)]
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    first = None
    facts: dict = {}
    for line in process.stdout:
        if line.strip() == "first":
            first = time.perf_counter() - started
        elif line.startswith("{"):
            facts = json.loads(line)
    if process.wait() != 0:
        raise SystemExit(f"{name} {engine} {precision}: the child process failed")
    return {"cold_to_first_vectors_s": first, **facts}


def make_sample(lme: Path, sessions: int, out: Path) -> int:
    """Windows of the first `sessions` sessions, written as a JSON list; how many sessions."""
    from memrecall.benchmarks import get_benchmark
    from memrecall.systems.builtin.windowed import split_windows

    task = get_benchmark("longmemeval").load(lme, max_instances=max(1, sessions // 40 + 1)).task
    documents = [d for store in task.stores.values() for d in store][:sessions]
    out.write_text(json.dumps([w for d in documents for w in split_windows(d.text)]), encoding="utf-8")
    return len(documents)


def covered(name: str) -> bool:
    """True when the onnx backend covers this encoder (its refusal otherwise)."""
    from memrecall.encoding.onnx_encoder import check_pooling
    from memrecall.encoding.sources import resolve_model
    from memrecall.errors import ConfigError

    source = resolve_model(name)
    try:
        check_pooling(Path(source.location))
    except ConfigError:
        return False
    return source.max_seq_length is None


def main() -> None:
    """Measure every encoder and engine; print one JSON object."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lme", type=Path, required=True, help="a generated LongMemEval file")
    parser.add_argument("--sessions", type=int, default=12)
    parser.add_argument("--encoders", default="minilm,mpnet,embeddinggemma,potion-8m")
    args = parser.parse_args()
    peak, how = peak_flops()
    out = {"peak_fp32": how, "runs": {}}
    with tempfile.TemporaryDirectory() as work:
        sample, cache = Path(work) / "sample.json", Path(work) / "cache"
        out["sample_sessions"] = sessions = make_sample(args.lme, args.sessions, sample)
        for name in args.encoders.split(","):
            flops = None
            for engine, precision in ENGINES:
                if engine == "onnx":
                    if not covered(name):
                        continue
                    from memrecall.encoding.encoders import export_for

                    export_for(cache, precision, name)
                run = measure(name, engine, precision, sample, cache)
                flops = run.get("flops_per_token", flops)
                tokens = run.get("tokens") or out["runs"][f"{name} torch fp32"]["tokens"]
                warm = run["warm_pass_s"]
                run |= {
                    "warm_texts_per_s": run["texts"] / warm,
                    "cold_texts_per_s": run["texts"] / run["cold_pass_s"],
                    "share_of_fp32_peak": tokens / warm * (flops or 0.0) / peak,
                    "projected_s_cold_h": (run["cold_to_first_vectors_s"] + S_SESSIONS * warm / sessions) / 3600,
                }
                out["runs"][f"{name} {engine} {precision}"] = run
                print(f"{name} {engine} {precision}: {json.dumps(run)}", file=sys.stderr)
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child(sys.argv[2], sys.argv[3], sys.argv[4], Path(sys.argv[5]), Path(sys.argv[6]))
    else:
        main()
