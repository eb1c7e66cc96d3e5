import copy
import json

import pytest
from conftest import MINI_RELEASE

from memrecall.data.loaders.epirec import epirec_task, load_epirec
from memrecall.errors import DatasetError


@pytest.fixture
def release():
    return json.loads(MINI_RELEASE.read_text(encoding="utf-8"))


def test_loads_one_store_per_persona_and_one_query_per_probe():
    task = load_epirec(MINI_RELEASE)
    assert sorted(task.stores) == ["t01", "t02"]
    assert [d.id for d in task.stores["t01"]] == ["t01e01", "t01e02", "t01e03", "t01e04"]
    assert len(task.queries) == 24
    first = task.queries[0]
    assert (first.id, first.store_id, first.targets) == ("t01e01-f", "t01", frozenset({"t01e01"}))
    assert task.name == "epirec-mini" and len(task.source_sha256) == 64


def test_strata_carry_probe_type_band_valence_and_age_bucket():
    by_id = {q.id: q for q in load_epirec(MINI_RELEASE).queries}
    assert dict(by_id["t01e02-x"].strata) == {
        "probe_type": "reflective_explicit",
        "intensity_band": "high",
        "valence": "positive",
        "age_bucket": "long",
    }
    # 2025-06-28T08:00Z is 2.2 days before the reference time
    assert by_id["t01e04-i"].strata["age_bucket"] == "short"
    # 2025-06-25T07:30+09:00 is 5.7 days before; 2025-06-25T21:00+09:00 is 5.1 days before
    assert by_id["t02e03-f"].strata["age_bucket"] == "short"


def test_age_bucket_boundaries(release):
    moments = {
        "2025-06-24T12:00:00+00:00": "short",
        "2025-06-24T11:59:59+00:00": "medium",
        "2025-05-31T12:00:00+00:00": "medium",
        "2025-05-31T11:59:59+00:00": "long",
    }
    for moment, bucket in moments.items():
        data = copy.deepcopy(release)
        data["personas"][0]["episodes"][0]["date_time"] = moment
        task = epirec_task(data, "x.json", "0" * 64)
        assert task.queries[0].strata["age_bucket"] == bucket, moment


@pytest.mark.parametrize(
    "mutate, where",
    [
        (
            lambda d: d["personas"][1]["episodes"][2].__setitem__("date_time", "2025-06-25 07:30"),
            "personas[1].episodes[2].date_time",
        ),
        (lambda d: d["personas"][0]["episodes"][3].pop("text"), "personas[0].episodes[3]: missing field 'text'"),
        (
            lambda d: d["personas"][0]["episodes"][1].__setitem__("intensity_band", "extreme"),
            "personas[0].episodes[1].intensity_band: 'extreme' is not one of",
        ),
        (
            lambda d: d["personas"][0]["episodes"][0]["probes"][1].__setitem__("type", "emotional"),
            "personas[0].episodes[0].probes[1].type",
        ),
        (lambda d: d.__setitem__("personas", {}), "personas: expected an array of personas, got an object"),
        (lambda d: d["personas"][1].__setitem__("persona_id", "t01"), "duplicate persona_id 't01'"),
        (lambda d: d.pop("reference_now"), "missing field 'reference_now'"),
        (
            lambda d: d["personas"][0]["episodes"][0]["probes"][0].__setitem__("query", 7),
            "personas[0].episodes[0].probes[0].query: expected a string, got a number",
        ),
    ],
)
def test_malformed_release_names_the_json_path(release, mutate, where):
    mutate(release)
    with pytest.raises(DatasetError) as caught:
        epirec_task(release, "broken.json", "0" * 64)
    assert str(caught.value).startswith("broken.json: ")
    assert where in str(caught.value)


def test_invalid_json_reports_line_and_column(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('{\n  "reference_now": "x",\n  oops\n}', encoding="utf-8")
    with pytest.raises(DatasetError, match=r"bad.json: line 3 column 3 \(byte 28\): invalid JSON"):
        load_epirec(path)


def test_missing_file_is_a_dataset_error(tmp_path):
    with pytest.raises(DatasetError, match="cannot read file"):
        load_epirec(tmp_path / "absent.json")


def test_label_disputed_episodes_leave_band_and_valence_groupings(release):
    from memrecall.data.model import Ranking
    from memrecall.scoring.policy import score_task

    release["personas"][0]["episodes"][1]["label_disputed"] = True
    task = epirec_task(release, "x.json", "0" * 64)
    disputed = {q.id: q for q in task.queries}["t01e02-f"]
    assert "intensity_band" not in disputed.strata and disputed.strata["label_disputed"] == "true"
    perfect = {q.id: Ranking(q.id, (next(iter(q.targets)),), (1.0,)) for q in task.queries}
    results = score_task(task, perfect)
    assert results["left_out_of_grouping"] == {"by_probe_type_x_intensity_band": 3}
    assert results["by_probe_type_x_intensity_band"]["factual/high"]["n"] == 3
    assert results["by_probe_type_x_age_bucket"]["factual/long"]["n"] == 5
    release["personas"][0]["episodes"][1]["label_disputed"] = "yes"
    with pytest.raises(DatasetError, match=r"episodes\[1\].label_disputed: expected true or false"):
        epirec_task(release, "x.json", "0" * 64)
