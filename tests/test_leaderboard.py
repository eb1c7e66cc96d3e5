"""`memrecall leaderboard`: tables per benchmark, rows apart, paired tests, escaping, byte-identical rebuilds."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from conftest import run
from leaderboard_helpers import DATA, SYSTEMS, build, swept_entries

from memrecall.benchmarks import BENCHMARKS
from memrecall.reports.leaderboard.entries import load_data, read_entries
from memrecall.reports.leaderboard.figure import pareto_front
from memrecall.reports.leaderboard.readme import others_table
from memrecall.reports.leaderboard.tables import build_tables


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    folder = tmp_path_factory.mktemp("board")
    entries = swept_entries(folder)
    return folder, entries, build(entries, folder, *DATA)


def copy_board(site, tmp_path) -> Path:
    folder, entries, _ = site
    shutil.copytree(entries, tmp_path / "entries")
    return tmp_path / "entries"


def edit_report(path: Path, change) -> None:
    report = json.loads(path.read_text())
    change(report["content"])
    path.write_text(json.dumps(report))


def copy_row(folder: Path, system: str, name: str) -> None:
    """A second row of the same rankings in `folder`, under another system name."""
    for kind in ("report.json", "rankings.jsonl", "scores.jsonl"):
        shutil.copy(folder / f"{system}.{kind}", folder / f"{name}.{kind}")

    def rename(content):
        content["systems"][name] = content["systems"].pop(system)
        content["system_order"] = [name]

    edit_report(folder / f"{name}.report.json", rename)


@pytest.mark.slow
def test_site_holds_index_a_card_per_row_and_a_figure_per_table(site):
    _, _, files = site
    cards = sorted(f"cards/{t}/{s}.html" for t in ("epirec-test", "locomo-session") for s in SYSTEMS)
    assert sorted(files) == sorted(["index.html", *cards, "figures/epirec-test.svg", "figures/locomo-session.svg"])


@pytest.mark.slow
def test_only_pages_with_sortable_tables_carry_the_script(site):
    _, _, files = site
    pages = {name: data.decode("utf-8") for name, data in files.items() if name.endswith(".html")}
    with_script = sorted(name for name, text in pages.items() if "<script>" in text)
    assert with_script == ["index.html"] and 'class="sortable' in pages["index.html"]
    assert not any("sortable" in text for name, text in pages.items() if name.startswith("cards/"))
    from memrecall.reports.leaderboard.assets import BASE_CSS, INDEX_CSS

    cards = [text for name, text in pages.items() if name.startswith("cards/")]
    assert cards and all(f"<style>{BASE_CSS}</style>" in text for text in cards)  # the base, not the index's rules
    assert f"<style>{INDEX_CSS}</style>" in pages["index.html"] and len(INDEX_CSS) > len(BASE_CSS)


@pytest.mark.slow
def test_rebuilding_gives_the_same_bytes(site, tmp_path):
    entries = copy_board(site, tmp_path)
    assert build(entries, tmp_path, *DATA) == site[2]


def test_every_row_is_replayed_when_its_data_is_given_and_fingerprint_only_otherwise(site, tmp_path):
    index = site[2]["index.html"].decode()
    assert index.count('class="badge replayed"') == 6
    entries = copy_board(site, tmp_path)
    epirec_only = build(entries, tmp_path, DATA[0], DATA[1])["index.html"].decode()
    assert epirec_only.count('class="badge replayed"') == 3
    assert epirec_only.count('class="badge fingerprint"') == 3


def test_every_link_points_at_a_file_that_exists(site):
    folder, _, files = site
    for name, content in files.items():
        if name.endswith(".html"):
            for target in re.findall(r'(?:href|src)="([^"#]+)', content.decode()):
                assert (folder / name).parent.joinpath(target).resolve().is_file(), (name, target)


def test_a_tampered_report_is_unverified_and_hostile_names_are_escaped(site, tmp_path):
    entries = copy_board(site, tmp_path)
    evil = "<img src=x onerror=alert(1)>&\"'"

    def rename(content):
        content["systems"][evil] = content["systems"].pop("fts5")
        content["system_order"] = [evil]

    edit_report(entries / "epirec" / "fts5.report.json", rename)
    files = build(entries, tmp_path, *DATA)
    index = files["index.html"].decode()
    assert "<img src=x" not in index and "&lt;img src=x onerror=alert(1)&gt;&amp;" in index
    assert 'data-system="&lt;img src=x onerror=alert(1)&gt;&amp;&quot;&#x27;"' in index
    card = files["cards/epirec-test/img-src-x-onerror-alert-1.html"].decode()
    assert "<img src=x" not in card and '<span class="badge unverified">UNVERIFIED</span>' in card
    assert "FAILED: fingerprint" in card


def test_oracle_rows_and_rows_with_another_manifest_are_listed_apart_naming_fields(site, tmp_path):
    entries = copy_board(site, tmp_path)
    edit_report(entries / "epirec" / "hashing.report.json", lambda c: c.update(uses_gold_labels=True))
    edit_report(
        entries / "locomo" / "recency.report.json", lambda c: c["comparability"]["split"].update(max_instances=3)
    )
    tables = build_tables(read_entries(entries, load_data({})))
    epirec, locomo = tables
    assert [e.system for e in epirec.oracle] == ["hashing"] and "hashing" not in [e.system for e in epirec.rows]
    assert [(e.system, fields) for e, fields in locomo.apart] == [("recency", ["split.max_instances"])]
    assert [e.system for e in locomo.rows] == ["fts5", "hashing"]
    index = build(entries, tmp_path)["index.html"].decode()
    assert "Oracle systems (they read gold labels; not ranked)" in index
    assert "<td>split.max_instances</td>" in index


def test_a_copy_of_the_best_row_is_not_separable_from_it(site, tmp_path):
    entries = copy_board(site, tmp_path)
    copy_row(entries / "epirec", "fts5", "twin")
    (epirec, _) = build_tables(read_entries(entries, load_data({})))
    for group in epirec.groups:
        tested = {name: v for (name, g), v in epirec.versus.items() if g == group}
        best = [name for name, v in tested.items() if v.best]
        assert len(best) == 1 and sorted(tested) == ["fts5", "hashing", "recency", "twin"]
        if best[0] in ("fts5", "twin"):
            twin = tested["twin" if best[0] == "fts5" else "fts5"]
            assert twin.p_holm == 1.0 and not twin.separable


def test_rows_are_ordered_best_first_on_the_primary_metric_of_the_hardest_group_first(site):
    from memrecall.reports.leaderboard.tables import ranking_groups

    folder, entries, _ = site
    for table in build_tables(read_entries(entries, load_data({}))):
        order = ranking_groups(table, table.rows)
        means = [sum(table.cell(e, g, table.primary)["value"] for e in table.rows) / len(table.rows) for g in order]
        assert means == sorted(means) and sorted(order) == sorted(table.groups)
        values = [tuple(table.cell(e, g, table.primary)["value"] for g in order) for e in table.rows]
        assert values == sorted(values, reverse=True)


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (
            lambda e: (e / "epirec" / "fts5.rankings.jsonl").unlink(),
            "its rankings file fts5.rankings.jsonl(.gz) is not beside it",
        ),
        (
            lambda e: (e / "locomo" / "fts5.scores.jsonl").unlink(),
            "no fts5.scores.jsonl(.gz) beside it and no --data for locomo",
        ),
        (lambda e: (e / "epirec" / "fts5.report.json").write_text("{"), "fts5.report.json: not a readable JSON report"),
        (
            lambda e: (e / "locomo" / "fts5.scores.jsonl").write_text(
                (e / "locomo" / "recency.scores.jsonl").read_text()
            ),
            "fts5.scores.jsonl: recall@1 mean over overall is",
        ),
    ],
)
def test_broken_entries_are_one_line_errors_and_nothing_is_written(site, tmp_path, change, expected):
    entries = copy_board(site, tmp_path)
    change(entries)
    result = run("leaderboard", entries, "--out", tmp_path / "site")
    assert result.exit_code == 1 and expected in result.output and "Traceback" not in result.output
    assert not (tmp_path / "site").exists()


def test_scores_that_disagree_with_the_data_are_refused(site, tmp_path):
    entries = copy_board(site, tmp_path)
    path = entries / "locomo" / "fts5.scores.jsonl"
    path.write_text("".join(reversed(path.read_text().splitlines(keepends=True))))
    result = run("leaderboard", entries, "--out", tmp_path / "site", *DATA)
    assert result.exit_code == 1 and "differs from the scores of its rankings on the data" in result.output


@pytest.mark.parametrize(
    ("points", "front"),
    [
        ([(1, 0.5, "a"), (2, 0.4, "b"), (3, 0.9, "c")], ["a", "c"]),
        ([(1, 0.5, "a"), (1, 0.5, "b")], ["a"]),
        ([(5, 0.1, "a"), (1, 0.9, "b")], ["b"]),
        ([], []),
    ],
)
def test_pareto_front_keeps_points_nothing_beats(points, front):
    assert [p[2] for p in pareto_front(points)] == front


def test_a_signed_row_without_its_data_reads_signed_by_its_key_and_a_foreign_key_fails_it(site, tmp_path):
    entries = copy_board(site, tmp_path)
    for name in ("lab", "other"):
        assert run("keys", "new", "--out", tmp_path / "keys", "--name", name).exit_code == 0
    signed = run("keys", "sign", entries / "locomo" / "fts5.report.json", "--key", tmp_path / "keys" / "lab.key")
    assert signed.exit_code == 0, signed.output
    key_id = json.loads((entries / "locomo" / "fts5.report.json").read_text())["signatures"][0]["key_id"]
    (locomo,) = [t for t in build_tables(read_entries(entries, load_data({}))) if t.benchmark == "locomo"]
    states = {e.system: e.state for e in locomo.rows}
    assert states == {"fts5": f"signed by {key_id}", "hashing": "fingerprint only", "recency": "fingerprint only"}
    foreign = build_tables(read_entries(entries, load_data({}), [tmp_path / "keys" / "other.pub"]))
    assert {e.system: e.state for e in foreign[1].rows}["fts5"] == "UNVERIFIED"


@pytest.mark.slow
def test_longmemeval_reports_get_their_own_table(tmp_path):
    from conftest import FIXTURES

    lme = FIXTURES / "lme_format_mini.json"
    swept = run(
        "sweep",
        "--systems",
        "fts5,recency",
        "--benchmarks",
        "longmemeval",
        "--data",
        f"longmemeval={lme}",
        "--out",
        tmp_path / "entries",
        "--resamples",
        "100",
        "--quiet",
    )
    assert swept.exit_code == 0, swept.output
    (table,) = build_tables(read_entries(tmp_path / "entries", load_data({"longmemeval": [lme]})))
    assert table.benchmark == "longmemeval" and table.title.endswith("Perseus protocol")
    assert table.groups == ["overall"] and table.metrics[:2] == ["recall@1", "mrr@10"]
    assert table.metrics[2:] == ["recall@3", "recall@5", "recall@10"]  # then the headline, recall@1 said once
    assert sorted(e.state for e in table.rows) == ["replayed", "replayed"]
    from memrecall.reports.leaderboard.html import index_page

    assert table.leading == ["mrr@10"]  # recall@10 saturates on LongMemEval: MRR@10 gets a column of its own
    page = index_page([table], tmp_path)
    mrr = table.cell(table.rows[0], "overall", "mrr@10")
    assert page.index("<th>recall@1</th>") < page.index("<th>mrr@10</th>") < page.index("<th>ms per query")
    assert f'data-sort="{mrr["value"]:.6g}">{mrr["value"]:.3f}' in page
    lines = others_table([table]).splitlines()  # README's line for each table that is not EpiRec
    shown = {}
    for entry in table.rows:
        cell = table.cell(entry, "overall", "recall@1")
        shown[entry.row] = f"{cell['value']:.3f} [{cell['ci_low']:.2f}, {cell['ci_high']:.2f}]"
    best = table.rows[0].row
    assert len(lines) == 3
    assert lines[2] == (
        "| [LongMemEval, Perseus protocol](site/leaderboard/index.html#longmemeval-perseus) | recall@1 | "
        f"{table.row(table.rows[0], 'overall')['n']} | 2 | {best}: {shown[best]} | - | {shown['fts5']} |"
    )


@pytest.mark.parametrize("name", sorted(BENCHMARKS))
def test_every_registered_benchmark_has_a_table_title(name):
    from memrecall.reports.leaderboard.tables import TITLES

    assert TITLES[BENCHMARKS[name].name].format(version="1.0").strip()


def test_each_tested_row_shows_the_difference_from_its_best_row_it_could_detect(site):
    import numpy as np

    from memrecall.reports.leaderboard.readme import markdown_table
    from memrecall.reports.power import mcnemar_detectable

    folder, entries, files = site
    epirec = build_tables(read_entries(entries, load_data({})))[0]
    found = []
    for group in epirec.groups:
        best = next(e for e in epirec.rows if epirec.versus[(e.system, group)].best)
        base = {r["query_id"]: r["values"][epirec.primary] for r in best.scores if r["group"] == group}
        for entry in (e for e in epirec.rows if e is not best):
            mine = {r["query_id"]: r["values"][epirec.primary] for r in entry.scores if r["group"] == group}
            discordance = np.mean([mine[q] != base[q] for q in sorted(base)])
            expected = mcnemar_detectable(float(discordance), len(base))
            assert epirec.versus[(entry.system, group)].detectable == expected
            found.append(expected)
    assert found == [None] * 2 * len(epirec.groups)  # the mini task is far too small to detect any difference
    index = files["index.html"].decode()
    tables = build_tables(read_entries(entries, load_data({})))
    tested = sum((len(t.rows) - 1) * len(t.groups) for t in tables)  # behind each row's "tests, cost, links"
    assert index.count("<span>detectable Δ (α .05, power .8): ") == tested
    assert "<span>detectable Δ (α .05, power .8): -</span>" in index
    assert index.count("<span>best row: the reference of the column's tests</span>") == len(epirec.groups) + 1
    assert "detectable Δ: the smallest paired difference from the best row" in index
    table = markdown_table(epirec)
    assert f"| {epirec.groups[0]} detectable Δ (α .05, power .8) |" in table.splitlines()[0]
    assert table.count("| reference |") == len(epirec.groups)
    assert table.rstrip().splitlines()[-1].startswith(f"| {len(epirec.rows)} | ")  # the table alone, no English note


PLUG_IN = "class StoreOrder:\n    def index(self, documents):\n        self.ids = [d.id for d in documents]\n\n" \
    "    def rank(self, query):\n        return list(self.ids)\n"  # fmt: skip


@pytest.mark.parametrize(("isolation", "shown"), [("sandbox", "sandboxed"), ("process", None), ("none", None)])
def test_a_plug_in_row_says_sandboxed_and_one_run_unsandboxed_is_refused(site, tmp_path, monkeypatch, isolation, shown):
    from conftest import MINI_RELEASE

    entries = copy_board(site, tmp_path)
    (tmp_path / "shady.py").write_text(PLUG_IN, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    stem = entries / "epirec" / "shady"
    args = ["run", "epirec", "--system", "shady:StoreOrder", "--name", "shady", "--data", MINI_RELEASE, "--quiet"]
    args += ["--resamples", "200", "--output", f"{stem}.report.json", "--export-rankings", f"{stem}.rankings.jsonl"]
    how = {"sandbox": [], "process": ["--sandbox", "none"], "none": ["--in-process"]}[isolation]
    assert run(*args, *how).exit_code == 0
    result = run("leaderboard", entries, "--out", tmp_path / "site", *DATA)
    if shown is None:
        assert result.exit_code == 1 and f"isolation: {isolation}" in result.output
        assert not (tmp_path / "site").exists()
        return
    assert result.exit_code == 0, result.output
    page = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    row = next(line for line in page.split("<tr>") if ">shady<" in line)
    assert '<span class="badge code">sandboxed</span>' in row
    own = next(line for line in page.split("<tr>") if ">fts5<" in line)
    assert '<span class="badge code">memrecall&#x27;s own</span>' in own or "memrecall's own" in own


def test_every_other_row_is_tested_against_dense_with_its_mean_paired_difference(site, tmp_path):
    entries = copy_board(site, tmp_path)
    assert all(not table.against_dense for table in build_tables(read_entries(entries, load_data({}))))
    copy_row(entries / "epirec", "fts5", "dense")
    (epirec, _) = build_tables(read_entries(entries, load_data({})))
    dense = next(e for e in epirec.rows if e.system == "dense")
    for group in epirec.groups:
        tested = {name: v for (name, g), v in epirec.against_dense.items() if g == group}
        assert sorted(tested) == ["fts5", "hashing", "recency"]
        assert (tested["fts5"].p_holm, tested["fts5"].difference, tested["fts5"].separable) == (1.0, 0.0, False)
        for entry in (e for e in epirec.rows if e.system in ("hashing", "recency")):
            mine = {r["query_id"]: r["values"][epirec.primary] for r in entry.scores if str(r["group"]) == group}
            base = {r["query_id"]: r["values"][epirec.primary] for r in dense.scores if str(r["group"]) == group}
            expected = sum(mine[q] - base[q] for q in base) / len(base)
            assert tested[entry.system].difference == pytest.approx(expected, abs=1e-12)
    index = build(entries, tmp_path, *DATA)["index.html"].decode()
    assert "not separable from dense (+0.000), p<sub>Holm</sub> 1.0000" in index


@pytest.mark.parametrize("offset", [-1e-9, -1e-7, -5e-6, -5e-5, 0.0, 5e-5, 5e-6, 1e-7, 1e-9])
def test_a_shown_p_falls_on_the_same_side_of_alpha_as_the_p(offset):
    from memrecall.reports.leaderboard.html import p_shown
    from memrecall.reports.leaderboard.tables import ALPHA

    p = ALPHA + offset
    shown = p_shown(p)
    number = float(shown.removeprefix("< "))
    assert (number < ALPHA or shown.startswith("< ")) == (p < ALPHA), shown
    assert len(shown.split(".")[1]) >= 4
    assert p_shown(0.0180) == "0.0180" and p_shown(1.0) == "1.0000" and p_shown(0.04999) == "0.04999"


@pytest.mark.parametrize(
    ("values", "top"),
    [([0.09, 0.01], 0.2), ([0.33], 0.4), ([0.6, 0.2], 0.7), ([0.94], 1.0), ([0.95], 1.05), ([], 1.05)],
)
def test_a_figure_of_low_scores_is_not_drawn_flat_along_the_bottom(values, top):
    from types import SimpleNamespace

    from memrecall.reports.leaderboard.figure import y_top

    table = SimpleNamespace(groups=["overall"], primary="recall@1", cell=lambda entry, group, metric: {"value": entry})
    assert y_top(table, values) == top
