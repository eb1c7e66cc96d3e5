import json

import pytest
from conftest import FIXTURES, LONGMEMEVAL_MISSING, SHARED_DATA, run

from memrecall.data.loaders.longmemeval import load_longmemeval, parse_lme_date
from memrecall.errors import DatasetError
from memrecall.reports.content import verify

MINI = FIXTURES / "lme_format_mini.json"
SAMPLE = SHARED_DATA / "longmemeval_oracle_sample.json"


def test_parse_lme_date_reads_utc():
    moment = parse_lme_date("2023/05/25 (Thu) 20:21")
    assert moment.isoformat() == "2023-05-25T20:21:00+00:00"
    assert parse_lme_date("25 May 2023") is None


def test_perseus_protocol_keeps_both_roles_as_lines():
    task = load_longmemeval(MINI, "perseus")
    assert len(task.queries) == 7 and len(task.stores) == 7
    cat = {d.id: d for d in task.stores["ssu_cat"]}["e_cat"]
    assert cat.text.startswith("user: I adopted a grey cat") and "\nassistant: Congratulations" in cat.text
    strata = {q.id: q.strata for q in task.queries}
    assert strata["ssu_kitchen_abs"] == {"question_type": "single-session-user", "abstention": "yes"}
    assert {q.id: q.targets for q in task.queries}["tr_bike"] == frozenset({"e_bike_buy", "e_bike_race"})


def test_official_protocol_uses_user_turns_and_leaves_out_abstention_and_assistant_evidence():
    task = load_longmemeval(MINI, "official")
    chess = {d.id: d for d in task.stores["ssa_chess"]}["e_chess"]
    assert chess.text == "What openings are good for a beginner at chess?"
    strata = {q.id: q.strata for q in task.queries}
    assert strata["ssu_kitchen_abs"]["left_out_because"] == "abstention"
    # the chess answer is marked in the assistant turn only
    assert strata["ssa_chess"]["left_out_because"] == "no_user_evidence_turn"
    assert "in_headline" not in strata["ssu_cat"]


def test_max_instances_stops_early():
    assert [q.id for q in load_longmemeval(MINI, max_instances=2).queries] == ["ssu_cat", "ssa_chess"]


@pytest.mark.parametrize(
    "mutate, expected",
    [
        (lambda r: r[2].pop("question"), "question ssp_coffee: question: expected a string"),
        (lambda r: r[3]["haystack_dates"].pop(), "question ku_gym: haystack_sessions: 4 ids, 3 dates and 4 sessions"),
        (lambda r: r[1]["answer_session_ids"].append("nope"), "question ssa_chess: answer_session_ids: 'nope'"),
        (lambda r: r[0].__setitem__("question_date", "yesterday"), "question ssu_cat: question_date: cannot parse"),
        (lambda r: r[4]["haystack_sessions"][1][0].pop("content"), "question tr_bike: haystack_sessions[1][0]"),
        (lambda r: r[5]["haystack_dates"].__setitem__(2, "May 5"), "question ms_books: haystack_dates[2]"),
        (lambda r: r[6].__setitem__("question_id", "ssu_cat"), "question ssu_cat: question_id appears twice"),
    ],
)
def test_malformed_records_name_question_and_field(tmp_path, mutate, expected):
    records = json.loads(MINI.read_text())
    mutate(records)
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(records))
    with pytest.raises(DatasetError) as caught:
        load_longmemeval(path)
    assert expected in str(caught.value)


def test_truncated_json_is_a_dataset_error(tmp_path):
    path = tmp_path / "cut.json"
    path.write_text(MINI.read_text()[:500])
    with pytest.raises(DatasetError, match="invalid JSON"):
        load_longmemeval(path)


@pytest.mark.skipif(not SAMPLE.exists(), reason=LONGMEMEVAL_MISSING)
def test_reads_the_real_oracle_sample():
    task = load_longmemeval(SAMPLE)
    assert [q.id for q in task.queries] == ["6a1eabeb", "gpt4_70e84552_abs"]
    first = task.queries[0]
    assert first.targets == frozenset({"answer_a25d4a91_1", "answer_a25d4a91_2"})
    assert first.strata["question_type"] == "knowledge-update"
    assert first.time.isoformat() == "2023-06-01T00:58:00+00:00"
    official = load_longmemeval(SAMPLE, "official")
    assert official.queries[1].strata["left_out_because"] == "abstention"
    assert "in_headline" not in official.queries[0].strata


@pytest.fixture(scope="module")
def harness_run(tmp_path_factory, embedding_cache):
    out = tmp_path_factory.mktemp("lme")
    result = run(
        "longmemeval",
        "--data",
        MINI,
        "--output",
        out / "report.json",
        "--export-rankings",
        out / "rk.jsonl",
        "--coverage-k",
        "4",
        "--cache-dir",
        embedding_cache,
        "--quiet",
    )
    assert result.exit_code == 0, result.output
    return out, json.loads((out / "report.json").read_text())


@pytest.mark.slow
def test_harness_report_is_signed_and_has_every_mode_and_question_type(harness_run):
    _, report = harness_run
    assert verify(report)
    content = report["content"]
    assert content["system_order"] == ["fts5", "dense", "hybrid"]
    assert content["dataset"]["protocol"] == "perseus"
    fts5 = content["systems"]["fts5"]["results"]
    assert fts5["overall"]["n"] == 7
    assert sorted(fts5["by_question_type"]) == [
        "knowledge-update",
        "multi-session",
        "single-session-assistant",
        "single-session-preference",
        "single-session-user",
        "temporal-reasoning",
    ]
    assert fts5["apart_by_abstention"]["yes"]["n"] == 1
    # 4-session haystacks: every gold session is inside the top 4
    assert fts5["overall"]["recall_all@5"]["value"] == 1.0
    assert fts5["by_question_type"]["single-session-user"]["recall@1"]["value"] == 1.0
    assert "ndcg_lme@10" in fts5["overall"]


