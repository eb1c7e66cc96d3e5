"""Any checkout in the EpiRec card's format validates; memrecall's own rules apply only where declared."""

import hashlib
import json

import pytest
from conftest import run

THINGS = ["kettle", "kite", "bell"]
LATER = ["grey evening", "late morning", "dark night"]


def card_release() -> dict:
    """A small release in exactly the card's format, with free-text emotions and extra top-level fields."""
    personas = []
    for p in (1, 2):
        episodes = []
        for e in (1, 2, 3):
            eid = f"p{p:02d}e{e:02d}"
            episodes.append(
                {
                    "id": eid,
                    "session": e,
                    "date_time": f"2025-0{e}-1{p}T09:30:00Z",
                    "text": f"Persona {p} wrote entry {e} about the lighthouse walk and the {THINGS[e - 1]}.",
                    "emotion": ["mild annoyance", "quiet pride", "calm"][e - 1],
                    "intensity_band": ["mild", "high", "low"][e - 1],
                    "valence": ["negative", "positive", "neutral"][e - 1],
                    "probes": [
                        {"id": f"{eid}-f", "type": "factual", "query": f"What did persona {p} carry on walk {e}?"},
                        {"id": f"{eid}-x", "type": "reflective_explicit", "query": f"I felt something on walk {e}."},
                        {"id": f"{eid}-i", "type": "reflective_implicit", "query": f"That {LATER[e - 1]} comes back."},
                    ],
                }
            )
        personas.append({"persona_id": f"p{p:02d}", "episodes": episodes})
    return {
        "reference_now": "2025-06-30T12:00:00Z",
        "personas": personas,
        "construction": "LLM-assisted, author-supervised",
        "license": "CC-BY-4.0",
    }


def write_card_checkout(root, release: dict):
    data = root / "data"
    data.mkdir(parents=True)
    text = json.dumps(release, indent=2)
    (data / "epirec_v1.json").write_text(text, encoding="utf-8")
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    (data / "SHA256SUMS").write_text(f"{digest}  epirec_v1.json\n", encoding="utf-8")
    croissant = {
        "@context": {"dct": "http://purl.org/dc/terms/", "@vocab": "https://schema.org/"},
        "@type": "sc:Dataset",
        "dct:conformsTo": ["http://mlcommons.org/croissant/1.1"],
        "name": "EpiRec",
        "distribution": [{"@type": "cr:FileObject", "name": "epirec_v1.json", "sha256": digest}],
    }
    (data / "croissant.json").write_text(json.dumps(croissant), encoding="utf-8")
    return root


@pytest.fixture
def checkout(tmp_path):
    return write_card_checkout(tmp_path / "upstream", card_release())


def test_a_bare_card_format_checkout_has_no_violations(checkout):
    result = run("validate", "--root", checkout)
    assert result.exit_code == 0, result.output
    assert "valid: 0 violations" in result.output
    assert "not checked: epirec_v1.json: memrecall's own extra spec rules" in result.output
    assert "EpiRec v1.0 personas: 2  episodes: 6  probes: 18" in result.output


def test_removing_a_required_field_gives_exactly_one_named_violation(tmp_path):
    release = card_release()
    del release["personas"][1]["episodes"][2]["valence"]
    root = write_card_checkout(tmp_path / "broken", release)
    result = run("validate", "--root", root)
    assert result.exit_code == 1
    violations = [line for line in result.output.splitlines() if line.startswith("violation:")]
    assert violations == [
        "violation: data/epirec_v1.json: personas[1].episodes[2]: schema: 'valence' is a required property"
    ]


def test_build_check_audit_and_labels_work_on_the_checkout(checkout, tmp_path):
    check = run("build", "--root", checkout, "--check")
    assert check.exit_code == 0 and "agrees with data/SHA256SUMS and data/croissant.json" in check.output
    refused = run("build", "--root", checkout)
    assert refused.exit_code == 1 and "declares no memrecall rules" in refused.output
    audit = run("audit", "--root", checkout, "--output", tmp_path / "amb.json")
    assert audit.exit_code == 0, audit.output
    assert json.loads((tmp_path / "amb.json").read_text())["counts"]["by_probe_type"]
    sample = run("labels", "sample", "--root", checkout, "--size", "4", "--output", tmp_path / "s.csv")
    assert sample.exit_code == 0 and "sampled 4 episodes" in sample.output


def test_a_changed_release_is_caught_by_build_check(checkout):
    path = checkout / "data" / "epirec_v1.json"
    path.write_text(path.read_text().replace("lighthouse", "harbour"), encoding="utf-8")
    result = run("build", "--root", checkout, "--check")
    assert result.exit_code == 1 and "data/SHA256SUMS: sha256 for epirec_v1.json" in result.output


