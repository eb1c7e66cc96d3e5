"""Docs that can't drift: every command and output quoted in README and docs/ is a block scripts/doc_outputs.py
regenerates from a run or from the code, or a fence whose marker says how it is checked (and every memrecall line in
it parses against the command line as it is now); every fingerprint outside those blocks is a committed report's
(or a bundled release's sha256)."""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import shared_file

from memrecall.data.jsonfile import read_json
from memrecall.reports.rankings_files import report_files

ROOT = Path(__file__).resolve().parents[1]
SPEC = importlib.util.spec_from_file_location("doc_outputs", ROOT / "scripts" / "doc_outputs.py")
doc_outputs = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(doc_outputs)
SIGNATURES = importlib.util.spec_from_file_location("check_signatures", ROOT / "scripts" / "check_signatures.py")
check_signatures = importlib.util.module_from_spec(SIGNATURES)
SIGNATURES.loader.exec_module(check_signatures)
PAGES = [ROOT / n for n in doc_outputs.PAGES]
HEX = re.compile(r"(?<![0-9a-f])([0-9a-f]{12}|[0-9a-f]{40}|[0-9a-f]{64})(?![0-9a-f])")


def committed_digests() -> set[str]:
    """content_sha256 of every committed report (site/*.json, the leaderboard's entries) and each release's sha256."""
    found = set()
    for path in [*ROOT.glob("site/*.json"), *report_files(ROOT / "site" / "leaderboard" / "entries", pattern="*/*")]:
        report = read_json(path)
        if isinstance(report, dict) and "content_sha256" in report:
            found.add(report["content_sha256"])
    sums = (ROOT / "data" / "SHA256SUMS").read_text(encoding="utf-8").split()
    return found | set(sums[0::2])


@pytest.mark.slow
def test_every_command_output_in_the_docs_matches_a_run():
    done = subprocess.run(
        [sys.executable, "scripts/doc_outputs.py", "check"], cwd=ROOT, capture_output=True, text=True, timeout=1800
    )
    assert done.returncode == 0, done.stderr


def test_your_own_data_shows_its_commands_and_fingerprints_as_generated_blocks():
    text = (ROOT / "docs" / "your-own-data.md").read_text(encoding="utf-8")
    commands = [c for c, _ in doc_outputs.blocks(text)]
    assert len(commands) == 6 and all(c.startswith("memrecall ") for c in commands)
    prose = doc_outputs.BLOCK.sub("", text)
    assert "content_sha256" not in prose and ".venv/bin/memrecall" not in prose  # only inside generated blocks
    made: list[str] = []
    for command in commands:  # every file a command reads, a command before it on the page made
        words = command.split()
        positional = words[2 : words.index(next(w for w in words if w.startswith("--")))]
        read = [w for w in positional if w.startswith("results/")]
        assert all(any(r == m or r.startswith(m + "/") for m in made) for r in read), command
        made += [words[i + 1] for i, w in enumerate(words) if w in ("--output", "--export-rankings", "--out")]


def test_a_block_whose_output_was_edited_is_regenerated(tmp_path):
    command = "memrecall run --help | first 2"
    right = doc_outputs.block_text("memrecall run --help", 2, doc_outputs.run_output("memrecall run --help", ROOT))
    page = tmp_path / "page.md"
    page.write_text(f"before\n\n{right}\n\nafter\n", encoding="utf-8")
    assert doc_outputs.page_text(page, tmp_path) == page.read_text(encoding="utf-8")
    assert f"<!-- output: {command} -->\n```\n.venv/bin/memrecall run --help\n```" in right
    page.write_text(page.read_text(encoding="utf-8").replace("Usage", "Usgae"), encoding="utf-8")
    assert doc_outputs.page_text(page, tmp_path) != page.read_text(encoding="utf-8")
    assert doc_outputs.page_text(page, tmp_path) == f"before\n\n{right}\n\nafter\n"


@pytest.mark.parametrize("page", PAGES, ids=[p.relative_to(ROOT).as_posix() for p in PAGES])
def test_every_fingerprint_outside_a_block_is_a_committed_reports(page):
    known = committed_digests()
    prose = doc_outputs.BLOCK.sub("", page.read_text(encoding="utf-8"))
    stale = []
    for match in HEX.finditer(prose):
        digest = match.group(1)
        if len(digest) == 40:
            continue  # a git commit, not a fingerprint
        if not any(k.startswith(digest) for k in known):
            stale.append(digest)
    assert stale == []


@pytest.mark.parametrize("page", PAGES, ids=[p.relative_to(ROOT).as_posix() for p in PAGES])
def test_every_synopsis_is_the_commands_own_options(page):
    text = page.read_text(encoding="utf-8")
    for match in doc_outputs.SYNOPSIS.finditer(text):
        assert match.group(0) == doc_outputs.synopsis_text(match.group(1))


