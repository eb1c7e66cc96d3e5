"""`memrecall sweep`: each (system, benchmark) through `memrecall run`; failures reported and skipped; summaries."""

from __future__ import annotations

import csv
import io
import json

import pytest
from conftest import FIXTURES, MINI_RELEASE, run

from memrecall.api import run_system
from memrecall.benchmarks import get_benchmark
from memrecall.reports.exports.sweep_summary import _markdown_cell, latex_cell
from memrecall.reports.query_scores import read_scores
from memrecall.systems.builtin.fts5 import Fts5Retriever

LOCOMO = FIXTURES / "locomo_mini.json"


@pytest.fixture(scope="module")
def swept(tmp_path_factory):
    out = tmp_path_factory.mktemp("sweep") / "out"
    broken = out.parent / "broken_lme.json"
    broken.write_text("[1]", encoding="utf-8")
    result = run(
        "sweep",
        "--systems",
        "recency,fts5,no_such_module:System",
        "--benchmarks",
        "epirec,locomo,longmemeval",
        "--data",
        f"epirec={MINI_RELEASE}",
        "--data",
        f"locomo={LOCOMO}",
        "--data",
        f"longmemeval={broken}",
        "--out",
        out,
        "--resamples",
        "200",
    )
    return result, out


def test_every_pair_that_can_run_writes_report_rankings_and_scores(swept):
    result, out = swept
    written = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    expected = [
        f"{b}/{s}.{kind}"
        for b in ("epirec", "locomo")
        for s in ("fts5", "recency")
        for kind in ("rankings.jsonl", "report.json", "scores.jsonl")
    ]
    assert written == sorted([*expected, "summary.csv", "summary.md", "summary.tex"])
    assert result.exit_code == 1
    assert "sweep: 4 of 9 pairs ran" in result.output


def test_failures_are_named_and_do_not_stop_the_rest(swept):
    result, _ = swept
    failed = [line for line in result.output.splitlines() if line.startswith("failed: ")]
    assert len(failed) == 5
    assert "failed: epirec / no_such_module:System: --system no_such_module:System: cannot import" in result.output
    assert "failed: longmemeval / recency: benchmark: " in result.output
    assert "broken_lme.json: record 0: expected an object" in result.output
    assert "Traceback" not in result.output


def test_a_sweep_report_is_the_report_memrecall_run_gives(swept):
    _, out = swept
    report = json.loads((out / "epirec" / "fts5.report.json").read_text())
    direct = run_system(Fts5Retriever(), "epirec", data=MINI_RELEASE, name="fts5", resamples=200)
    assert report["content"] == direct.report["content"]
    assert report["env"]["cost"]["fts5"]["queries"] == report["content"]["task"]["queries"]


def test_scores_hold_ids_and_numbers_only_and_average_to_the_report(swept):
    _, out = swept
    rows = read_scores(out / "locomo" / "fts5.scores.jsonl")
    report = json.loads((out / "locomo" / "fts5.report.json").read_text())
    overall = report["content"]["systems"]["fts5"]["results"]["overall"]
    assert len(rows) == overall["n"]
    assert {tuple(sorted(r)) for r in rows} == {("group", "query_id", "store_id", "values")}
    assert all(r["group"] is None for r in rows)
    assert report["content"]["scoring"]["bootstrap"]["unit"] == "store"  # so each row names its conversation
    stores = {q.id: q.store_id for q in get_benchmark("locomo").load(LOCOMO).task.queries}
    assert {r["query_id"]: r["store_id"] for r in rows} == {r["query_id"]: stores[r["query_id"]] for r in rows}
    for metric in report["content"]["headline_metrics"]:
        assert sum(r["values"][metric] for r in rows) / len(rows) == pytest.approx(overall[metric]["value"])


def test_summary_formats_agree(swept):
    _, out = swept
    table = list(csv.reader(io.StringIO((out / "summary.csv").read_text())))
    assert table[0][:5] == ["benchmark", "system", "status", "group", "metric"]
    groups = {(r[0], r[1], r[3]) for r in table[1:] if r[2] == "ok"}
    assert ("epirec", "fts5", "factual") in groups and ("locomo", "recency", "overall") in groups
    assert len(table) - 1 == (out / "summary.md").read_text().count("\n") - 2
    tex = (out / "summary.tex").read_text()
    assert tex.startswith("\\begin{tabular}") and "reflective\\_explicit" in tex
    assert tex.count("\\\\\n") == len(table)


