"""Family: nothing untrusted exhausts the scorer. Every loader and file format (EpiRec, LongMemEval, LoCoMo,
BEIR, rankings, reports plain and gzip) is crossed with every hostile case (nesting 100,000 deep as arrays and as
objects, a cut-off file, a trailing comma, a lone surrogate, an empty dataset or query text, a gzip bomb). Each variant
runs the real command in a child process under a 1 GiB address-space cap (RLIMIT_AS) and a time limit, and
must end in one `error:` line naming the file and where, exit 1, nothing written, and a peak RSS under the cap.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import FIXTURES, MINI_RELEASE
from helpers import export_hashing

from memrecall.data.limits import GZIP_RATIO_FLOOR, MAX_INPUT_BYTES, MAX_JSON_DEPTH

MEMORY_CAP = 1 << 30  # bytes of address space the child may map
TIME_LIMIT = 120  # seconds; each variant takes about 2 s
HOSTILE_DEPTH = 100_000
SLOT = "@@slot@@"
BEIR = Path(__file__).resolve().parents[2] / "examples" / "data" / "beir_memory"
REPORT = Path(__file__).resolve().parents[2] / "site" / "baselines.json"

CHILD = """
import atexit, os, resource, sys
cap = int(os.environ["LIMIT_AS"])
resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
def peak():  # VmHWM is this image's own high-water mark; ru_maxrss would count the parent it was forked from
    line = next(l for l in open("/proc/self/status") if l.startswith("VmHWM:"))
    open(os.environ["PEAK_FILE"], "w").write(line.split()[1])
atexit.register(peak)
from memrecall.cli import main
main(sys.argv[1:], prog_name="memrecall")
"""


@dataclass(frozen=True)
class Outcome:
    """What a bounded child run of the CLI did."""

    code: int
    stdout: str
    stderr: str
    peak_kib: int


def run_bounded(args: list, cwd: Path) -> Outcome:
    """Run `memrecall ARGS` in a child process capped at MEMORY_CAP bytes of address space and TIME_LIMIT s."""
    peak = cwd / "peak.txt"
    env = {**os.environ, "LIMIT_AS": str(MEMORY_CAP), "PEAK_FILE": str(peak), "OPENBLAS_NUM_THREADS": "1"}
    done = subprocess.run(
        [sys.executable, "-c", CHILD, *map(str, args)],
        capture_output=True,
        text=True,
        timeout=TIME_LIMIT,
        cwd=cwd,
        env=env,
    )
    peak_kib = int(peak.read_text()) if peak.exists() else -1
    peak.unlink(missing_ok=True)
    return Outcome(done.returncode, done.stdout, done.stderr, peak_kib)


def deep_array(depth: int = HOSTILE_DEPTH) -> str:
    return "[" * depth + "]" * depth


def deep_object(depth: int = HOSTILE_DEPTH) -> str:
    return '{"a":' * depth + "1" + "}" * depth


def placed(value: object, path: tuple, text: str) -> str:
    """`value` as JSON text with the value at `path` replaced by raw JSON `text`."""
    target = value
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = SLOT
    return json.dumps(value).replace(json.dumps(SLOT), text)


@dataclass(frozen=True)
class Format:
    """One input format: its valid text, where a hostile value goes, how it is written and the command."""

    name: str
    base: Callable[[Path], str]
    slot: tuple  # JSON path of a value in the (first line of the) file
    jsonl: bool
    write: Callable[[Path, str], Path]
    command: Callable[[Path, Path], list]
    text: tuple | None = None  # JSON path of a text (a query's where the file holds queries)
    query: bool = False  # whether `text` is a query text


def write_file(name: str) -> Callable[[Path, str], Path]:
    def write(folder: Path, text: str) -> Path:
        path = folder / name
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
        return path

    return write


def write_gzip(name: str) -> Callable[[Path, str], Path]:
    """Write the text gzip-compressed (memrecall.io.deflated, as the leaderboard stores its reports)."""

    def write(folder: Path, text: str) -> Path:
        from memrecall.io import deflated

        path = folder / name
        path.write_bytes(deflated(text.encode("utf-8", errors="surrogatepass")))
        return path

    return write


def write_beir(folder: Path, corpus: str) -> Path:
    beir = folder / "beir"
    (beir / "qrels").mkdir(parents=True)
    (beir / "corpus.jsonl").write_text(corpus, encoding="utf-8", errors="surrogatepass")
    for name in ("queries.jsonl", "qrels/test.tsv"):
        (beir / name).write_bytes((BEIR / name).read_bytes())
    return beir


def rankings_text(folder: Path) -> str:
    return export_hashing(folder).read_text(encoding="utf-8")


def harness(name: str, fixture: str, slot: tuple, question: tuple) -> Format:
    """A harness command's format (longmemeval, locomo): one JSON file, fts5 only."""
    return Format(
        name,
        lambda _: (FIXTURES / fixture).read_text(encoding="utf-8"),
        slot,
        False,
        write_file(f"{name}.json"),
        lambda p, out: [name, "--data", p, "--modes", "fts5", "--quiet", "--output", out],
        question,
        True,
    )