def test_the_mechanism_covers_every_page_it_should():
    assert {"README.md", "README.ko.md", "README.zh-CN.md", "docs/commands.md", "docs/install.md"} <= set(
        doc_outputs.PAGES
    )
    synopses = [m.group(1) for p in PAGES for m in doc_outputs.SYNOPSIS.finditer(p.read_text(encoding="utf-8"))]
    assert {"baseline", "run", "evaluate", "compare", "qrels", "longmemeval", "power"} <= set(synopses)


@pytest.mark.parametrize("page", PAGES, ids=[p.relative_to(ROOT).as_posix() for p in PAGES])
def test_every_quoted_command_or_output_is_generated_or_says_how_it_is_checked(page):
    for marker, body, line in doc_outputs.fences(page.read_text(encoding="utf-8")):
        where = f"{page.relative_to(ROOT)}:{line}"
        assert marker, f"{where}: a quoted command or output with no generated block and no `commands:` marker"
        kind, _, why = marker.partition(";")
        kind, *named = kind.split()
        assert kind in doc_outputs.KINDS, where
        if kind == "parsed":
            assert why.strip(), f"{where}: say why it is only parsed"
        if kind == "test":
            test = ROOT / named[0]
            assert test.is_file(), where
            # a translation's commands are README.md's, verbatim (tests/test_translations.py)
            translated = page.name in (ROOT / "tests" / "test_translations.py").read_text(encoding="utf-8")
            read = {page.name, "README.md"} if translated else {page.name}
            assert any(n in test.read_text(encoding="utf-8") for n in read), f"{where}: {named[0]} does not read it"
        if kind in ("run", "reports"):
            assert all(w[0] == "memrecall" for w in doc_outputs.command_lines(body)), where


@pytest.mark.parametrize("page", PAGES, ids=[p.relative_to(ROOT).as_posix() for p in PAGES])
@pytest.mark.slow
def test_every_quoted_command_is_taken_as_written(page):
    problems = []
    for marker, body, line in doc_outputs.fences(page.read_text(encoding="utf-8")):
        external = (marker or "").startswith("external")
        for words in doc_outputs.command_lines(body):
            if external and not words[0].endswith("memrecall"):
                continue  # another project's command
            problem = doc_outputs.parse_problem(words)
            if problem:
                problems.append(f"{page.relative_to(ROOT)}:{line}: {' '.join(words)}: {problem}")
    assert problems == []


@pytest.mark.parametrize("page", PAGES, ids=[p.relative_to(ROOT).as_posix() for p in PAGES])
def test_every_command_quoted_in_the_prose_is_taken_as_written(page):
    problems = []
    for span in doc_outputs.inline_commands(page.read_text(encoding="utf-8")):
        for words in doc_outputs.command_lines(span):
            problem = doc_outputs.parse_problem(words)
            if problem:
                problems.append(f"{page.relative_to(ROOT)}: `{span}`: {problem}")
    assert problems == []


def test_commands_in_the_prose_are_found_outside_fences_and_blocks():
    page = "Run `memrecall run epirec\n--system dense` or `python scripts/build.py --check`, not `ls`.\n\n"
    page += "```\nmemrecall baseline\n```\n"
    found = doc_outputs.inline_commands(page)
    assert found == ["memrecall run epirec --system dense", "python scripts/build.py --check"]


@pytest.mark.parametrize(
    "command, problem",
    [
        ("memrecall run epirec --system dense --bogus 1", "No such option '--bogus'"),
        ("memrecall run epirec --system dense --executor slurm", "--executor 'slurm' is not one of"),
        ("memrecall baseline --strategies", "Option '--strategies' requires an argument"),
        ("memrecall fly --to moon", "memrecall fly: no such command"),
        ("memrecall keys mint --out keys", "memrecall keys mint: no such command"),
        ("python scripts/no_such_script.py", "no file scripts/no_such_script.py"),
        ("python scripts/leaderboard.py sweep --encoder mpnet", "scripts/leaderboard.py does not take --encoder"),
        ("python -m memrecall.no_such_module x", "no module memrecall.no_such_module"),
    ],
)
def test_a_quoted_command_the_code_would_refuse_is_named(command, problem):
    assert problem in doc_outputs.parse_problem(command.split())


@pytest.mark.parametrize(
    "command", ["memrecall keys new --out keys --key-name lab", "python scripts/leaderboard.py sweep --systems dense"]
)
def test_a_quoted_command_the_code_takes_has_no_problem(command):
    assert doc_outputs.parse_problem(command.split()) is None


def test_an_unmarked_command_fence_is_found_and_a_marked_one_read():
    page = "a\n\n```\nmemrecall baseline\n```\n\n<!-- commands: parsed; slow -->\n"
    page += "```\n$ memrecall run x \\\n  --quiet\n```\n"
    page += "\n```\nn = (z sqrt(psi))^2\n```\n\n```python\nimport memrecall\n```\n"
    found = doc_outputs.fences(page)
    assert [(m, line) for m, _, line in found] == [(None, 3), ("parsed; slow", 8)]
    assert doc_outputs.command_lines(found[1][1]) == [["memrecall", "run", "x", "--quiet"]]


