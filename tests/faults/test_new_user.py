"""Promise: what a new user meets first works: every mode shown, errors that say what to run, options that agree."""

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import LONGMEMEVAL_MISSING, MINI_RELEASE, SHARED_DATA, run
from helpers import LME, LOCOMO, assert_one_line_error, assert_usage_error, export_hashing

from memrecall.reports.proof.fingerprint import report_fingerprint

ROOT = Path(__file__).resolve().parents[2]
LME_SAMPLE = SHARED_DATA / "longmemeval_oracle_sample.json"
LME_TINY = ROOT / "examples" / "data" / "longmemeval_tiny.json"


# --- harness tables and cards show every mode ------------------------------------------------------------------


def harness_report(modes: list[str]) -> dict:
    """A harness report's content with a headline group and an apart group per mode (values tell modes apart)."""

    def row(value: float, n: int) -> dict:
        return {"n": n, "recall@1": {"value": value, "ci_low": value, "ci_high": value}}

    return {
        "content": {
            "primary_stratum": "category",
            "system_order": modes,
            "systems": {
                mode: {
                    "results": {
                        "overall": row(i / 10, 3),
                        "by_category": {"a": row(i / 10, 3)},
                        "apart_by_category": {"a": row(i / 10, 3), "5-adversarial": row(i / 10, 1)},
                    }
                }
                for i, mode in enumerate(modes)
            },
        }
    }


@pytest.mark.parametrize("modes", [["fts5"], ["fts5", "dense"], ["dense", "fts5", "hybrid"], ["a", "b", "c", "d"]])
def test_harness_rows_show_every_mode_with_its_apart_rows(modes):
    from memrecall.reports.exports.tables import harness_rows

    rows = harness_rows(harness_report(modes))
    assert [(m, g) for m, g, _ in rows] == [
        (mode, group) for mode in modes for group in ("overall", "a", "category: 5-adversarial")
    ]
    assert [r["recall@1"]["value"] for m, g, r in rows if g == "overall"] == [i / 10 for i in range(len(modes))]


@pytest.mark.parametrize("name", ["locomo_session", "locomo_turn"])
def test_the_committed_locomo_cards_show_every_mode_of_their_report(name):
    report = json.loads((ROOT / "site" / f"{name}.json").read_text(encoding="utf-8"))
    card = (ROOT / "site" / "figures" / name / "README.md").read_text(encoding="utf-8")
    for mode in report["content"]["system_order"]:
        overall = report["content"]["systems"][mode]["results"]["overall"]
        value = overall[report["content"]["primary_metric"]]
        cell = f"{value['value']:.3f} [{value['ci_low']:.2f}, {value['ci_high']:.2f}]"
        assert f"| {mode} | overall | {cell} |" in card, mode
        assert f"| {mode} | category: 5-adversarial (apart) |" in card, mode


@pytest.mark.slow
def test_the_locomo_table_prints_every_mode(tmp_path, embedding_cache):
    result = run(
        "locomo", "--data", LOCOMO, "--modes", "fts5,dense,hybrid", "--cache-dir", embedding_cache,
        "--output", tmp_path / "l.json",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    lines = [line for line in result.output.splitlines() if "overall" in line]
    assert [line.split("│")[1].strip() for line in lines] == ["fts5", "dense", "hybrid"]


# --- errors say what to do -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "spec, expected",
    [
        ("plug/my_memory.py", "run from plug (or put it on PYTHONPATH) with --system my_memory:Mine"),
        ("plug/my_memory.py:Other", "--system my_memory:Other"),
        ("./my_memory.py", "the current folder is imported from: --system my_memory:ClassName"),
        ("plug\\my_memory.py", "give MODULE:ATTR"),
    ],
)
def test_a_file_path_given_as_system_says_which_module_attr_to_give(tmp_path, monkeypatch, spec, expected):
    (tmp_path / "plug").mkdir()
    (tmp_path / "plug" / "my_memory.py").write_text(
        "class Helper:\n    pass\n\n\nclass Mine:\n    def index(self, d):\n        pass\n\n"
        "    def rank(self, q):\n        return []\n"
    )
    monkeypatch.chdir(tmp_path)
    result = run("run", "epirec", "--system", spec, "--data", MINI_RELEASE, "--output", tmp_path / "r.json")
    assert_usage_error(result, "is a file path; give MODULE:ATTR")
    assert expected in result.output
    assert not (tmp_path / "r.json").exists()


