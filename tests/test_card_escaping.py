"""Every data or user string on a card goes through one escaping layer: a generator over (field x payload)."""

import copy
import json
import re

import pytest
from conftest import FIXTURES, MINI_RELEASE, run

from memrecall.reports.cards import card
from memrecall.reports.escape import html_attr, html_text, markdown_cell, markdown_code, markdown_text

PAYLOADS = {
    "newline": "a\nb\r\nc",
    "pipe": "a | b",
    "backtick": "`code` ``x``",
    "script": "<script>alert(1)</script>",
    "image": "![img](http://x/y.png)",
    "heading": "# heading",
    "all": "x\n# heading\n| a | b |\n![img](http://x/y.png)<script>`",
}


def rename(mapping: dict, old: str, new: str) -> dict:
    """The dict with key `old` renamed to `new`, order kept."""
    return {new if key == old else key: value for key, value in mapping.items()}


def set_system(report, value):
    content = report["content"]
    content["system_order"] = [value]
    content["systems"] = rename(content["systems"], "fts5", value)


def set_question_type(report, value):
    results = report["content"]["systems"]["fts5"]["results"]
    results["by_question_type"] = rename(results["by_question_type"], "multi-session", value)


def set_strategy(report, value):
    content = report["content"]
    content["system_order"] = [value if n == "hashing" else n for n in content["system_order"]]
    content["systems"] = rename(content["systems"], "hashing", value)


def set_mode(report, value):
    content = report["content"]
    content["system_order"] = [value]
    content["systems"] = rename(content["systems"], "fts5", value)


def set_category(report, value):
    entry = report["content"]["systems"]["fts5"]
    entry["results"]["by_category"] = rename(entry["results"]["by_category"], "2-temporal", value)
    entry["sufficiency"]["by_group"] = rename(entry["sufficiency"]["by_group"], "2-temporal", value)


def set_evidence_issue(report, value):
    counts = report["content"]["dataset"]["evidence_issue_counts"]
    report["content"]["dataset"]["evidence_issue_counts"] = rename(counts, "split", value)


def set_task(key):
    def change(report, value):
        report["content"]["task"][key] = value

    return change


def set_model(key):
    def change(report, value):
        report["content"]["model"] = {"id": "m", "weights_sha256": "0" * 64, key: value}

    return change


def set_hardest(key):
    def change(report, value, hardest):
        hardest[0][key] = value

    return change


def set_hardest_type(report, value, hardest):
    hardest[0]["strata"] = {"question_type": value}


def set_signer(report, value):
    report["signatures"] = [{"key_id": value, "public_key": value, "signature": value}]


FIELDS = {
    "systems": {
        "task name": set_task("name"),
        "release version": set_task("version"),
        "data sha256": set_task("source_sha256"),
        "system name": set_system,
        "question type": set_question_type,
        "model id": set_model("id"),
        "weights sha256": set_model("weights_sha256"),
        "hardest query id": set_hardest("query_id"),
        "hardest query text": set_hardest("text"),
        "hardest question type": set_hardest_type,
        "signer key id": set_signer,
    },
    "baseline": {"strategy name": set_strategy, "release version": set_task("version")},
    "harness": {"mode name": set_mode, "category": set_category, "evidence issue": set_evidence_issue},
}


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    """One report of each card layout: a run on LongMemEval, a baseline on EpiRec, a LoCoMo harness run."""
    out = tmp_path_factory.mktemp("reports")
    commands = {
        "systems": ["run", "longmemeval", "--system", "fts5", "--data", FIXTURES / "lme_format_mini.json"],
        "baseline": ["baseline", "--data", MINI_RELEASE, "--strategies", "recency,hashing"],
        "harness": ["locomo", "--data", FIXTURES / "locomo_mini.json", "--modes", "fts5", "--coverage-k", "5"],
    }
    for name, command in commands.items():
        result = run(*command, "--quiet", "--output", out / f"{name}.json")
        assert result.exit_code == 0, result.output
    return {name: json.loads((out / f"{name}.json").read_text()) for name in commands}


