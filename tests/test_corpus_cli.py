import json

import pytest
from conftest import run
from corpus_factory import persona, write_checkout


@pytest.fixture
def checkout(tmp_path):
    root = write_checkout(tmp_path, [persona(1), persona(2)])
    assert run("build", "--root", root).exit_code == 0
    return root


def test_build_writes_release_checksums_and_croissant(checkout):
    data = checkout / "data"
    release = json.loads((data / "epirec_v1.json").read_text())
    assert release["stats"]["episodes"] == 28 and release["stats"]["probes"] == 84
    assert release["stats"]["intensity_bands"] == {"high": 12, "low": 12, "mild": 4}
    assert [p["persona_id"] for p in release["personas"]] == ["p01", "p02"]
    digest, name = (data / "SHA256SUMS").read_text().split()
    assert name == "epirec_v1.json" and len(digest) == 64
    croissant = json.loads((data / "croissant.json").read_text())
    assert croissant["conformsTo"] == "http://mlcommons.org/croissant/1.1"
    assert croissant["distribution"][0]["sha256"] == digest
    assert b"\r\n" not in (data / "epirec_v1.json").read_bytes()


def test_build_is_deterministic_and_idempotent(checkout):
    before = {p.name: p.read_bytes() for p in (checkout / "data").iterdir() if p.is_file()}
    result = run("build", "--root", checkout)
    assert result.exit_code == 0 and "up to date" in result.output
    assert {p.name: p.read_bytes() for p in (checkout / "data").iterdir() if p.is_file()} == before


def test_validate_passes_on_a_fresh_build(checkout):
    result = run("validate", "--root", checkout)
    assert result.exit_code == 0, result.output
    assert "personas: 2  episodes: 28  probes: 84" in result.output
    assert "valid: 0 violations" in result.output


@pytest.mark.parametrize("name", ["epirec_v1.json", "SHA256SUMS", "croissant.json"])
def test_build_check_catches_a_one_byte_change_in_any_generated_file(checkout, name):
    path = checkout / "data" / name
    original = path.read_bytes()
    assert run("build", "--root", checkout, "--check").exit_code == 0
    changed = bytearray(original)
    index = len(changed) // 2
    changed[index] = ord("x") if changed[index] != ord("x") else ord("y")
    path.write_bytes(bytes(changed))
    result = run("build", "--root", checkout, "--check")
    assert result.exit_code == 1
    assert f"stale: data/{name}" in result.output
    assert path.read_bytes() == bytes(changed)  # --check writes nothing


def test_validate_reports_every_violation_with_file_and_path(checkout):
    source = checkout / "data" / "personas" / "p02.json"
    broken = json.loads(source.read_text())
    broken["episodes"][3]["intensity_band"] = "huge"
    broken["episodes"][5]["session"] = "six"
    source.write_text(json.dumps(broken))
    (checkout / "data" / "SHA256SUMS").write_text("0" * 64 + "  epirec_v1.json\n")
    result = run("validate", "--root", checkout)
    assert result.exit_code == 1
    assert "data/personas/p02.json: episodes[3].intensity_band: schema: 'huge' is not one of" in result.output
    assert "data/personas/p02.json: episodes[5].session: schema: 'six' is not of type 'integer'" in result.output
    assert "data/SHA256SUMS: sha256 for epirec_v1.json is 000000000000..." in result.output


def test_validate_flags_a_release_that_differs_from_the_sources(checkout):
    source = checkout / "data" / "personas" / "p01.json"
    edited = json.loads(source.read_text())
    edited["episodes"][0]["emotion"] = "content"
    source.write_text(json.dumps(edited))
    result = run("validate", "--root", checkout)
    assert result.exit_code == 1
    assert "data/epirec_v1.json: differs from what `memrecall build` writes from the sources" in result.output


def test_validate_reports_invalid_json_with_line_and_column(checkout):
    (checkout / "data" / "personas" / "p02.json").write_text('{\n  "persona_id": "p02",\n  oops\n}')
    result = run("validate", "--root", checkout)
    assert result.exit_code == 1
    assert "data/personas/p02.json: invalid JSON at line 3 column 3" in result.output


def test_build_refuses_an_invalid_corpus_and_writes_nothing(tmp_path):
    bad = persona(1)
    bad["episodes"][0]["text"] = "short"
    root = write_checkout(tmp_path, [bad, persona(2)])
    result = run("build", "--root", root)
    assert result.exit_code == 1
    assert "refusing to build" in result.output
    assert not (root / "data" / "epirec_v1.json").exists()


def test_croissant_without_the_declaration_is_a_violation(checkout):
    path = checkout / "data" / "croissant.json"
    metadata = json.loads(path.read_text())
    metadata["conformsTo"] = "http://mlcommons.org/croissant/1.0"
    path.write_text(json.dumps(metadata))
    result = run("validate", "--root", checkout)
    assert "data/croissant.json: does not declare conformsTo http://mlcommons.org/croissant/1.1" in result.output