DATA_FILES = {"epirec": MINI_RELEASE, "longmemeval": LME, "locomo": LOCOMO}
COMMANDS = {
    "epirec": ["baseline", "--strategies", "hashing"],
    "longmemeval": ["longmemeval", "--modes", "fts5"],
    "locomo": ["locomo", "--modes", "fts5"],
}
SUGGESTED = {"epirec": "memrecall baseline --data", "longmemeval": "memrecall longmemeval --data"}
SUGGESTED["locomo"] = "memrecall locomo --data"


@pytest.mark.parametrize(
    "command, given", [(c, g) for c in COMMANDS for g in DATA_FILES if c != g], ids=lambda v: str(v)
)
def test_a_dataset_of_another_format_is_named_with_the_command_for_it(tmp_path, command, given):
    result = run(*COMMANDS[command], "--data", DATA_FILES[given], "--quiet", "--output", tmp_path / "r.json")
    assert_one_line_error(result, f"{SUGGESTED[given]} {DATA_FILES[given]}")
    assert "this looks like" in result.output and result.output.count("\n") == 1
    assert not (tmp_path / "r.json").exists()


@pytest.mark.parametrize(
    "benchmark, given", [("locomo", "longmemeval"), ("longmemeval", "locomo"), ("epirec", "locomo")]
)
def test_run_names_a_dataset_of_another_format(tmp_path, benchmark, given):
    result = run("run", benchmark, "--system", "fts5", "--data", DATA_FILES[given], "--output", tmp_path / "r.json")
    assert_one_line_error(result, f"this looks like {'a LoCoMo' if given == 'locomo' else 'a LongMemEval'} file")


@pytest.mark.parametrize("lines", [1, 24])
def test_report_given_a_rankings_or_data_file_says_what_it_is(tmp_path, lines):
    rankings = export_hashing(tmp_path)
    short = tmp_path / "short.jsonl"
    short.write_text("".join(rankings.read_text().splitlines(keepends=True)[:lines]))
    result = run("report", short, "--out", tmp_path / "card")
    assert_one_line_error(result, "this looks like a rankings file, not a memrecall report; use `memrecall evaluate")
    data = run("report", LOCOMO, "--out", tmp_path / "card")
    assert_one_line_error(data, "this looks like a LoCoMo file, not a memrecall report; use `memrecall locomo --data")
    assert not (tmp_path / "card").exists()


