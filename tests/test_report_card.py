import json
import re

import pytest
from conftest import FIXTURES, MINI_RELEASE, run

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def baseline_card(tmp_path_factory, embedding_cache):
    out = tmp_path_factory.mktemp("card")
    result = run(
        "baseline",
        "--data",
        MINI_RELEASE,
        "--strategies",
        "recency,hashing,fts5",
        "--quiet",
        "--output",
        out / "report.json",
        "--report-dir",
        out / "card",
        "--per-query",
        out / "per_query.jsonl",
        "--export-rankings",
        out / "rk",
        "--cache-dir",
        embedding_cache,
    )
    assert result.exit_code == 0, result.output
    return out


def test_baseline_card_writes_valid_non_trivial_pngs(baseline_card):
    for name in ("recall_by_probe_type.png", "recall_by_intensity_band.png", "recall_by_age_bucket.png"):
        data = (baseline_card / "card" / name).read_bytes()
        assert data.startswith(PNG_MAGIC), name
        assert len(data) > 10_000, name
        assert b"tIME" not in data and b"Software" not in data  # no timestamp or software chunks


def test_markdown_numbers_match_the_report(baseline_card):
    report = json.loads((baseline_card / "report.json").read_text())
    card = (baseline_card / "card" / "README.md").read_text()
    assert report["content_sha256"] in card
    assert report["content"]["task"]["source_sha256"] in card
    for name in ("recency", "hashing", "fts5"):
        by_type = report["content"]["systems"][name]["results"]["by_probe_type"]
        cells = [
            f"{r['recall@3']['value']:.3f} [{r['recall@3']['ci_low']:.2f}, {r['recall@3']['ci_high']:.2f}]"
            for r in (by_type[t] for t in ("factual", "reflective_explicit", "reflective_implicit"))
        ]
        row = next(line for line in card.splitlines() if line.startswith(f"| {name} |") and "[" in line)
        assert row.split(" | ")[1:7:2] == cells
    assert card.count("![") == 3


def test_the_same_report_renders_byte_identical_markdown_and_figures(baseline_card, tmp_path):
    replay = [
        x for name in ("recency", "hashing", "fts5") for x in ("--rankings", baseline_card / "rk" / f"{name}.jsonl")
    ]
    for folder in ("again", "twice"):
        result = run(
            "report",
            baseline_card / "report.json",
            "--out",
            tmp_path / folder,
            "--per-query",
            baseline_card / "per_query.jsonl",
            *replay,
            "--data",
            MINI_RELEASE,
        )
        assert result.exit_code == 0, result.output
    assert (tmp_path / "again" / "README.md").read_bytes() == (tmp_path / "twice" / "README.md").read_bytes()
    assert "Verification: **replayed**" in (tmp_path / "again" / "README.md").read_text()
    for name in ("recall_by_probe_type.png", "recall_by_age_bucket.png"):
        assert (tmp_path / "again" / name).read_bytes() == (baseline_card / "card" / name).read_bytes(), name


def test_harness_card_has_recall_curves(tmp_path):
    result = run(
        "longmemeval",
        "--data",
        FIXTURES / "lme_format_mini.json",
        "--modes",
        "fts5",
        "--quiet",
        "--output",
        tmp_path / "r.json",
        "--report-dir",
        tmp_path / "card",
    )
    assert result.exit_code == 0, result.output
    for name in ("recall_curve.png", "recall_curve_by_question_type.png"):
        data = (tmp_path / "card" / name).read_bytes()
        assert data.startswith(PNG_MAGIC) and len(data) > 10_000
    card = (tmp_path / "card" / "README.md").read_text()
    report = json.loads((tmp_path / "r.json").read_text())
    overall = report["content"]["systems"]["fts5"]["results"]["overall"]["recall@1"]
    assert re.search(rf"\| fts5 \| overall \| {overall['value']:.3f} \[", card)


def test_report_rejects_a_file_that_is_not_a_report(tmp_path):
    path = tmp_path / "x.json"
    path.write_text('{"a": 1}')
    result = run("report", path)
    assert result.exit_code == 1 and "not a memrecall report (no content object)" in result.output


def test_card_lists_the_queries_every_system_missed(baseline_card):
    rows = [json.loads(line) for line in (baseline_card / "per_query.jsonl").read_text().splitlines()]
    assert len(rows) == 3 * 24 and {r["system"] for r in rows} == {"recency", "hashing", "fts5"}
    missed = sorted(
        {r["query_id"] for r in rows if r["hit"]["@3"] is False} - {r["query_id"] for r in rows if r["hit"]["@3"]}
    )
    card = (baseline_card / "card" / "README.md").read_text()
    assert "## Hardest queries" in card
    assert missed == ["t01e01-i"]  # hashing and fts5 rank its episode 4th at best
    assert "1 query was missed by every system" in card
    for query_id in missed:
        assert f"| {query_id} |" in card


def test_the_card_shows_the_detectable_difference_against_the_first_strategy(baseline_card):
    from memrecall.reports.power import detectable_cells, mcnemar_detectable
    from memrecall.scoring.per_query import read_per_query

    report = json.loads((baseline_card / "report.json").read_text())
    card = (baseline_card / "card" / "README.md").read_text()
    header = next(line for line in card.splitlines() if line.startswith("| system | factual |"))
    assert header.split(" | ")[2] == "factual detectable Δ (α .05, power .8)"
    recency = next(line for line in card.splitlines() if line.startswith("| recency |") and "[" in line)
    assert recency.rstrip(" |").split(" | ")[2:9:2] == ["reference"] * 4
    rows = read_per_query(baseline_card / "per_query.jsonl")
    strategies = [(n, report["content"]["systems"][n]["results"]) for n in ("recency", "hashing", "fts5")]
    cells, note = detectable_cells("recall@3", "probe_type", strategies, rows)
    fts5 = next(line for line in card.splitlines() if line.startswith("| fts5 |") and "[" in line)
    groups = ("factual", "reflective_explicit", "reflective_implicit", "overall")
    assert fts5.rstrip(" |").split(" | ")[2:9:2] == [cells[("fts5", g)] for g in groups]
    assert note.startswith("detectable Δ (α .05, power .8): the smallest paired difference from recency")
    assert "the smallest paired difference from recency that these queries detect" in card
    alone, assumed = detectable_cells("recall@3", "probe_type", strategies[:1], None)
    assert "assumed discordance of 0.25" in assumed
    n = strategies[0][1]["overall"]["n"]
    expected = mcnemar_detectable(0.25, n)
    assert alone[("recency", "overall")] == ("-" if expected is None else f"{expected:.3f}")
    missing = detectable_cells("recall@3", "probe_type", strategies, None)
    assert missing == (
        {},
        "detectable Δ (α .05, power .8): needs per-query hits (write the card with --per-query, "
        "or run memrecall power).",
    )
