"""Promise: no command ever writes over one of its own inputs; it refuses before any work."""

import pytest
from conftest import MINI_RELEASE, run
from helpers import LOCOMO, assert_one_line_error, export_hashing


def test_evaluate_refuses_to_write_its_report_over_the_rankings(tmp_path):
    rankings = export_hashing(tmp_path)
    before = rankings.read_bytes()
    result = run("evaluate", rankings, "--data", MINI_RELEASE, "--output", rankings)
    assert_one_line_error(result, "is one of this command's inputs; refusing to overwrite it")
    assert rankings.read_bytes() == before


def test_evaluate_refuses_the_data_file_and_the_compare_file_as_output(tmp_path):
    rankings = export_hashing(tmp_path)
    data = tmp_path / "release.json"
    data.write_bytes(MINI_RELEASE.read_bytes())
    other = tmp_path / "other.jsonl"
    other.write_bytes(rankings.read_bytes())
    for target in (data, other):
        before = target.read_bytes()
        result = run("evaluate", rankings, "--data", data, "--compare", other, "--output", target)
        assert_one_line_error(result, "is one of this command's inputs")
        assert target.read_bytes() == before


@pytest.mark.parametrize(
    "command",
    [
        ["baseline", "--strategies", "hashing", "--data", "{data}", "--output", "{data}"],
        ["baseline", "--strategies", "hashing", "--data", "{data}", "--per-query", "{data}"],
        ["run", "epirec", "--system", "hashing", "--data", "{data}", "--output", "{data}"],
        ["run", "epirec", "--system", "hashing", "--data", "{data}", "--export-rankings", "{data}"],
    ],
)
def test_epirec_commands_refuse_their_data_file_as_any_output(tmp_path, command):
    data = tmp_path / "release.json"
    data.write_bytes(MINI_RELEASE.read_bytes())
    result = run(*[part.format(data=data) for part in command], "--quiet")
    assert_one_line_error(result, "is one of this command's inputs")
    assert data.read_bytes() == MINI_RELEASE.read_bytes()


def test_locomo_refuses_its_data_file_as_output(tmp_path):
    data = tmp_path / "locomo.json"
    data.write_bytes(LOCOMO.read_bytes())
    result = run("locomo", "--data", data, "--modes", "fts5", "--quiet", "--output", data)
    assert_one_line_error(result, "is one of this command's inputs")
    assert data.read_bytes() == LOCOMO.read_bytes()


def test_audit_refuses_to_write_over_a_persona_source(tmp_path):
    from corpus_factory import persona, write_checkout

    root = write_checkout(tmp_path, [persona(1), persona(2)])
    source = root / "data" / "personas" / "p01.json"
    before = source.read_bytes()
    result = run("audit", "--root", root, "--output", source)
    assert_one_line_error(result, f"lies inside the corpus sources {root / 'data' / 'personas'}")
    assert source.read_bytes() == before


def test_report_refuses_an_out_folder_whose_card_is_an_input(tmp_path):
    rankings = export_hashing(tmp_path)
    result = run(
        "evaluate",
        rankings,
        "--data",
        MINI_RELEASE,
        "--output",
        tmp_path / "r.json",
        "--per-query",
        tmp_path / "card" / "README.md",
    )
    assert result.exit_code == 0, result.output
    card = tmp_path / "card" / "README.md"
    before = card.read_bytes()
    replay = ["--rankings", rankings, "--data", MINI_RELEASE]
    again = run("report", tmp_path / "r.json", "--out", tmp_path / "card", "--per-query", card, *replay)
    assert_one_line_error(again, "is one of this command's inputs")
    assert card.read_bytes() == before
