"""The encoder axis: sweep --model and --cache-dir, the manifest's encoder, and encoders sharing one table."""

from __future__ import annotations

import json

import pytest
from conftest import MINI_RELEASE, run
from leaderboard_helpers import build, mixed_encoder_entries

from memrecall.encoding.registry import named
from memrecall.reports.leaderboard.entries import load_data, read_entries
from memrecall.reports.leaderboard.readme import markdown_table, readme_rows
from memrecall.reports.leaderboard.tables import build_tables
from memrecall.systems.registry import BUILTIN_SYSTEMS, NEEDS_ENCODER

POTION = {"id": "minishlab/potion-base-8M", "weights_sha256": named("potion-8m").weights_sha256}
MINILM = {"id": "sentence-transformers/all-MiniLM-L6-v2", "weights_sha256": named("minilm").weights_sha256}


@pytest.fixture(scope="module")
def mixed(tmp_path_factory, fetched):  # fetched (conftest): potion-8m is in the models folder
    folder = tmp_path_factory.mktemp("encoders")
    return folder, mixed_encoder_entries(folder)


def report(entries, stem: str) -> dict:
    return json.loads((entries / "epirec" / f"{stem}.report.json").read_text(encoding="utf-8"))


@pytest.mark.slow
def test_sweep_names_files_by_encoder_and_the_shared_cache_encodes_each_text_once(mixed):
    _, entries = mixed
    stems = sorted(p.name.removesuffix(".report.json") for p in (entries / "epirec").glob("*.report.json"))
    assert stems == ["dense", "dense.potion-8m", "fts5", "hybrid.potion-8m"]
    first, second = report(entries, "dense.potion-8m"), report(entries, "hybrid.potion-8m")
    assert first["env"]["texts_encoded"] > 0
    assert second["env"]["texts_encoded"] == 0  # every text was in the shared cache
    # the mini release's 32 texts, one encoding call: all 32 computed, cold (first) or warm (second)
    assert first["content"]["systems"]["dense"]["encoder"] == {**POTION, "vectors_computed_at_least": 32}
    assert second["content"]["systems"]["hybrid"]["encoder"] == {**POTION, "vectors_computed_at_least": 32}
    minilm = report(entries, "dense")["content"]["systems"]["dense"]["encoder"]
    assert minilm == {**MINILM, "vectors_computed_at_least": 32}


@pytest.mark.slow
def test_the_manifest_encoder_is_the_first_system_claim_for_every_built_in(tmp_path):
    """Every built-in: comparability.encoder is its signed claim's identity, MiniLM exactly for those that encode."""
    for name in BUILTIN_SYSTEMS:
        output = tmp_path / f"{name}.json"
        result = run("run", "epirec", "--data", MINI_RELEASE, "--system", name, "--output", output,
                     "--cache-dir", tmp_path / "cache", "--quiet", "--resamples", "100")  # fmt: skip
        assert result.exit_code == 0, (name, result.output)
        content = json.loads(output.read_text(encoding="utf-8"))["content"]
        claim = content["systems"][name].get("encoder")
        assert content["comparability"]["encoder"] == (MINILM if name in NEEDS_ENCODER else None), name
        assert claim == ({**MINILM, "vectors_computed_at_least": 32} if name in NEEDS_ENCODER else None), name


@pytest.mark.slow
def test_rows_of_different_encoders_share_one_table_with_their_own_keys(mixed):
    _, entries = mixed
    (table,) = build_tables(read_entries(entries, load_data({"epirec": [MINI_RELEASE]})))
    assert table.apart == []
    rows = {e.row: e.encoder.name for e in table.rows}
    assert rows == {"dense": "minilm", "dense.potion-8m": "potion-8m", "fts5": "none", "hybrid.potion-8m": "potion-8m"}
    assert {e.encoder.signed for e in table.rows if e.system != "fts5"} == {True}
    assert {e.state for e in table.rows} == {"replayed"}  # a replay rebuilds the manifest's encoder from the claim
    tested = {row for row, _ in table.versus}
    assert tested == set(rows)


def test_readme_keeps_default_rows_and_the_best_row_of_each_other_encoder(mixed):
    _, entries = mixed
    (table,) = build_tables(read_entries(entries, load_data({"epirec": [MINI_RELEASE]})))
    chosen = readme_rows(table)
    potion = [e for e in table.rows if e.encoder.name == "potion-8m"]
    assert [e.row for _, e in chosen] == [e.row for e in table.rows if e not in potion[1:]]
    assert [p for p, _ in chosen] == [table.rows.index(e) + 1 for _, e in chosen]
    lines = markdown_table(table).splitlines()
    assert lines[0].startswith("| \\# | system | encoder |") and len(lines) == 2 + len(chosen)


