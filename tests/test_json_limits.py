"""The JSON nesting scan agrees with a plain reference reading on valid JSON cut into any chunks, and `verify`
names a system without an identity memrecall's own only when memrecall registers that name."""

from __future__ import annotations

import json
import random

import pytest
from conftest import MINI_RELEASE, run

from memrecall.data.nesting import DepthScan


def reference_offset(data: bytes, limit: int) -> int | None:
    """The first bracket outside strings that opens level limit + 1, read one byte at a time."""
    depth, inside, escaped = 0, False, False
    for offset, byte in enumerate(data):
        char = chr(byte)
        if inside:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                inside = False
        elif char == '"':
            inside = True
        elif char in "[{":
            depth += 1
            if depth > limit:
                return offset
        elif char in "]}":
            depth -= 1
    return None


def random_json(rng: random.Random, depth: int = 0) -> object:
    """A value with strings full of brackets, quotes and backslashes, nested up to 10 deep."""
    roll = rng.random()
    if depth > 9 or roll < 0.3:
        return rng.choice(['a\\"b[', "{]\\\\", 'x"', "\\", "é[", 1, None])
    if roll < 0.65:
        return [random_json(rng, depth + 1) for _ in range(rng.randint(0, 3))]
    return {rng.choice(["k[", '"{', "\\"]) + str(i): random_json(rng, depth + 1) for i in range(rng.randint(0, 3))}


def scan_in_chunks(data: bytes, limit: int, rng: random.Random) -> int | None:
    scan = DepthScan(limit)
    cuts = sorted(rng.sample(range(len(data) + 1), min(4, len(data) + 1)))
    for start, end in zip([0, *cuts], [*cuts, len(data)], strict=True):
        found = scan.feed(data[start:end])
        if found is not None:
            return found
    return None


@pytest.mark.parametrize("seed", range(5))
def test_the_scan_finds_the_same_bracket_as_the_reference_reading(seed):
    rng = random.Random(seed)
    for _ in range(400):
        data = json.dumps(random_json(rng), ensure_ascii=rng.random() < 0.5).encode("utf-8")
        limit = rng.randint(0, 9)
        assert scan_in_chunks(data, limit, rng) == reference_offset(data, limit), (data, limit)


def test_a_name_without_identity_is_memrecalls_own_only_when_registered(tmp_path):
    from memrecall.reports.proof.fingerprint import FINGERPRINT_KEY, content_sha256

    assert run("baseline", "--data", MINI_RELEASE, "--strategies", "hashing", "--quiet", "--output",
               tmp_path / "b.json").exit_code == 0  # fmt: skip
    report = json.loads((tmp_path / "b.json").read_text())
    content = report["content"]
    content["systems"]["my-own-thing"] = content["systems"].pop("hashing")
    content["system_order"] = ["my-own-thing" if s == "hashing" else s for s in content["system_order"]]
    report[FINGERPRINT_KEY] = content_sha256(content)
    (tmp_path / "renamed.json").write_text(json.dumps(report))
    result = run("verify", tmp_path / "renamed.json")
    lines = [line for line in result.output.splitlines() if line.startswith("code ")]
    assert lines == [
        "code my-own-thing: not known: the report records no identity for 'my-own-thing', and no system of "
        "memrecall's own is registered under that name"
    ]
    assert "memrecall's own code" not in result.output
