"""Family: one exit-code rule for every command. 2 when the command line is wrong (an unknown option, a value
that names nothing, options that cannot go together); 1 when the work or the data fails. Every command that
the CLI registers, groups' subcommands included, is walked, so a new command without a case here fails."""

from __future__ import annotations

import click
import pytest
from conftest import FIXTURES, MINI_RELEASE, run
from corpus_factory import persona, write_checkout

from memrecall.cli import main

TRUNCATED = '{"content": {"benchmark": "epirec", "systems": [1, 2,'


def command_paths(group: click.Group = main, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Every runnable command under `group`, as the words that name it (`keys new`)."""
    found = []
    for name, command in sorted(group.commands.items()):
        if isinstance(command, click.Group):
            found.extend(command_paths(command, (*prefix, name)))
        else:
            found.append((*prefix, name))
    return found


@pytest.fixture
def files(tmp_path):
    """Broken inputs of each kind a command reads, and a checkout whose rules file is not JSON."""
    bad = tmp_path / "bad.json"
    bad.write_text(TRUNCATED, encoding="utf-8")
    rankings = tmp_path / "bad.jsonl"
    rankings.write_text('{"persona_id": "t01", "probe_id": "t01e01-f", "ranked_episode_ids": ["t01e01",\n')
    ratings = tmp_path / "ratings.csv"
    ratings.write_text("episode_id,rater,label\n", encoding="utf-8")
    checkout = write_checkout(tmp_path / "ck", [persona(1)])
    (checkout / "data" / "memrecall_rules.json").write_text("releases: all", encoding="utf-8")
    entries = tmp_path / "entries"
    entries.mkdir()
    (entries / "x.report.json").write_text(TRUNCATED, encoding="utf-8")
    key = tmp_path / "k.key"
    assert run("keys", "new", "--out", tmp_path, "--name", "k").exit_code == 0
    return {
        "bad": bad,
        "rankings": rankings,
        "ratings": ratings,
        "checkout": checkout,
        "entries": entries,
        "key": key,
        "out": tmp_path / "out",
    }


# A data (or work) failure of every command: exit 1.
DATA_ERRORS = {
    ("audit",): lambda f: ["--root", f["checkout"]],
    ("baseline",): lambda f: ["--data", f["bad"], "--strategies", "hashing", "--output", f["out"] / "r.json"],
    ("build",): lambda f: ["--root", f["checkout"]],
    ("compare",): lambda f: [f["rankings"], f["rankings"], "--data", MINI_RELEASE],
    ("diff",): lambda f: [f["bad"], f["bad"], "--output", f["out"] / "d.html"],
    ("evaluate",): lambda f: [f["rankings"], "--data", MINI_RELEASE, "--output", f["out"] / "r.json"],
    ("gate",): lambda f: ["--baseline", f["bad"], "--system", "hashing", "--metric", "recall@3", "--margin", "0.02"],
    ("keys", "new"): lambda f: ["--out", f["key"].parent, "--name", "k"],  # keys are never overwritten
    ("keys", "sign"): lambda f: [f["bad"], "--key", f["key"], "--output", f["out"] / "s.json"],
    ("labels", "agree"): lambda f: [f["ratings"], f["ratings"], "--root", f["checkout"], "--out-dir", f["out"]],
    ("labels", "sample"): lambda f: ["--root", f["checkout"], "--output", f["out"] / "s.csv"],
    ("leaderboard",): lambda f: [f["entries"], "--out", f["out"]],
    ("locomo",): lambda f: ["--data", f["bad"], "--output", f["out"] / "r.json"],
    ("longmemeval",): lambda f: ["--data", f["bad"], "--output", f["out"] / "r.json"],
    ("power",): lambda f: [f["bad"]],
    ("qrels",): lambda f: ["epirec", "--out", f["out"] / "q.txt", "--data", f["bad"]],
    ("report",): lambda f: [f["bad"], "--out", f["out"]],
    ("run",): lambda f: ["epirec", "--system", "hashing", "--data", f["bad"], "--output", f["out"] / "r.json"],
    ("sweep",): lambda f: [
        "--systems",
        "hashing",
        "--benchmarks",
        "epirec",
        "--data",
        f"epirec={f['bad']}",
        "--out",
        f["out"],
    ],
    ("validate",): lambda f: ["--root", f["checkout"]],
    ("verify",): lambda f: [f["bad"]],
}

# gate's exit codes are its verdicts (docs/diff-and-gate.md): 1 is a regression seen, so a baseline it cannot
# read is "cannot decide", 2, never 1
DATA_ERROR_EXIT = {("gate",): 2}

# A value that names nothing, or options that cannot go together: exit 2, like click's own usage errors.
NAMED_NOTHING = {
    "baseline --strategies": ("baseline", "--data", MINI_RELEASE, "--strategies", "no-such-strategy"),
    "run BENCHMARK": ("run", "no-such-benchmark", "--system", "hashing"),
    "run --system": ("run", "epirec", "--system", "no-such-system", "--data", MINI_RELEASE),
    "evaluate --benchmark": ("evaluate", MINI_RELEASE, "--benchmark", "no-such-benchmark"),
    "qrels BENCHMARK": ("qrels", "no-such-benchmark", "--out", "q.txt"),
    "sweep --benchmarks": ("sweep", "--systems", "hashing", "--benchmarks", "no-such-benchmark", "--out", "o"),
    "sweep --systems": ("sweep", "--systems", "no-such-system", "--benchmarks", "epirec", "--out", "o"),
    "longmemeval --modes": ("longmemeval", "--data", FIXTURES / "lme_format_mini.json", "--modes", "no-such-mode"),
    "baseline --metrics": ("baseline", "--data", MINI_RELEASE, "--metrics", "no-such-metric"),
}


def test_every_registered_command_has_a_data_error_case():
    assert sorted(DATA_ERRORS) == command_paths()


@pytest.mark.parametrize("path", command_paths(), ids=" ".join)
def test_an_unknown_option_exits_2(path):
    result = run(*path, "--no-such-option")
    assert result.exit_code == 2, result.output
    assert "No such option '--no-such-option'" in result.output


@pytest.mark.parametrize("path", sorted(DATA_ERRORS), ids=" ".join)
def test_a_data_error_exits_1_with_one_line_and_nothing_written(path, files):
    result = run(*path, *DATA_ERRORS[path](files))
    assert result.exit_code == DATA_ERROR_EXIT.get(path, 1), result.output
    assert "Traceback" not in result.output
    if path == ("sweep",):  # a sweep runs every pair it can, then writes a summary naming each failure
        assert "failed: epirec / hashing: benchmark: " in result.output
        return
    errors = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, result.output
    assert not files["out"].exists()


@pytest.mark.parametrize("case", sorted(NAMED_NOTHING))
def test_a_value_that_names_nothing_exits_2(case, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = run(*NAMED_NOTHING[case])
    assert result.exit_code == 2, result.output
    assert "no-such-" in result.output
    assert "Traceback" not in result.output
    assert list(tmp_path.iterdir()) == []
