"""The embedding cache check in signed content (issue #48 part 3): each encoder claim signs how many vectors its
calls computed at the least, a number fixed by the inputs, the same cold or warm; a report made before the check
says none is recorded, wherever it is read."""

from __future__ import annotations

import json
import math
from pathlib import Path
from types import SimpleNamespace

import pytest
from conftest import run

from memrecall.data.loaders.epirec import load_epirec
from memrecall.encoding.embeddings import Encoder, resolve_model
from memrecall.reports.leaderboard.encoders import RowEncoder
from memrecall.reports.leaderboard.pages import encoder_fact
from memrecall.reports.proof.fingerprint import content_sha256
from memrecall.reports.proof.replay import replay_content

ROOT = Path(__file__).resolve().parents[1]
V1 = ROOT / "data" / "epirec_v1.json"
TINY = ROOT / "examples" / "data" / "locomo_tiny.json"
NONE = "no cache check recorded"


def bound(texts: int) -> int:
    """What one call of `texts` distinct texts computes at the least, written out here as the docs say it."""
    return min(texts, max(32, math.ceil(texts / 100)))


@pytest.mark.slow
def test_a_cold_and_a_warm_run_of_epirec_v1_sign_the_same_content_and_the_bound_of_their_one_call(tmp_path):
    task = load_epirec(V1)
    texts = {d.text for store in task.stores.values() for d in store} | {q.text for q in task.queries}
    args = ["run", "epirec", "--system", "dense", "--data", V1, "--quiet", "--resamples", "100"]
    args += ["--cache-dir", tmp_path / "cache"]
    reports = []
    for name in ("cold", "warm"):
        result = run(*args, "--output", tmp_path / f"{name}.json")
        assert result.exit_code == 0, result.output
        reports.append(json.loads((tmp_path / f"{name}.json").read_text(encoding="utf-8")))
    cold, warm = reports
    assert (cold["env"]["texts_encoded"], cold["env"]["cache_vectors_checked"]) == (len(texts), 0)
    assert (warm["env"]["texts_encoded"], warm["env"]["cache_vectors_checked"]) == (0, 32)
    assert len(texts) == 672 and bound(len(texts)) == 32  # so the warm run computed fewer than the cold one
    assert cold["content"]["systems"]["dense"]["encoder"]["vectors_computed_at_least"] == 32
    assert cold["content_sha256"] == warm["content_sha256"]


CALLS = [[f"call one text {i}" for i in range(5)], [f"call two text {i}" for i in range(40)] * 2]
CALLS.append([f"call three, a longer text number {i} of them" for i in range(150)])
PRIMED = {"cold": [], "part warm": [t for call in CALLS for t in call[::3]], "warm": [t for c in CALLS for t in c]}


@pytest.mark.slow
@pytest.mark.parametrize("state", list(PRIMED))
def test_an_encoder_counts_the_bound_of_each_call_whatever_the_cache_held(tmp_path, state):
    if PRIMED[state]:
        Encoder(resolve_model(), tmp_path).encode(PRIMED[state])
    encoder = Encoder(resolve_model(), tmp_path)
    for call in CALLS:
        encoder.encode(call)
    expected = bound(5) + bound(40) + bound(150)  # the second call repeats its 40 texts: 40 distinct
    assert expected == 5 + 32 + 32
    assert encoder.computed_at_least == expected
    assert encoder.encoded_count + encoder.checked_count >= expected  # what it did compute, fresh or checked
    assert (encoder.encoded_count == 0) == (state == "warm")


def old_variants(report: dict) -> dict[str, dict]:
    """The report as one made before the check (no count), before the rename (dataset.kind), or both; schema 2."""
    content = report["content"]
    bare = {n: {**e, "encoder": {k: v for k, v in e["encoder"].items() if k != "vectors_computed_at_least"}}
            for n, e in content["systems"].items()}  # fmt: skip
    kind = {("kind" if k == "family" else k): v for k, v in content["dataset"].items()}
    variants = {"no count": {"systems": bare}, "dataset.kind": {"dataset": kind}, "both": {"systems": bare}}
    variants["both"]["dataset"] = kind
    out = {}
    for name, changes in variants.items():
        old = {**content, **changes, "report_schema": 2}
        out[name] = {"content": old, "env": report["env"], "content_sha256": content_sha256(old)}
    return out


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tiny")
    result = run("run", "locomo-turn", "--system", "dense", "--data", TINY, "--quiet", "--resamples", "100",
                 "--cache-dir", folder / "cache", "--output", folder / "r.json",
                 "--export-rankings", folder / "rk.jsonl")  # fmt: skip
    assert result.exit_code == 0, result.output
    return folder, json.loads((folder / "r.json").read_text(encoding="utf-8"))


@pytest.mark.slow
def test_a_new_report_signs_the_family_and_the_count_and_says_so(tiny_run):
    folder, report = tiny_run
    content = report["content"]
    assert content["dataset"]["family"] == "locomo" and "kind" not in content["dataset"]
    assert content["systems"]["dense"]["encoder"]["vectors_computed_at_least"] == 13  # 8 turns + 5 questions
    assert "vectors_computed_at_least" not in content["comparability"]["encoder"]  # identity only
    result = run("verify", folder / "r.json")
    assert result.exit_code == 0, result.output
    assert "encoder dense: sentence-transformers/all-MiniLM-L6-v2, at least 13 vector(s) computed" in result.output


@pytest.mark.slow
@pytest.mark.parametrize("variant", ["no count", "dataset.kind", "both"])
def test_an_old_report_is_read_and_says_no_cache_check_is_recorded(tiny_run, tmp_path, variant):
    folder, report = tiny_run
    old = old_variants(report)[variant]
    path = tmp_path / "old.json"
    path.write_text(json.dumps(old), encoding="utf-8")
    counted = variant == "dataset.kind"
    said = "at least 13 vector(s) computed in the run (fresh or re-encoded from the cache)" if counted else NONE
    result = run("verify", path)
    assert result.exit_code == 0, result.output
    assert f"encoder dense: sentence-transformers/all-MiniLM-L6-v2, {said}" in result.output
    assert ("read as an old report shape (dataset.kind)" in result.output) == (variant != "no count")
    card = run("report", path, "--out", tmp_path / "card")
    assert card.exit_code == 0, card.output
    assert said in (tmp_path / "card" / "README.md").read_text(encoding="utf-8")
    entry = SimpleNamespace(encoder=RowEncoder("minilm", True), content=old["content"], system="dense")
    assert encoder_fact(entry).endswith(f" (signed); {said}")
    # the leaderboard's rescore rebuilds content by replay: the new shape, the claim kept as it was
    replayed = replay_content(old, [folder / "rk.jsonl"], TINY)
    assert replayed["dataset"] == report["content"]["dataset"]
    assert replayed["systems"]["dense"]["encoder"] == old["content"]["systems"]["dense"]["encoder"]