def test_audit_writes_sorted_candidates(checkout, tmp_path):
    out = tmp_path / "amb.json"
    result = run("audit", "--root", checkout, "--threshold", "0.5", "--output", out)
    assert result.exit_code == 0
    report = json.loads(out.read_text())
    assert report["threshold"] == 0.5
    # factory episodes share their frame words, so every within-persona pair clears 0.5
    assert report["counts"]["episode_pairs"] == 2 * 91
    jaccards = [p["jaccard"] for p in report["episode_pairs"]]
    assert jaccards == sorted(jaccards, reverse=True)
    assert "intensity_band" not in json.dumps(report)  # blind: no authored labels


def test_labels_sample_and_agree_end_to_end(checkout, tmp_path):
    sheet = tmp_path / "sample.csv"
    result = run("labels", "sample", "--root", checkout, "--size", "6", "--output", sheet)
    assert result.exit_code == 0 and "sampled 6 episodes" in result.output
    rows = sheet.read_text().splitlines()[1:]
    ids = [row.split(",")[0] for row in rows]
    assert len(ids) == 6
    episodes = {
        e["id"]: e
        for p in json.loads((checkout / "data" / "epirec_v1.json").read_text())["personas"]
        for e in p["episodes"]
    }
    authored = [(i, episodes[i]["intensity_band"], episodes[i]["valence"]) for i in ids]
    header = "episode_id,text,intensity_band,valence,notes\n"
    (tmp_path / "r1.csv").write_text(header + "".join(f"{i},x,{b},{v},\n" for i, b, v in authored))
    flipped = [(i, "low" if n == 0 else b, v) for n, (i, b, v) in enumerate(authored)]
    (tmp_path / "r2.csv").write_text(header + "".join(f"{i},x,{b},{v},\n" for i, b, v in flipped))
    result = run(
        "labels",
        "agree",
        "--root",
        checkout,
        "--sample",
        sheet,
        "--out-dir",
        tmp_path / "out",
        tmp_path / "r1.csv",
        tmp_path / "r2.csv",
    )
    assert result.exit_code == 0, result.output
    agreement = json.loads((tmp_path / "out" / "agreement.json").read_text())
    assert agreement["raters"] == ["r1", "r2"] and agreement["episodes"] == 6
    assert agreement["pairs"]["r1 vs r2"]["valence_kappa"] == 1.0
    assert (tmp_path / "out" / "disputes.csv").read_text().startswith("episode_id,authored_band")


def test_labels_agree_rejects_a_bad_rater_file_with_its_line(checkout, tmp_path):
    sheet = tmp_path / "sample.csv"
    run("labels", "sample", "--root", checkout, "--size", "2", "--output", sheet)
    ids = [row.split(",")[0] for row in sheet.read_text().splitlines()[1:]]
    header = "episode_id,text,intensity_band,valence,notes\n"
    (tmp_path / "good.csv").write_text(header + "".join(f"{i},x,low,neutral,\n" for i in ids))
    (tmp_path / "bad.csv").write_text(header + f"{ids[0]},x,huge,neutral,\n")
    result = run(
        "labels",
        "agree",
        "--root",
        checkout,
        "--sample",
        sheet,
        "--out-dir",
        tmp_path / "out",
        tmp_path / "good.csv",
        tmp_path / "bad.csv",
    )
    assert result.exit_code == 1
    assert "bad.csv: line 2: intensity_band 'huge' is not one of high, mild, low" in result.output
    assert not (tmp_path / "out" / "agreement.json").exists()


CORPUS_COMMANDS = {
    "validate": ([], "valid: 0 violations"),
    "build": ([], "up to date: nothing written"),
    "build --check": (["--check"], "current: data/epirec_v1.json, data/SHA256SUMS, data/croissant.json"),
    "audit": (["--output", "OUT/a.json"], "written: OUT/a.json"),
}


@pytest.mark.parametrize("command", sorted(CORPUS_COMMANDS))
def test_each_corpus_command_names_the_checkout_it_looked_at(checkout, tmp_path, monkeypatch, command):
    extra, last = CORPUS_COMMANDS[command]
    out = tmp_path / "out"
    args = [a.replace("OUT", str(out)) for a in extra]
    monkeypatch.chdir(checkout)
    for where in ([], ["--root", checkout]):
        result = run(command.split()[0], *where, *args)
        assert result.exit_code == 0, result.output
        assert (
            result.output.strip().splitlines()[-1]
            == last.replace("OUT", str(out)) + f" (checkout {checkout.resolve()})"
        )


@pytest.mark.parametrize("command", sorted(CORPUS_COMMANDS))
def test_each_corpus_command_outside_a_checkout_suggests_root(tmp_path, monkeypatch, command):
    extra, _ = CORPUS_COMMANDS[command]
    (tmp_path / "plain").mkdir()
    monkeypatch.chdir(tmp_path / "plain")
    result = run(command.split()[0], *[a.replace("OUT", str(tmp_path)) for a in extra])
    assert result.exit_code == 2, result.output
    assert result.output.strip() == (
        f"error: no EpiRec checkout in {(tmp_path / 'plain').resolve()}: it has none of data/personas, "
        "data/archive/v1/personas, data/epirec_v1.json, data/SHA256SUMS; run this inside a checkout, or give "
        "--root PATH/TO/CHECKOUT"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["plain"] and not list((tmp_path / "plain").iterdir())