def test_validate_outside_a_checkout_names_the_folder_and_root(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for args in ([], ["--root", tmp_path / "elsewhere"]):
        (tmp_path / "elsewhere").mkdir(exist_ok=True)
        result = run("validate", *args)
        folder = tmp_path / "elsewhere" if args else tmp_path
        assert_usage_error(result, f"no EpiRec checkout in {folder.resolve()}")
        assert "give --root PATH/TO/CHECKOUT" in result.output and "violation" not in result.output


def test_two_runs_with_one_name_get_evaluates_own_option(tmp_path):
    rankings = export_hashing(tmp_path)
    twin = tmp_path / "other" / rankings.name
    twin.parent.mkdir()
    twin.write_text(rankings.read_text())
    result = run("evaluate", rankings, "--compare", twin, "--data", MINI_RELEASE, "--output", tmp_path / "r.json")
    assert_usage_error(result, "give the first another name with --name NAME")
    named = run(
        "evaluate", rankings, "--compare", twin, "--name", "mine", "--data", MINI_RELEASE,
        "--output", tmp_path / "r.json",
    )  # fmt: skip
    assert named.exit_code == 0, named.output
    assert json.loads((tmp_path / "r.json").read_text())["content"]["system_order"] == ["mine", "hashing"]
    assert "--names" in run("compare", "--help").output and "--names" not in run("evaluate", "--help").output


@pytest.mark.parametrize("keep", [1, 2, 3])
def test_partial_epirec_rankings_are_one_line_with_the_count_and_the_rule(tmp_path, keep):
    rankings = export_hashing(tmp_path)
    rows = [json.loads(line) for line in rankings.read_text().splitlines()]
    for row in rows:
        row["ranked_episode_ids"] = row["ranked_episode_ids"][:keep]
    bad = tmp_path / "top.jsonl"
    bad.write_text("".join(json.dumps(r) + "\n" for r in rows))
    result = run("evaluate", bad, "--data", MINI_RELEASE, "--output", tmp_path / "r.json")
    store = len(json.loads(rankings.read_text().splitlines()[0])["ranked_episode_ids"])
    assert_one_line_error(
        result,
        f"{len(rows)} ranking(s) leave out documents of their store; epirec-mini needs every document of the store "
        f"ranked, best first (first: line 1: {rows[0]['probe_id']} ranks {keep} of {store} and leaves out "
        f"{store - keep} document(s)",
    )
    assert result.output.count("leave") == 2 and "1 problem(s)" in result.output


# --- options and reports agree ---------------------------------------------------------------------------------


def test_evaluate_and_compare_take_quiet(tmp_path):
    rankings = export_hashing(tmp_path)
    loud = run("evaluate", rankings, "--data", MINI_RELEASE, "--output", tmp_path / "loud.json")
    for command in (
        ["evaluate", rankings, "--data", MINI_RELEASE, "--quiet", "--output", tmp_path / "e.json"],
        ["compare", rankings, rankings, "--names", "a,b", "--data", MINI_RELEASE, "--quiet", "--output",
         tmp_path / "c.json"],
        ["compare", tmp_path / "e.json", tmp_path / "e.json", "--quiet", "--output", tmp_path / "cr.json"],
    ):  # fmt: skip
        result = run(*command)
        assert result.exit_code == 0, result.output
        lines = result.output.splitlines()
        verdict = ["comparison: like-for-like"] if command[1] == tmp_path / "e.json" else []
        assert lines[:-1] == verdict and lines[-1].startswith("report: "), result.output
    assert "recall@3 [95% CI]" in loud.output


def test_compare_weighs_the_encoder_only_when_both_reports_use_one(tmp_path, embedding_cache):
    common = ["--data", LOCOMO, "--quiet", "--cache-dir", embedding_cache]
    for name, modes in (("fts5", "fts5"), ("both", "fts5,dense"), ("dense", "dense")):
        assert run("locomo", *common, "--modes", modes, "--output", tmp_path / f"{name}.json").exit_code == 0
    assert run("run", "locomo", "--system", "fts5", *common, "--output", tmp_path / "run.json").exit_code == 0
    for first, second in (("fts5", "both"), ("both", "fts5"), ("fts5", "run"), ("dense", "run"), ("dense", "both")):
        result = run(
            "compare", tmp_path / f"{first}.json", tmp_path / f"{second}.json", "--output", tmp_path / "c.json"
        )
        assert result.exit_code == 0, (first, second, result.output)
        assert "comparison: like-for-like" in result.output and "encoder" not in result.output


def test_a_baseline_report_compares_like_for_like_with_a_run_of_the_same_release(tmp_path):
    base = ["--data", MINI_RELEASE, "--quiet"]
    assert run("baseline", "--strategies", "hashing,fts5", *base, "--output", tmp_path / "b.json").exit_code == 0
    assert run("run", "epirec", "--system", "fts5", *base, "--output", tmp_path / "r.json").exit_code == 0
    for pair in ((tmp_path / "b.json", tmp_path / "r.json"), (tmp_path / "r.json", tmp_path / "b.json")):
        result = run("compare", *pair, "--output", tmp_path / "c.json")
        assert result.exit_code == 0, result.output
        assert "comparison: like-for-like" in result.output
    v1 = run(
        "compare", ROOT / "site" / "baselines_v2.json", ROOT / "site" / "baselines_v1.json", "--output", tmp_path / "x"
    )
    assert_one_line_error(v1, "not like-for-like: 2 comparability field(s) differ")
    assert "differs: protocol: '2.0' vs '1.0'" in v1.output and "comparability: 'absent'" not in v1.output


@pytest.mark.parametrize(
    "path, protocol, scored",
    [(LME_TINY, "perseus", False), (LME_TINY, "official", False), (LME_SAMPLE, "perseus", True),
     (LME_SAMPLE, "official", True)],
)  # fmt: skip
def test_an_abstention_question_always_has_its_row(tmp_path, path, protocol, scored):
    if not path.exists():
        pytest.skip(LONGMEMEVAL_MISSING)
    result = run(
        "longmemeval", "--data", path, "--protocol", protocol, "--modes", "fts5", "--output", tmp_path / "r.json",
        "--report-dir", tmp_path / "card",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    rows = [line for line in result.output.splitlines() if "abstention: yes" in line]
    card = [line for line in (tmp_path / "card" / "README.md").read_text().splitlines() if "abstention: yes" in line]
    assert len(rows) == 1 and len(card) == 1
    assert rows[0].rstrip(" │").endswith("│ 1") and card[0].endswith("| 1 |")
    assert ("not scored" in rows[0]) is not scored and ("- | - |" in card[0]) is not scored
    results = json.loads((tmp_path / "r.json").read_text())["content"]["systems"]["fts5"]["results"]
    assert results.get("without_targets_by_abstention") == (None if scored else {"yes": 1})


@pytest.mark.parametrize("args", [["--out", "OUT"], [], ["REPORT", "--out", "OUT"], ["--out=OUT", "REPORT"]])
def test_plot_overview_takes_out_alone_or_with_a_report(tmp_path, args):
    report = tmp_path / "b.json"
    assert (
        run("baseline", "--data", MINI_RELEASE, "--strategies", "hashing", "--quiet", "--output", report).exit_code == 0
    )
    values = [a.replace("OUT", str(tmp_path / "card")).replace("REPORT", str(report)) for a in args]
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "plot_overview.py"), *values],
        cwd=tmp_path, capture_output=True, text=True,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    card = (tmp_path / ("card" if args else "results/overview") / "README.md").read_text()
    expected = report if "REPORT" in args or "--out=OUT" in args else ROOT / "site" / "baselines.json"
    fingerprint = report_fingerprint(json.loads(expected.read_text()))
    assert f"| report fingerprint (content sha256) | `{fingerprint}` |" in card


