"""A report is read the same plain or gzip-compressed (NAME.report.json or NAME.report.json.gz, as the leaderboard
stores its entries): every command that takes a report gives the same output on either, and one place
(reports.rankings_files) knows both names."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from conftest import MINI_RELEASE, run

from memrecall.errors import DatasetError
from memrecall.io import deflated
from memrecall.reports.rankings_files import (
    is_report_name,
    rankings_beside,
    report_files,
    report_stem,
)

SYSTEMS = ("fts5", "hashing")
WRITTEN_FINGERPRINT = re.compile(r"(report: OUT/\S+ \(content_sha256 )[0-9a-f]{12}")  # covers the names recorded


@pytest.fixture(scope="module")
def stored(tmp_path_factory) -> dict[str, Path]:
    """The same two one-system reports with their rankings, in plain/ as sweep writes them and in gz/ as the
    leaderboard stores them (the report deflated, SYSTEM.report.json.gz)."""
    root = tmp_path_factory.mktemp("stored")
    sweep = root / "sweep"
    result = run("sweep", "--systems", ",".join(SYSTEMS), "--benchmarks", "epirec", "--data",
                 f"epirec={MINI_RELEASE}", "--out", sweep, "--resamples", "200", "--quiet")  # fmt: skip
    assert result.exit_code == 0, result.output
    folders = {"plain": root / "plain", "gz": root / "gz"}
    for folder in folders.values():
        folder.mkdir()
    for system in SYSTEMS:
        report = sweep / "epirec" / f"{system}.report.json"
        for name, folder in folders.items():
            shutil.copyfile(report.with_name(f"{system}.rankings.jsonl"), folder / f"{system}.rankings.jsonl")
            if name == "plain":
                shutil.copyfile(report, folder / report.name)
            else:
                (folder / f"{report.name}.gz").write_bytes(deflated(report.read_bytes()))
    return folders


def report(folder: Path, system: str) -> Path:
    """The system's report in `folder`, whichever way it is stored."""
    (path,) = [p for p in report_files(folder) if report_stem(p) == system]
    return path


# Each command that takes a report, on the fts5 (A) and hashing (B) reports of one folder; OUT is a fresh folder.
# fmt: off
COMMANDS = {
    "verify": lambda a, b, out: ["verify", a, "--rankings", rankings_beside(a)[0], "--data", MINI_RELEASE],
    "compare": lambda a, b, out: ["compare", a, b, "--output", out / "comparison.json"],
    "diff": lambda a, b, out: ["diff", a, b, "--data", MINI_RELEASE, "--output", out / "diff.html"],
    "report": lambda a, b, out: ["report", a, "--rankings", rankings_beside(a)[0], "--data", MINI_RELEASE],
    "power": lambda a, b, out: ["power", a, b, "--data", MINI_RELEASE, "--difference", "0.1", "--output",
                                out / "power.json"],
    "gate": lambda a, b, out: ["gate", "--baseline", a, "--candidate", b, "--metric", "recall@3", "--margin", "0.5",
                               "--data", MINI_RELEASE, "--output", out / "gate.json"],
}
# fmt: on


def outcome(stored: dict[str, Path], kind: str, command: str, tmp_path: Path) -> tuple[int, str, dict[str, str]]:
    """Exit code, output and every file written of the command on the `kind` folder, the folder's path and the
    gzip names written as the plain ones (the one thing that differs: the names given)."""
    folder, out = stored[kind], tmp_path / kind
    out.mkdir()
    before = set(folder.iterdir())
    result = run(*COMMANDS[command](report(folder, "fts5"), report(folder, "hashing"), out))
    beside = sorted(set(folder.iterdir()) - before)  # a card written beside the report, by default
    written = [p for p in [*beside, *(q for b in beside for q in b.rglob("*")), *out.rglob("*")] if p.is_file()]

    def same(text: str) -> str:
        text = text.replace(str(folder), "FOLDER").replace(str(out), "OUT").replace(".report.json.gz", ".report.json")
        text = WRITTEN_FINGERPRINT.sub(r"\1", text)
        try:
            value = json.loads(text)
        except json.JSONDecodeError:
            return text
        if isinstance(value, dict):  # a written report's fingerprint covers the names it records; its env the clock
            value.pop("content_sha256", None)
            value.pop("env", None)
        return json.dumps(value, sort_keys=True)

    files = {}
    for path in written:
        name = same(str(path))
        files[name] = same(path.read_text(encoding="utf-8")) if path.suffix in (".md", ".json", ".html") else ""
        if path.suffix == ".png":
            files[name] = path.read_bytes().hex()
    for path in beside:
        shutil.rmtree(path) if path.is_dir() else path.unlink()
    return result.exit_code, same(result.output), files


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_each_command_gives_the_same_output_on_a_plain_and_a_gzip_report(stored, tmp_path, command):
    plain = outcome(stored, "plain", command, tmp_path)
    packed = outcome(stored, "gz", command, tmp_path)
    assert plain[0] in (0, 2), plain[1]  # gate on these two says it cannot decide (exit 2): too few queries
    assert plain[1].strip(), command
    assert packed == plain


def test_report_names_are_known_in_one_place(tmp_path):
    assert [report_stem(n) for n in ("a.report.json", "a.b.report.json.gz", "a.json")] == ["a", "a.b", "a.json"]
    assert [is_report_name(n) for n in ("a.report.json", "a.report.json.gz", "a.report.json.bz2")] == [
        True,
        True,
        False,
    ]
    (tmp_path / "e").mkdir()
    for name in ("x.report.json.gz", "e/y.report.json", "e/y.rankings.jsonl.gz", "e/z.report.json.gz"):
        (tmp_path / name).write_text("{}")
    assert [p.name for p in report_files(tmp_path)] == ["x.report.json.gz"]
    assert [p.name for p in report_files(tmp_path, pattern="*/*")] == ["y.report.json", "z.report.json.gz"]
    assert len(report_files(tmp_path, pattern="**/*")) == 3
    assert rankings_beside(tmp_path / "e" / "y.report.json.gz") == [tmp_path / "e" / "y.rankings.jsonl.gz"]


def test_a_report_stored_both_plain_and_gzip_is_an_error_naming_both(tmp_path):
    for name in ("e/x.report.json", "e/x.report.json.gz"):
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text("{}")
    with pytest.raises(DatasetError) as found:
        report_files(tmp_path, pattern="**/*")
    assert str(found.value) == (
        f"{tmp_path / 'e' / 'x.report.json'}: and {tmp_path / 'e' / 'x.report.json.gz'} are the same report "
        "stored twice; keep one"
    )
    result = run("leaderboard", tmp_path, "--out", tmp_path / "site")
    assert result.exit_code == 1 and "are the same report stored twice; keep one" in result.output
    assert not (tmp_path / "site").exists()
