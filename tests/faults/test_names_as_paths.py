"""Promise: every path made from a name goes through one slug rule: it stays in its folder, makes no subfolder,
keeps distinct names distinct and leaves ordinary names byte-identical."""

from pathlib import Path

import pytest
from conftest import MINI_RELEASE, run

from memrecall.outputs import OutputError, name_of_part, name_part
from memrecall.running.sweep import output_paths

ORDINARY = ["hashing", "bm25-official", "dense_minilm", "v2.1", "A9", "lancedb-hybrid"]
HOSTILE = [
    "bm25/k1=1.2",
    "../../escaped",
    "..",
    ".",
    ".hidden",
    "a\\b",
    "a b",
    "mod:Attr",
    "nul\x00byte",
    "모델",
    "~home",
    "100%",
    "%2F",
    "a/b",
    "a%2Fb",
    "a_b",
]


@pytest.mark.parametrize("name", ORDINARY)
def test_ordinary_names_keep_their_bytes(name):
    assert name_part(name) == name


@pytest.mark.parametrize("name", HOSTILE)
def test_a_hostile_name_becomes_one_plain_file_name_piece(name):
    part = name_part(name)
    assert "/" not in part and "\\" not in part and "\x00" not in part
    assert not part.startswith(".")
    assert set(part) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.%")
    assert name_of_part(part) == name


def test_distinct_names_stay_distinct():
    names = ORDINARY + HOSTILE
    assert len({name_part(n) for n in names}) == len(names)


@pytest.mark.parametrize("name", ["", "x" * 201, "/" * 67])
def test_an_empty_or_too_long_name_is_refused(name):
    with pytest.raises(OutputError, match="--name"):
        name_part(name, "--name")


# Every place that makes a path from a name, as a function of (folder, name) -> the paths it would write.
BUILDERS = {
    "sweep system": lambda out, name: list(output_paths(out, name, "epirec").values()),
    "sweep benchmark": lambda out, name: list(output_paths(out, "hashing", name).values()),
}


@pytest.mark.parametrize("builder", sorted(BUILDERS))
@pytest.mark.parametrize("name", HOSTILE)
def test_sweep_paths_stay_in_their_folder(builder, name, tmp_path):
    for path in BUILDERS[builder](tmp_path, name):
        assert path.parent.parent == tmp_path, path


@pytest.mark.parametrize("name", ["bm25/k1=1.2", "../../escaped", ".hidden"])
def test_run_writes_its_default_report_as_one_file_in_results(name, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = run("run", "epirec", "--system", "hashing", "--data", MINI_RELEASE, "--name", name, "--quiet")
    assert result.exit_code == 0, result.output
    written = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file())
    assert written == [f"results/epirec_{name_part(name)}.report.json"]


def test_run_refuses_a_name_no_file_can_be_made_from_before_any_work(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = run("run", "epirec", "--system", "hashing", "--data", MINI_RELEASE, "--name", "x" * 300, "--quiet")
    assert result.exit_code == 1 and "--name 'xxx" in result.output and "too long for a file name" in result.output
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("name", ["../escaped", "a/b", ".hidden"])
def test_keys_new_writes_both_files_inside_out(name, tmp_path):
    result = run("keys", "new", "--out", tmp_path / "keys", "--name", name)
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in (tmp_path / "keys").iterdir()) == [f"{name_part(name)}.key", f"{name_part(name)}.pub"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keys"]


def test_the_sweep_folder_reads_back_the_names(tmp_path):
    from memrecall.running.sweep import outcomes_from_folder

    for path in output_paths(tmp_path, "mod:Attr", "epirec"), output_paths(tmp_path, "hashing", "a b"):
        path["report"].parent.mkdir(exist_ok=True)
        path["report"].write_text("{}", encoding="utf-8")
    assert sorted((o.entry, o.system) for o in outcomes_from_folder(Path(tmp_path))) == [
        ("a b", "hashing"),
        ("epirec", "mod:Attr"),
    ]