# --- foreign checkouts are checked by the card's rules ------------------------------------------------------------


def plant(release: dict, change) -> dict:
    """The card-format release with `change(episode)` applied to its first episode."""
    change(release["personas"][0]["episodes"][0])
    return release


def _implicit(episode) -> dict:
    return next(p for p in episode["probes"] if p["type"] == "reflective_implicit")


CARD_VIOLATIONS = [
    (lambda e: _implicit(e).update(query="I was so happy."), "p01e01-i: implicit probe uses emotion-vocabulary words"),
    (
        lambda e: _implicit(e).update(query="The lighthouse again."),
        "p01e01-i: implicit probe shares content-word stems",
    ),
    (lambda e: e["probes"].pop(), "p01e01: has 0 reflective_implicit probes, expected exactly 1"),
    (
        lambda e: e["probes"].append(dict(e["probes"][0], id="extra")),
        "p01e01: has 2 factual probes, expected exactly 1",
    ),
    (lambda e: e["probes"][1].update(id=e["probes"][0]["id"]), "duplicate probe id 'p01e01-f'"),
]


@pytest.mark.parametrize("change, expected", CARD_VIOLATIONS)
def test_a_format_only_checkout_is_held_to_the_cards_rules(tmp_path, change, expected):
    from test_upstream_format import card_release, write_card_checkout

    root = write_card_checkout(tmp_path / "upstream", plant(card_release(), change))
    result = run("validate", "--root", root)
    assert result.exit_code == 1, result.output
    violations = [line for line in result.output.splitlines() if line.startswith("violation:")]
    assert len(violations) >= 1 and any(expected in line for line in violations), result.output
    assert "not checked: epirec_v1.json: memrecall's own extra spec rules" in result.output


# --- no registry host is written into the repository --------------------------------------------------------------

HOSTS = re.compile(r"pypi\.org|pythonhosted\.org|registry\.npmjs\.org|deb\.debian\.org")


def repository_files() -> list[Path]:
    """The files git tracks (every file under the root, caches and .venv aside, outside a git checkout)."""
    done = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z"], capture_output=True)
    if done.returncode == 0:
        return [ROOT / name for name in done.stdout.decode().split("\0") if name]
    skip = {".git", ".venv", ".memrecall_cache", "results", "__pycache__"}
    return [p for p in ROOT.rglob("*") if p.is_file() and not skip & set(p.relative_to(ROOT).parts)]


def test_no_package_registry_host_is_written_into_the_repository():
    found = []
    for path in repository_files():
        if path.name.endswith(".lock") or path.suffix in {".png", ".pdf"} or not path.is_file():
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        found += [f"{path.relative_to(ROOT)}: {m.group(0)}" for m in HOSTS.finditer(text)]
    assert found == []
    bootstrap = (ROOT / "scripts" / "bootstrap.sh").read_text()
    assert re.findall(r"https://[^\s\"']+", bootstrap) == ["https://download.pytorch.org/whl/cpu"]
    assert "--index-url" not in bootstrap and '--extra-index-url "$torch_index"' in bootstrap