def test_the_page_has_an_encoder_column_filter_and_cards_per_row(mixed, tmp_path):
    folder, entries = mixed
    files = build(entries, tmp_path / "site", "--data", f"epirec={MINI_RELEASE}")
    page = files["index.html"].decode("utf-8")
    assert "<th>encoder</th>" in page
    assert page.count('<p class="filter"') == 1
    for name, n in (("minilm", 1), ("none", 1), ("potion-8m", 2)):
        assert f'value="{name}"> {name} ({n})</label>' in page
    assert page.count('" data-encoder="potion-8m"') == 2  # the main table's rows (the overview row has no system)
    cards = sorted(p for p in files if p.startswith("cards/"))
    assert [c.rsplit("/", 1)[1] for c in cards] == [
        "dense-potion-8m.html", "dense.html", "fts5.html", "hybrid-potion-8m.html"
    ]  # fmt: skip
    card = files[next(c for c in cards if c.endswith("/dense-potion-8m.html"))].decode("utf-8")
    assert "potion-8m: " in card and "(signed)" in card


@pytest.mark.parametrize("other", ["dense.potion-8m", "fts5"])
def test_compare_binds_the_encoder_only_when_both_rank_with_one(mixed, other):
    _, entries = mixed
    base = entries / "epirec" / "dense.report.json"
    result = run("compare", base, entries / "epirec" / f"{other}.report.json", "--output", entries.parent / "c.json")
    if other == "fts5":
        assert result.exit_code == 0, result.output
        assert "comparison: like-for-like" in result.output
    else:
        assert result.exit_code != 0
        assert "differs: encoder.id: 'sentence-transformers/all-MiniLM-L6-v2' vs 'minishlab/potion-base-8M'" in (
            result.output
        )
        assert not (entries.parent / "c.json").exists()


def test_sweep_model_that_is_not_fetched_is_one_line_and_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("MEMRECALL_MODELS", str(tmp_path / "empty"))
    result = run("sweep", "--systems", "dense", "--benchmarks", "epirec", "--data", f"epirec={MINI_RELEASE}",
                 "--model", "mpnet", "--out", tmp_path / "out")  # fmt: skip
    assert result.exit_code != 0
    assert "scripts/fetch_models.sh mpnet" in result.output
    assert not (tmp_path / "out").exists()


def test_a_warm_row_says_so_on_the_page_and_in_readme(mixed, tmp_path):
    _, entries = mixed
    (table,) = build_tables(read_entries(entries, load_data({"epirec": [MINI_RELEASE]})))
    assert {e.row for e in table.rows if e.warm} == {"hybrid.potion-8m"}  # dense.potion-8m ran first, cold
    lines = markdown_table(table).splitlines()[2:]
    assert [("(warm)" in line) for line in lines] == [e.warm for _, e in readme_rows(table)]
    files = build(entries, tmp_path / "site", "--data", f"epirec={MINI_RELEASE}")
    page = files["index.html"].decode("utf-8")
    row = page.split('data-system="hybrid.potion-8m"')[1].split("</tr>")[0]
    assert "warm: no encoding" in row
    other = page.split('data-system="dense.potion-8m"')[1].split("</tr>")[0]
    assert "warm: no encoding" not in other


def test_the_overview_gives_each_encoder_its_best_row_and_dense_cold_cost(mixed, tmp_path):
    from memrecall.reports.leaderboard.encoder_overview import best_row, dense_row, encoder_names, overview_section
    from memrecall.reports.leaderboard.figure import per_query_ms

    _, entries = mixed
    tables = build_tables(read_entries(entries, load_data({"epirec": [MINI_RELEASE]})))
    (table,) = tables
    assert encoder_names(tables) == ["minilm", "potion-8m"]  # the default first; fts5's "none" is no encoder
    potion = [e for e in table.rows if e.encoder.name == "potion-8m"]
    assert best_row(table, "potion-8m") is potion[0]
    assert dense_row(table, "potion-8m").row == "dense.potion-8m"
    html = "".join(overview_section(tables))
    line = html.split('<tr data-encoder="potion-8m">')[1].split("</tr>")[0]
    cells = line.split("</td>")
    assert cells[1] == '<td class="num">256' and cells[2] == "<td>MIT"
    assert f">{per_query_ms(dense_row(table, 'potion-8m')):.2f}" in cells[4]
    assert f'<span class="ci">{potion[0].system}</span>' in cells[3]


@pytest.mark.slow
def test_each_benchmark_of_a_shared_cache_sweep_starts_cold(tmp_path, fetched):
    """Two benchmarks with the same texts: under --cache-dir each one's first pair still encodes them all."""
    data = ("--data", f"epirec={MINI_RELEASE}", "--data", f"epirec-v2={MINI_RELEASE}")
    result = run("sweep", "--systems", "dense,hybrid", "--benchmarks", "epirec,epirec-v2", *data,
                 "--model", "potion-8m", "--cache-dir", tmp_path / "cache", "--out", tmp_path / "out",
                 "--resamples", "100", "--quiet")  # fmt: skip
    assert result.exit_code == 0, result.output
    encoded = {
        (bench, system): json.loads((tmp_path / "out" / bench / f"{system}.potion-8m.report.json").read_text())["env"][
            "texts_encoded"
        ]
        for bench in ("epirec", "epirec-v2")
        for system in ("dense", "hybrid")
    }
    first = encoded[("epirec", "dense")]
    assert first > 0
    assert encoded == {("epirec", "dense"): first, ("epirec", "hybrid"): 0, ("epirec-v2", "dense"): first,
                       ("epirec-v2", "hybrid"): 0}  # fmt: skip
    assert sorted(p.name for p in (tmp_path / "cache").iterdir()) == ["epirec", "epirec-v2"]