@pytest.mark.parametrize("text", ["a|b", "<script>", "*x*", "[l](u)", "a\nb", "`c`", "x\\y", "_u_"])
def test_markdown_cells_escape_every_active_character(text):
    cell = _markdown_cell(text)
    assert "\n" not in cell
    unescaped = cell
    for char in "\\`*_{}[]<>|~":
        unescaped = unescaped.replace("\\" + char, "")
    assert not any(char in unescaped for char in "`*_{}[]<>|")


@pytest.mark.parametrize("char", list("\\&%$#_{}~^"))
def test_latex_cells_escape_every_special_character(char):
    cell = latex_cell(f"a{char}b")
    assert cell != f"a{char}b" and cell.startswith("a") and cell.endswith("b")


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["--data", "locomo"], "expected NAME=PATH"),
        (["--data", "locomo=a", "--data", "locomo=b"], "--benchmark-data locomo is given twice"),
        (["--data", "longmemeval=x"], "longmemeval is not in --benchmarks"),
    ],
)
def test_bad_data_options_are_one_line_usage_errors(tmp_path, args, expected):
    result = run("sweep", "--systems", "fts5", "--benchmarks", "epirec,locomo", *args, "--out", tmp_path / "o")
    assert result.exit_code == 2 and expected in result.output and "Traceback" not in result.output
    assert not (tmp_path / "o").exists()


def test_epirec_v1_is_its_own_entry_on_the_bundled_release(tmp_path):
    result = run("sweep", "--systems", "recency", "--benchmarks", "epirec-v1", "--out", tmp_path, "--resamples", "100")
    assert result.exit_code == 0, result.output
    report = json.loads((tmp_path / "epirec-v1" / "recency.report.json").read_text())
    assert report["content"]["task"]["version"] == "1.0"


@pytest.mark.parametrize("shared", [False, True])
@pytest.mark.slow
def test_a_sweep_on_onnx_exports_once_and_every_pair_encodes_on_onnx(tmp_path, monkeypatch, shared):
    from memrecall.cli import sweep as sweep_cli

    made = []
    real = sweep_cli.onnx_cache_seed
    monkeypatch.setattr(
        sweep_cli, "onnx_cache_seed", lambda folder, precision: made.append(precision) or real(folder, precision)
    )
    out = tmp_path / "out"
    data = ["--data", f"epirec={MINI_RELEASE}", "--data", f"locomo={LOCOMO}"]
    result = run(
        "sweep",
        "--systems",
        "dense,fts5",
        "--benchmarks",
        "epirec,locomo",
        *data,
        "--out",
        out,
        "--resamples",
        "100",
        "--encoder-backend",
        "onnx",
        *(["--cache-dir", tmp_path / "shared"] if shared else []),
    )
    assert result.exit_code == 0, result.output
    assert made == ["fp32"]
    if shared:  # each benchmark's shared cache starts as the sweep's export, so no first pair pays for it
        assert sorted(p.name for p in (tmp_path / "shared").iterdir()) == ["epirec", "locomo"]
        assert all((tmp_path / "shared" / b / "onnx").is_dir() for b in ("epirec", "locomo"))
    for entry in ("epirec", "locomo"):
        dense = json.loads((out / entry / "dense.report.json").read_text())
        assert dense["env"]["encoder_backend"] == "onnx fp32"
        assert '"backend": "onnx"' in json.dumps(dense["content"])
        assert dense["env"]["texts_encoded"] > 0
    assert result.output.count("exporting") == 1  # the sweep's own export; each pair gets a copy


def test_a_sweep_passes_no_signing_key_to_its_runs(tmp_path, monkeypatch):
    keys = tmp_path / "keys"
    assert run("keys", "new", "--out", keys).exit_code == 0
    monkeypatch.setenv("MEMRECALL_SIGN_KEY", str(keys / "memrecall.key"))
    out = tmp_path / "out"
    result = run("sweep", "--systems", "recency", "--benchmarks", "epirec", "--data", f"epirec={MINI_RELEASE}",
                 "--out", out, "--resamples", "100")  # fmt: skip
    assert result.exit_code == 0, result.output
    report = json.loads((out / "epirec" / "recency.report.json").read_text(encoding="utf-8"))
    assert "signatures" not in report  # sign afterwards, with `memrecall keys sign`


def test_a_data_file_that_is_not_there_is_refused_before_any_pair_runs(tmp_path):
    result = run(
        "sweep",
        "--systems",
        "recency",
        "--benchmarks",
        "epirec",
        "--data",
        "epirec=/no/such.json",
        "--out",
        tmp_path / "o",
    )
    assert result.exit_code == 2, result.output
    assert "--data /no/such.json does not exist" in result.output
    assert not (tmp_path / "o").exists()
