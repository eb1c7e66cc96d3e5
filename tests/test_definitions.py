"""Published definitions as options: --unit session (turn rankings scored by session) and --category5."""

from __future__ import annotations

import json

import pytest
from conftest import FIXTURES, run, shared_file

from memrecall.data.granularity import session_rankings, session_task
from memrecall.data.loaders.locomo import load_locomo
from memrecall.data.model import Ranking
from memrecall.errors import ConfigError

MINI = FIXTURES / "locomo_mini.json"


def _content(path) -> dict:
    return json.loads(path.read_text())["content"]


def _fts5(*args):
    """`memrecall run locomo-turn --system fts5` on the mini LoCoMo file, quiet, with more arguments."""
    done = run("run", "locomo-turn", "--system", "fts5", "--data", MINI, "--quiet", *args)
    assert done.exit_code == 0, done.output
    return done


def test_a_turn_ranking_becomes_its_sessions_first_seen_first():
    task = load_locomo(MINI, "turn").task
    turns = Ranking("conv-a:qa2", ("D2:2", "D1:1", "D2:1", "D1:3", "D2:3", "D1:2"), (6, 5, 4, 3, 2, 1))
    converted = session_rankings(task, {"conv-a:qa2": turns})["conv-a:qa2"]
    assert converted.doc_ids == ("session_2", "session_1")
    sessions = session_task(task)
    assert [d.id for d in sessions.stores["conv-b"]] == ["session_1", "session_2", "session_3"]
    gold = {q.id: set(q.targets) for q in sessions.queries}
    assert gold["conv-a:qa2"] == {"session_2"} and gold["conv-a:qa0"] == {"session_1"} and gold["conv-a:qa5"] == set()
    assert sessions.version == "turn->session"


def test_unit_session_scores_what_the_sessions_of_the_turn_rankings_give(tmp_path):
    _fts5(
        "--output",
        tmp_path / "t.json",
        "--export-rankings",
        tmp_path / "turns.jsonl",
    )
    _fts5(
        "--unit",
        "session",
        "--output",
        tmp_path / "s.json",
        "--export-rankings",
        tmp_path / "sessions.jsonl",
    )
    task = load_locomo(MINI, "turn").task
    rows = [json.loads(line) for line in (tmp_path / "turns.jsonl").read_text().splitlines()]
    expected = {}
    for row in rows:
        order = {d: i for i, d in enumerate(row["ranked_ids"])}
        by_turn = sorted((d for d in task.stores[row["store_id"]] if d.id in order), key=lambda d: order[d.id])
        sessions = list(dict.fromkeys(d.labels["session"] for d in by_turn))
        expected[row["query_id"]] = sessions
    scored = [json.loads(line) for line in (tmp_path / "sessions.jsonl").read_text().splitlines()]
    assert {r["query_id"]: r["ranked_ids"] for r in scored} == expected
    content = _content(tmp_path / "s.json")
    assert content["task"]["version"] == "turn->session" and content["dataset"]["unit"] == "session"
    assert content["comparability"]["protocol"] == "turn->session"
    # headline recall@1 by hand: the first session holds a gold turn
    gold = {
        q.id: {d.labels["session"] for s in task.stores.values() for d in s if d.id in q.targets}
        for q in task.queries
        if q.targets and q.strata.get("in_headline") != "no"
    }
    hits = [expected[qid][0] in sessions for qid, sessions in gold.items()]
    assert content["systems"]["fts5"]["results"]["overall"]["recall@1"]["value"] == pytest.approx(sum(hits) / len(hits))
    assert content["systems"]["fts5"]["results"]["overall"]["n"] == len(gold)
    assert "unit" not in _content(tmp_path / "t.json")["dataset"]


def test_a_unit_session_report_replays_from_its_exported_rankings(tmp_path):
    _fts5(
        "--unit",
        "session",
        "--category5",
        "headline",
        "--output",
        tmp_path / "s.json",
        "--export-rankings",
        tmp_path / "fts5.jsonl",
    )
    checked = run("verify", tmp_path / "s.json", "--rankings", tmp_path / "fts5.jsonl", "--data", MINI)
    assert checked.exit_code == 0, checked.output
    assert "scored again give identical content" in checked.output