def render(report, hardest, folder, monkeypatch) -> list[str]:
    """The card's lines (figures stubbed: their rendering is not what is tested here)."""
    monkeypatch.setattr(card, "epirec_figures", lambda r, out: [out / "recall_by_probe_type.png"])
    monkeypatch.setattr(card, "harness_figures", lambda r, out: [out / "recall_curve.png"])
    card.write_report_card(report, folder, hardest, state="fingerprint only")
    return (folder / "README.md").read_text().splitlines()


def cells(line: str) -> int:
    """Unescaped `|` in a table line (a backslash escapes the next character)."""
    count, index = 0, 0
    while index < len(line):
        if line[index] == "\\":
            index += 2
            continue
        count += line[index] == "|"
        index += 1
    return count


def shape(lines: list[str]) -> list[tuple[str, int]]:
    """Each line's kind (heading level, table row with its cell count, image, text) - what an injection changes."""
    out = []
    for line in lines:
        if line.startswith("#"):
            out.append(("heading", len(line) - len(line.lstrip("#"))))
        elif line.startswith("|"):
            out.append(("table", cells(line)))
        elif line.startswith("!["):
            out.append(("image", 0))
        else:
            out.append(("text", 0))
    return out


CASES = [(layout, field, payload) for layout, fields in FIELDS.items() for field in fields for payload in PAYLOADS]


@pytest.mark.parametrize("layout,field,payload", CASES, ids=["-".join(c) for c in CASES])
def test_a_payload_in_any_field_leaves_the_card_structure_intact(
    reports, layout, field, payload, tmp_path, monkeypatch
):
    change = FIELDS[layout][field]
    takes_hardest = field.startswith("hardest")
    clean_hardest = [
        {"query_id": "q1", "store_id": "s", "strata": {"question_type": "t"}, "text": "t", "best_rank": None}
    ]

    def made(value):
        report, hardest = copy.deepcopy(reports[layout]), copy.deepcopy(clean_hardest)
        change(report, value, hardest) if takes_hardest else change(report, value)
        return report, hardest

    clean = render(*made("PLAIN"), tmp_path / "clean", monkeypatch)
    lines = render(*made(PAYLOADS[payload]), tmp_path / "payload", monkeypatch)
    text = "\n".join(lines)
    assert "PLAIN" in "\n".join(clean)  # the field does reach the card
    assert shape(lines) == shape(clean)
    assert "<script" not in text.lower()
    assert not re.search(r"(?<!\\)!\[[^\]]*(?<!\\)\]\(http", text)
    assert not any(re.match(r"#+ heading", line) for line in lines)
    assert "`code`" not in text.replace("\\`", "")


@pytest.mark.parametrize("payload", list(PAYLOADS.values()))
def test_escapes_never_leave_a_line_break_a_bare_pipe_or_a_tag(payload):
    for escape in (markdown_cell, markdown_text, markdown_code):
        out = escape(payload)
        assert "\n" not in out and "\r" not in out and "<" not in out
        assert cells(out) == 0
    assert "<" not in html_text(payload) and '"' not in html_attr(payload + '"') and "\n" not in html_attr(payload)


def test_escaped_text_keeps_plain_words_and_numbers_readable():
    assert markdown_cell("recall@3 0.1.0 multi-session reflective_explicit") == (
        "recall@3 0.1.0 multi-session reflective_explicit"
    )
    assert markdown_text("1. item") == "1\\. item" and markdown_text("- item") == "\\- item"
    assert markdown_code("a275f4549aec") == "`a275f4549aec`" and markdown_code("a`b") == "a\\`b"


@pytest.mark.parametrize("name", ["[/]x", "[red]x[/red]", "[bold"])
def test_a_system_name_that_looks_like_console_markup_is_printed_as_it_is(tmp_path, name):
    from rich.console import Console

    from memrecall.reports.exports.tables import results_table

    row = {"recall@3": {"value": 0.5, "ci_low": 0.25, "ci_high": 0.75}, "n": 4}
    console = Console(width=120, record=True)
    console.print(results_table(f"title {name}", [(name, "overall", row)], ["recall@3"]))
    text = console.export_text()
    assert text.count(name) == 2  # in the title and in the row