@pytest.mark.parametrize(
    "declaration",
    [
        {"conformsTo": "http://mlcommons.org/croissant/1.1"},
        {"dct:conformsTo": "http://mlcommons.org/croissant/1.1"},
        {"conformsTo": ["http://mlcommons.org/croissant/1.0", "http://mlcommons.org/croissant/1.1"]},
        {"dct:conformsTo": [{"@id": "http://mlcommons.org/croissant/1.1"}]},
    ],
)
def test_every_equivalent_croissant_declaration_is_accepted(declaration):
    from memrecall.corpus.validate import declares_croissant

    assert declares_croissant(declaration)
    assert not declares_croissant({"conformsTo": "http://mlcommons.org/croissant/1.0"})


def test_our_own_rules_still_apply_where_the_checkout_declares_them(tmp_path):
    from corpus_factory import persona, write_checkout

    bad = persona(1)
    bad["episodes"][0]["text"] = "short"
    root = write_checkout(tmp_path / "ours", [bad, persona(2)])
    result = run("validate", "--root", root)
    assert result.exit_code == 1 and "text has 1 words, expected 15 to 60" in result.output


def _with_implicit(query: str, text: str | None = None) -> dict:
    """The card release with p01e01's implicit probe (and, when given, its episode text) replaced."""
    release = card_release()
    episode = release["personas"][0]["episodes"][0]
    episode["probes"][2]["query"] = query
    if text is not None:
        episode["text"] = text
    return release


# The v1.0 format's own words: what memrecall's stricter v2 lists flag, the format allows.
FORMAT_ALLOWS = {
    "long is no emotion word": ("That long evening comes back.", None),
    "day is on the stop list": (
        "That grey day comes back.",
        "Persona 1 spent the day by the lighthouse and the kettle.",
    ),
    "three and first are stop words": (
        "The first three of them.",
        "Persona 1 wrote three things first, at the kettle.",
    ),
}
FORMAT_REFUSES = {
    "an emotion word": ("I was so happy.", None, "p01e01-i: implicit probe uses emotion-vocabulary words: happy"),
    "a shared stem": (
        "The lighthouses again.",
        None,
        "p01e01-i: implicit probe shares content-word stems with its episode: lighth",
    ),
}


@pytest.mark.parametrize("case", sorted(FORMAT_ALLOWS))
def test_a_format_checkout_is_held_to_the_formats_own_vocabularies(case, tmp_path):
    from memrecall.corpus.checks import MEMRECALL_VOCABULARIES, _implicit_probe_rules

    query, text = FORMAT_ALLOWS[case]
    release = _with_implicit(query, text)
    result = run("validate", "--root", write_card_checkout(tmp_path / "up", release))
    assert result.exit_code == 0, result.output
    episode = release["personas"][0]["episodes"][0]
    strict = _implicit_probe_rules(episode["probes"][2], episode["text"], MEMRECALL_VOCABULARIES)
    assert strict != []  # memrecall's own releases keep the stricter lists


@pytest.mark.parametrize("case", sorted(FORMAT_REFUSES))
def test_a_planted_violation_is_caught_and_named_under_the_format_rule(case, tmp_path):
    query, text, expected = FORMAT_REFUSES[case]
    result = run("validate", "--root", write_card_checkout(tmp_path / "up", _with_implicit(query, text)))
    assert result.exit_code == 1
    assert f"violation: epirec_v1.json: p01: {expected}" in result.output
    assert "1 violation(s)" in result.output


def test_the_format_vocabularies_are_upstreams_lists():
    from memrecall.corpus.rules import _word_list

    emotion, stop = _word_list("format_v1_emotion_vocabulary.txt"), _word_list("format_v1_stopwords.txt")
    assert (len(emotion), len(stop)) == (103, 178)
    assert {"happy", "tears", "felt", "mourning"} <= emotion and "long" not in emotion
    assert {"day", "week", "one", "first", "three", "i'm", "forty"} <= stop and "them" not in stop


def test_the_bundled_v1_release_under_the_literal_format_rule(tmp_path):
    """Our v1.0 copy predates upstream's last persona edits: the format's literal rule finds these seven."""
    from pathlib import Path

    release = json.loads((Path(__file__).resolve().parents[1] / "data" / "epirec_v1.json").read_text("utf-8"))
    result = run("validate", "--root", write_card_checkout(tmp_path / "up", release))
    found = sorted(line.split(": ")[3] for line in result.output.splitlines() if line.startswith("violation:"))
    assert found == ["p02e08-i", "p07e05-i", "p07e08-i", "p10e10-i", "p10e11-i", "p10e12-i", "p10e13-i"]