FORMATS = {
    f.name: f
    for f in (
        Format(
            "epirec",
            lambda _: MINI_RELEASE.read_text(encoding="utf-8"),
            ("personas", 0, "episodes", 0, "text"),
            False,
            write_file("release.json"),
            lambda p, out: ["baseline", "--data", p, "--strategies", "hashing", "--quiet", "--output", out],
            ("personas", 0, "episodes", 0, "probes", 0, "query"),
            True,
        ),
        harness("longmemeval", "lme_format_mini.json", (0, "haystack_sessions"), (0, "question")),
        harness("locomo", "locomo_mini.json", (0, "conversation"), (0, "qa", 0, "question")),
        Format(
            "beir",
            lambda _: (BEIR / "corpus.jsonl").read_text(encoding="utf-8"),
            ("metadata",),
            True,
            write_beir,
            lambda p, out: ["run", "beir", "--data", p, "--system", "recency", "--quiet", "--output", out],
            ("text",),
            False,
        ),
        Format(
            "rankings",
            rankings_text,
            ("ranked_episode_ids",),
            True,
            write_file("rankings.jsonl"),
            lambda p, out: ["evaluate", p, "--data", MINI_RELEASE, "--output", out],
        ),
        *(
            Format(
                name,
                lambda _: REPORT.read_text(encoding="utf-8"),
                ("content", "strategies"),
                False,
                write(f"x{suffix}"),
                lambda p, out: ["verify", p],
                ("content", "primary_metric"),
            )
            for name, write, suffix in (
                ("report", write_file, ".report.json"),
                ("report-gz", write_gzip, ".report.json.gz"),  # a committed leaderboard entry's report
            )
        ),
    )
}


def with_value(fmt: Format, base: str, path: tuple, text: str) -> str:
    """The format's text with raw JSON `text` at `path` (in its first line for JSON lines)."""
    if not fmt.jsonl:
        return placed(json.loads(base), path, text)
    first, rest = base.split("\n", 1)
    return placed(json.loads(first), path, text) + "\n" + rest


def truncated(base: str) -> str:
    """The text cut two thirds of the way in, inside a value."""
    cut = len(base) * 2 // 3
    while base[cut - 1] in '",:{}[] \n':
        cut -= 1
    return base[:cut]


def trailing_comma(base: str, jsonl: bool) -> str:
    """A comma before the closing bracket of the file (of its first line for JSON lines)."""
    if jsonl:
        first, rest = base.split("\n", 1)
        return first[:-1] + ",}\n" + rest
    body = base.rstrip()
    return body[:-1].rstrip() + ",\n" + body[-1] + "\n"


# Each case: what it does to a format's text, and the words its one error line must hold.
CASES: dict[str, tuple[Callable[[Format, str], str | None], str]] = {
    "100,000-deep arrays": (
        lambda f, b: with_value(f, b, f.slot, deep_array()),
        f"JSON nested more than {MAX_JSON_DEPTH} levels deep",
    ),
    "100,000-deep objects": (
        lambda f, b: with_value(f, b, f.slot, deep_object()),
        f"JSON nested more than {MAX_JSON_DEPTH} levels deep",
    ),
    "cut off": (lambda f, b: truncated(b), "it looks truncated"),
    "trailing comma": (lambda f, b: trailing_comma(b, f.jsonl), "leaves a value missing (a trailing comma)"),
    "lone surrogate in a text": (
        lambda f, b: with_value(f, b, f.text, json.dumps("when was \ud800 that?")),
        "\\ud800",
    ),
    "empty query text": (lambda f, b: with_value(f, b, f.text, '"  "'), "the query text is empty"),
}


@pytest.fixture(scope="module")
def bases(tmp_path_factory) -> dict[str, str]:
    folder = tmp_path_factory.mktemp("bases")
    return {name: fmt.base(folder) for name, fmt in FORMATS.items()}