def test_evaluate_with_unit_session_equals_run_with_it(tmp_path):
    _fts5(
        "--output",
        tmp_path / "t.json",
        "--export-rankings",
        tmp_path / "fts5.jsonl",
    )
    _fts5(
        "--unit",
        "session",
        "--output",
        tmp_path / "r.json",
    )
    done = run(
        "evaluate",
        tmp_path / "fts5.jsonl",
        "--benchmark",
        "locomo-turn",
        "--data",
        MINI,
        "--unit",
        "session",
        "--output",
        tmp_path / "e.json",
    )
    assert done.exit_code == 0, done.output
    ran, evaluated = _content(tmp_path / "r.json"), _content(tmp_path / "e.json")
    assert evaluated["systems"]["fts5"]["results"] == ran["systems"]["fts5"]["results"]
    assert evaluated["comparability"] == ran["comparability"]


@pytest.mark.realdata
@pytest.mark.slow
def test_category5_headline_scores_the_adversarial_questions_with_the_rest():
    from memrecall.api import evaluate_rankings, run_system
    from memrecall.benchmarks import get_benchmark

    real = shared_file("locomo10.json")
    bench = get_benchmark("locomo-turn")
    apart = run_system("fts5", bench, data=real)
    within = run_system("fts5", bench, loaded=bench.load(real, category5="headline"))
    assert apart.metrics["overall"]["n"] == 1536 and apart.metrics["left_out_of_headline"] == {"5-adversarial": 446}
    assert within.metrics["overall"]["n"] == 1982 and "left_out_of_headline" not in within.metrics
    assert within.report["content"]["task"]["version"] == "turn+category5"
    assert within.report["content"]["dataset"]["category5"] == "headline"
    assert "category5" not in apart.report["content"]["dataset"]

    # the same rankings: category 5's own row is the same either way
    def values(row: dict) -> dict:
        return {k: v["value"] if isinstance(v, dict) else v for k, v in row.items()}

    own = values(within.metrics["by_category"]["5-adversarial"])
    assert own == values(apart.metrics["apart_by_category"]["5-adversarial"]) and own["n"] == 446
    again = evaluate_rankings(apart.rows(), bench, loaded=bench.load(real, category5="headline"))
    assert again.metrics["overall"] == within.metrics["overall"]


@pytest.mark.parametrize(
    "args, message",
    [
        (["run", "epirec", "--system", "recency", "--category5", "headline"], "--category5"),
        (
            [
                "run",
                "longmemeval",
                "--system",
                "recency",
                "--data",
                FIXTURES / "lme_format_mini.json",
                "--category5",
                "apart",
            ],
            "--category5",
        ),
        (["run", "locomo", "--system", "recency", "--data", MINI, "--unit", "session"], "names none"),
        (["run", "epirec", "--system", "recency", "--unit", "session"], "names none"),
        (["run", "locomo-turn", "--system", "recency", "--data", MINI, "--unit", "turn"], "--unit"),
        (["run", "locomo-turn", "--system", "recency", "--data", MINI, "--category5", "all"], "--category5"),
    ],
)
def test_a_definition_that_cannot_apply_is_one_line_and_writes_nothing(tmp_path, args, message):
    out = tmp_path / "r.json"
    done = run(*args, "--output", out, "--quiet")
    assert done.exit_code != 0
    assert message in done.output
    lines = [line for line in done.output.splitlines() if line.lower().startswith("error")]
    assert len(lines) == 1, done.output
    assert not out.exists() and list(tmp_path.iterdir()) == []


def test_compare_of_reports_refuses_a_definition(tmp_path):
    for name in ("a", "b"):
        _fts5(
            "--output",
            tmp_path / f"{name}.json",
        )
    done = run(
        "compare", tmp_path / "a.json", tmp_path / "b.json", "--unit", "session", "--output", tmp_path / "c.json"
    )
    assert done.exit_code == 2 and "--unit cannot apply to a compare of reports" in done.output
    assert not (tmp_path / "c.json").exists()


def test_the_unit_view_refuses_documents_without_a_session():
    from memrecall.data.granularity import unit_view

    task = load_locomo(MINI, "session").task
    with pytest.raises(ConfigError, match=r"document 'session_1' of store 'conv-a' \(locomo session\) names none"):
        unit_view(task, {}, "session")
    with pytest.raises(ConfigError, match="unknown unit 'turns'"):
        unit_view(task, {}, "turns")