def test_coverage_and_token_efficiency(harness_run):
    _, report = harness_run
    mode = report["content"]["systems"]["fts5"]
    assert mode["coverage"]["any"]["4"] == 1.0 and mode["coverage"]["all"]["4"] == 1.0
    assert mode["coverage"]["misses"]["1"]["any"]["hard"] == 0
    efficiency = mode["token_efficiency"]
    assert efficiency["full_store"]["documents"] == 4.0
    assert efficiency["top_k"]["1"]["documents"] == 1.0
    assert efficiency["top_k"]["10"]["full_over_top_k"] == 1.0


def test_exported_rankings_replay_through_evaluate(harness_run, tmp_path):
    out, report = harness_run
    result = run(
        "evaluate", out / "rk.fts5.jsonl", "--dataset", "longmemeval", "--data", MINI, "--output", tmp_path / "e.json"
    )
    assert result.exit_code == 0, result.output
    replayed = json.loads((tmp_path / "e.json").read_text())["content"]["systems"]["rk.fts5"]["results"]
    original = report["content"]["systems"]["fts5"]["results"]
    assert replayed == original  # one scoring policy per benchmark: the same metrics, groups and numbers
    assert replayed["by_question_type"] == {
        k: {m: v for m, v in row.items() if m in replayed["by_question_type"][k]}
        for k, row in original["by_question_type"].items()
    }


def test_min_coverage_floor_fails_the_run(tmp_path, embedding_cache):
    ok = run(
        "longmemeval",
        "--data",
        MINI,
        "--modes",
        "fts5",
        "--min-coverage-at",
        "4:1.0",
        "--output",
        tmp_path / "a.json",
        "--quiet",
    )
    assert ok.exit_code == 0, ok.output
    failed = run(
        "longmemeval",
        "--data",
        MINI,
        "--modes",
        "fts5",
        "--min-coverage-at",
        "1:0.99",
        "--output",
        tmp_path / "b.json",
        "--quiet",
    )
    assert failed.exit_code == 1
    assert "fts5: coverage@1 = 0.571 is below 0.990" in failed.output


@pytest.mark.slow
def test_same_data_and_options_give_a_byte_identical_report_content(harness_run, tmp_path, embedding_cache):
    _, first = harness_run
    again = run(
        "longmemeval",
        "--data",
        MINI,
        "--output",
        tmp_path / "r.json",
        "--coverage-k",
        "4",
        "--cache-dir",
        embedding_cache,
        "--quiet",
    )
    assert again.exit_code == 0
    assert json.loads((tmp_path / "r.json").read_text())["content_sha256"] == first["content_sha256"]


def test_bad_mode_is_one_clear_line(tmp_path):
    result = run("longmemeval", "--data", MINI, "--modes", "fts5,bm99", "--output", tmp_path / "x.json")
    assert result.exit_code == 2 and "unknown mode 'bm99'" in result.output


def test_official_protocol_headline_is_recall_all(tmp_path):
    result = run(
        "longmemeval",
        "--data",
        MINI,
        "--protocol",
        "official",
        "--modes",
        "fts5",
        "--output",
        tmp_path / "o.json",
        "--quiet",
    )
    assert result.exit_code == 0
    content = json.loads((tmp_path / "o.json").read_text())["content"]
    assert content["primary_metric"] == "recall_all@1"
    results = content["systems"]["fts5"]["results"]
    assert results["left_out_of_headline"] == {"abstention": 1, "no_user_evidence_turn": 1}
    assert results["overall"]["n"] == 5


def test_modes_accept_space_separated_names(tmp_path):
    result = run(
        "longmemeval",
        "--data",
        MINI,
        "--modes",
        "fts5",
        "hybrid",
        "--k",
        "1,3",
        "--output",
        tmp_path / "r.json",
        "--quiet",
        "--cache-dir",
        tmp_path / "cache",
    )
    assert result.exit_code == 0, result.output
    assert json.loads((tmp_path / "r.json").read_text())["content"]["system_order"] == ["fts5", "hybrid"]


@pytest.mark.parametrize(("protocol", "after"), [("perseus", "recall@3"), ("official", "recall_all@1")])
def test_tables_lead_with_recall_at_1_and_mrr_where_recall_at_10_saturates(tmp_path, protocol, after):
    result = run(
        "longmemeval", "--data", MINI, "--modes", "fts5", "--protocol", protocol, "--output", tmp_path / "r.json"
    )
    assert result.exit_code == 0, result.output
    header = next(line for line in result.output.splitlines() if "recall@1" in line and "mode" in line)
    columns = [cell.strip().split(" [")[0] for cell in header.strip("┃ ").split("┃")]
    assert columns[:5] == ["mode", "group", "recall@1", "mrr@10", after]


def test_other_benchmarks_keep_their_headline_first():
    from memrecall.reports.exports.tables import lead_columns

    content = {"benchmark": "locomo", "scoring": {"metrics": ["recall@1", "recall@3", "mrr@10"]}}
    assert lead_columns(content, ["recall@3", "recall@1", "mrr@10"]) == ["recall@3", "recall@1", "mrr@10"]
    content["benchmark"] = "longmemeval-official"
    assert lead_columns(content, ["recall@3", "recall@1", "mrr@10"]) == ["recall@1", "mrr@10", "recall@3"]