def assert_refused(outcome: Outcome, where: Path, expected: str, output: Path) -> None:
    """One error line naming the file and holding `expected`, exit 1, nothing written, memory bounded."""
    assert outcome.code == 1, (outcome.code, outcome.stderr[-2000:])
    assert "Traceback" not in outcome.stderr
    errors = [line for line in outcome.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, outcome.stderr[-2000:]
    assert errors[0].startswith(f"error: {where}"), errors[0]
    # a rankings file's problems are listed under its one error line, a count first
    shown = outcome.stderr if " problem(s)" in errors[0] else errors[0]
    assert expected in shown, outcome.stderr[-2000:]
    assert outcome.stdout == ""
    assert not output.exists()
    assert 0 < outcome.peak_kib * 1024 < MEMORY_CAP


VARIANTS = [
    pytest.param(fmt, case, id=f"{fmt}-{case}")
    for fmt in FORMATS
    for case in CASES
    if not (case == "lone surrogate in a text" and FORMATS[fmt].text is None)
    and not (case == "empty query text" and not FORMATS[fmt].query)
]
WHOLE_TASK = ("lone surrogate in a text", "empty query text")  # refused once the task is read, naming the record


@pytest.mark.parametrize(("fmt_name", "case"), VARIANTS)
def test_each_hostile_input_is_one_line_bounded_and_writes_nothing(tmp_path, bases, fmt_name, case):
    fmt = FORMATS[fmt_name]
    change, expected = CASES[case]
    written = fmt.write(tmp_path, change(fmt, bases[fmt_name]))
    named = written / "corpus.jsonl" if fmt_name == "beir" and case not in WHOLE_TASK else written
    output = tmp_path / "out" / "r.json"
    assert_refused(run_bounded(fmt.command(written, output), tmp_path), named, expected, output)


@pytest.mark.parametrize("fmt_name", sorted(FORMATS))
def test_each_unchanged_base_is_accepted(tmp_path, bases, fmt_name):
    fmt = FORMATS[fmt_name]
    written = fmt.write(tmp_path, bases[fmt_name])
    outcome = run_bounded(fmt.command(written, tmp_path / "r.json"), tmp_path)
    assert outcome.code == 0, outcome.stderr[-2000:]


EMPTY_DATASETS = {
    "epirec": lambda b: placed(json.loads(b), ("personas",), "[]"),
    "longmemeval": lambda b: "[]",
    "locomo": lambda b: "[]",
}


@pytest.mark.parametrize("fmt_name", sorted(EMPTY_DATASETS))
def test_an_empty_dataset_is_refused(tmp_path, bases, fmt_name):
    fmt = FORMATS[fmt_name]
    written = fmt.write(tmp_path, EMPTY_DATASETS[fmt_name](bases[fmt_name]))
    output = tmp_path / "out" / "r.json"
    outcome = run_bounded(fmt.command(written, output), tmp_path)
    assert_refused(outcome, written, "", output)
    assert "no questions" in outcome.stderr or "holds no queries" in outcome.stderr or "no " in outcome.stderr


def gzip_member(size: int) -> bytes:
    """One gzip member of `size` zero bytes (compressed about a thousand to one)."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    step = b"\0" * (1 << 24)
    parts = [packer.compress(step) for _ in range(size // len(step))]
    return b"".join([*parts, packer.compress(b"\0" * (size % len(step))), packer.flush()])


BOMBS = {
    "one member, 1 GiB": lambda: gzip_member(1 << 30),
    "200 members of 16 MiB (3.2 GiB)": lambda: gzip_member(1 << 24) * 200,
}
# every gzip input read whole: (file name, the command that reads it)
GZIP_READERS = {
    "rankings": ("rankings.jsonl.gz", lambda p, out: ["evaluate", p, "--data", MINI_RELEASE, "--output", out]),
    "report": ("x.report.json.gz", lambda p, out: ["verify", p]),
}


@pytest.mark.parametrize("reader", sorted(GZIP_READERS))
@pytest.mark.parametrize("bomb", sorted(BOMBS))
@pytest.mark.slow
def test_a_gzip_bomb_is_refused_before_it_is_inflated(tmp_path, bomb, reader):
    name, command = GZIP_READERS[reader]
    path = tmp_path / name
    path.write_bytes(BOMBS[bomb]())
    output = tmp_path / "out" / "r.json"
    outcome = run_bounded(command(path, output), tmp_path)
    assert_refused(outcome, path, "memrecall inflates gzip files to at most", output)
    assert outcome.peak_kib * 1024 < 400 << 20  # stopped at the cap: never near the 1 GiB or more it holds


@pytest.mark.parametrize("reader", sorted(GZIP_READERS))
def test_a_cut_off_gzip_file_is_one_line_naming_it(tmp_path, bases, reader):
    from memrecall.io import deflated

    name, command = GZIP_READERS[reader]
    path = tmp_path / name
    path.write_bytes(deflated(bases[reader].encode("utf-8"))[:-100])
    output = tmp_path / "out" / "r.json"
    assert_refused(run_bounded(command(path, output), tmp_path), path, "is not a readable gzip file", output)


def test_a_gzip_json_file_past_the_inflated_cap_is_refused(tmp_path, monkeypatch):
    """read_json (reports, and every JSON file read whole) caps the inflated bytes as it caps a plain file's."""
    from memrecall.data import compressed
    from memrecall.data.jsonfile import read_json
    from memrecall.errors import DatasetError
    from memrecall.io import deflated

    path = tmp_path / "x.report.json.gz"
    path.write_bytes(deflated(b'{"a": "' + b"b" * 200 + b'"}'))
    assert read_json(path) == {"a": "b" * 200}
    monkeypatch.setattr(compressed, "MAX_INPUT_BYTES", 100)
    with pytest.raises(DatasetError, match=f"^{path}: inflates to more than 100 bytes"):
        read_json(path)


def test_the_gzip_caps_are_the_smaller_of_ratio_and_size(monkeypatch):
    from memrecall.data import compressed
    from memrecall.errors import DatasetError
    from memrecall.io import deflated

    assert compressed.inflation_cap(10) == GZIP_RATIO_FLOOR
    monkeypatch.setattr(compressed, "MAX_INPUT_BYTES", 100)
    assert compressed.inflated("x.gz", deflated(b"a" * 100)) == b"a" * 100
    with pytest.raises(DatasetError, match="inflates to more than 100 bytes"):
        compressed.inflated("x.gz", deflated(b"a" * 101))
    assert compressed.inflated("x.gz", deflated(b"ab") + deflated(b"cd") + b"\0\0") == b"abcd"


def test_an_interrupt_after_the_outputs_landed_says_they_are_complete(tmp_path, monkeypatch):
    from conftest import run

    import memrecall.cli as cli

    calls = []

    def flush_then_interrupt():
        calls.append(1)
        if len(calls) == 2:  # the flush after the batch landed
            raise KeyboardInterrupt

    monkeypatch.setattr(cli, "_flush_stdout", flush_then_interrupt)
    output = tmp_path / "r.json"
    result = run("baseline", "--data", MINI_RELEASE, "--strategies", "hashing", "--quiet", "--output", output)
    assert result.exit_code == 130
    assert "interrupted; the outputs were already complete (1 file(s) written)" in result.output
    assert output.exists()


def test_a_file_whose_write_fails_is_never_announced(tmp_path, monkeypatch):
    from conftest import run

    import memrecall.io as io

    def refuse(path, data):
        raise UnicodeEncodeError("utf-8", "\ud800", 0, 1, "surrogates not allowed")

    monkeypatch.setattr(io, "atomic_write_bytes", refuse)
    output = tmp_path / "r.json"
    result = run("baseline", "--data", MINI_RELEASE, "--strategies", "hashing", "--quiet", "--output", output)
    assert result.exit_code != 0
    assert "report:" not in result.output
    assert not output.exists()


@pytest.mark.parametrize("fmt_name", sorted(set(FORMATS) - {"longmemeval"}))
def test_a_plain_file_past_the_input_cap_is_refused_before_it_is_read(tmp_path, bases, fmt_name):
    """Every format read whole: its valid text followed by zeros to one byte past MAX_INPUT_BYTES (a sparse
    file: no disk), refused from its size before any of it is read. LongMemEval is streamed record by record,
    never held whole, so its size is not capped (its `_m` split is 2.7 GB)."""
    fmt = FORMATS[fmt_name]
    written = fmt.write(tmp_path, bases[fmt_name])
    named = written / "corpus.jsonl" if fmt_name == "beir" else written
    os.truncate(named, MAX_INPUT_BYTES + 1)
    output = tmp_path / "out" / "r.json"
    outcome = run_bounded(fmt.command(written, output), tmp_path)
    assert_refused(outcome, named, f"is {MAX_INPUT_BYTES + 1:,} bytes; memrecall reads input files of at most", output)
    assert outcome.peak_kib * 1024 < 200 << 20  # none of it was read