def test_every_command_said_to_write_a_committed_report_is_the_one_check_signatures_runs():
    expected = {output: args for output, args in [*check_signatures.REPORTS, *check_signatures.LOCOMO_REPORTS]}
    seen = []
    for page in PAGES:
        for marker, body, line in doc_outputs.fences(page.read_text(encoding="utf-8")):
            if not (marker or "").startswith("reports"):
                continue
            for words in doc_outputs.command_lines(body):
                args = words[1:]
                output = args[args.index("--output") + 1]
                del args[args.index("--output") : args.index("--output") + 2]
                if "--report-dir" in args:
                    figures = args[args.index("--report-dir") + 1]
                    assert figures == check_signatures.FIGURES[output], (page.name, line, output)
                    del args[args.index("--report-dir") : args.index("--report-dir") + 2]
                if "--data" in args and args[args.index("--data") + 1].endswith("locomo10.json"):
                    given = args[args.index("--data") + 1]
                    assert (ROOT / given).resolve() == check_signatures.LOCOMO.resolve(), (page.name, line)
                    args[args.index("--data") + 1] = str(check_signatures.LOCOMO)
                assert args == expected[output], (page.name, line, output)
                seen.append(output)
    assert sorted(seen) == sorted(expected)  # every committed report's command is on a page


def test_longmemeval_md_figures_are_what_its_script_prints():
    text = (ROOT / "docs" / "longmemeval.md").read_text(encoding="utf-8")
    script = re.search(r"```\npython - <<'PY'\n(.*?)\nPY\n", text, re.S).group(1)
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    rows = [line.split() for line in done.stdout.splitlines()]
    claim = re.search(
        r"LongMemEval table \((\d+) rows,.*?so recall@10 is ([\d.]+) on every row.*?recall@1 from ([\d.]+) "
        r"\(`\w+`\) to ([\d.]+) \(\w+ rows\), MRR@10 from ([\d.]+) to ([\d.]+)\.",
        text,
        re.S,
    )
    count, recall10, low1, high1, low_mrr, high_mrr = claim.groups()
    assert len(rows) == int(count)
    assert {float(r[2]) for r in rows} == {float(recall10)}
    assert (min(float(r[1]) for r in rows), max(float(r[1]) for r in rows)) == (float(low1), float(high1))
    mrr = [float(r[3]) for r in rows]
    assert (f"{min(mrr):.3f}", f"{max(mrr):.3f}") == (low_mrr, high_mrr)


def test_a_run_fence_whose_command_fails_stops_the_build_naming_it(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("<!-- commands: run -->\n```\nmemrecall validate --root examples\n```\n", encoding="utf-8")
    (tmp_path / "examples").mkdir()
    failed = r"(?s)page.md: `memrecall validate --root examples` failed:\n.*\(exit code 2\)"
    with pytest.raises(RuntimeError, match=failed):
        doc_outputs.page_text(page, tmp_path)


def test_a_synopsis_edited_by_hand_is_regenerated_from_the_command(tmp_path):
    right = doc_outputs.synopsis_text("qrels")
    assert "--population headline|all|apart" in right and "--output PATH" in right
    page = tmp_path / "page.md"
    page.write_text(right.replace("--population", "--populace"), encoding="utf-8")
    assert doc_outputs.page_text(page, tmp_path) == right


@pytest.mark.slow
@pytest.mark.realdata
def test_metrics_md_ir_measures_table_is_what_its_commands_give(tmp_path):
    locomo = shared_file("locomo10.json")
    text = (ROOT / "docs" / "metrics.md").read_text(encoding="utf-8")
    body = next(b for _, b, _ in doc_outputs.fences(text) if "ir_measures as m" in b)
    printed = ""
    for words in doc_outputs.command_lines(body):
        words = [w.replace("../shared/data/locomo10.json", str(locomo)) for w in words]
        command = (
            [sys.executable, "-m", "memrecall", *words[1:]] if words[0] == "memrecall" else [sys.executable, *words[1:]]
        )
        done = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=900)
        assert done.returncode == 0, (words, done.stderr)
        printed = done.stdout
    theirs = {m: float(v) for m, v in re.findall(r"(\w+@\d+): ([\d.]+)", printed)}
    ours = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))["content"]["systems"]["fts5"]["results"]
    table = re.findall(r"^\| ([a-z_@\d]+) \| ([\d.]+) \| ([\d.]+) \((\w+@\d+)\) \|$", text, re.M)
    assert len(table) == 4
    for name, shown_ours, shown_theirs, measure in table:
        assert f"{ours['overall'][name]['value']:.4f}" == shown_ours, name
        assert f"{theirs[measure]:.4f}" == shown_theirs, measure
