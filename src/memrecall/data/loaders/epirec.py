"""Load an EpiRec release JSON into a Task: one store per persona, one query per probe."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

from memrecall.data.jsonfile import describe, field, file_sha256, read_json
from memrecall.data.loaders.epirec_fields import (
    INTENSITY_BANDS,
    PROBE_TYPES,
    VALENCES,
    age_bucket,
    age_days,
    parse_timestamp,
)
from memrecall.data.model import JudgedQuery, LabelledDocument, Task
from memrecall.errors import DatasetError


def load_epirec(path: str | Path) -> Task:
    """Read an EpiRec release file; raise DatasetError naming the JSON path of any problem."""
    path = Path(path)
    return epirec_task(read_json(path), str(path), file_sha256(path))


def epirec_task(release: Any, source: str, sha256: str) -> Task:
    """Turn a parsed EpiRec release into a Task; `source` names it in errors."""
    if not isinstance(release, dict):
        raise DatasetError(source, "$", "expected the release object at the top level")
    reference = _timestamp(source, field(source, release, "reference_now", "", str, "a timestamp"), "reference_now")
    personas = field(source, release, "personas", "", list, "an array of personas")
    stores: dict[str, tuple[LabelledDocument, ...]] = {}
    queries: list[JudgedQuery] = []
    seen_probes: set[str] = set()
    for p_index, persona in enumerate(personas):
        p_path = f"personas[{p_index}]"
        if not isinstance(persona, dict):
            raise DatasetError(source, p_path, "expected a persona object")
        persona_id = field(source, persona, "persona_id", p_path, str, "a string")
        if persona_id in stores:
            raise DatasetError(source, f"{p_path}.persona_id", f"duplicate persona_id {persona_id!r}")
        episodes = field(source, persona, "episodes", p_path, list, "an array of episodes")
        if not episodes:
            raise DatasetError(source, f"{p_path}.episodes", "persona has no episodes")
        documents = []
        for e_index, episode in enumerate(episodes):
            e_path = f"{p_path}.episodes[{e_index}]"
            document, probes = _episode(source, episode, e_path, persona_id, reference)
            if any(d.id == document.id for d in documents):
                raise DatasetError(source, f"{e_path}.id", f"duplicate episode id {document.id!r}")
            documents.append(document)
            for query in probes:
                if query.id in seen_probes:
                    raise DatasetError(source, e_path, f"duplicate probe id {query.id!r}")
                seen_probes.add(query.id)
                queries.append(query)
        stores[persona_id] = tuple(documents)
    name = release.get("name", "epirec")
    version = release.get("version", "unknown")
    return Task(str(name), str(version), sha256, stores, tuple(queries), reference)


def _episode(
    source: str, episode: Any, path: str, persona_id: str, reference: datetime
) -> tuple[LabelledDocument, list[JudgedQuery]]:
    """One episode as a Document plus its probes as Queries."""
    if not isinstance(episode, dict):
        raise DatasetError(source, path, "expected an episode object")
    episode_id = field(source, episode, "id", path, str, "a string")
    text = field(source, episode, "text", path, str, "a string")
    moment = _timestamp(source, field(source, episode, "date_time", path, str, "a timestamp"), f"{path}.date_time")
    band = _choice(source, episode, "intensity_band", path, INTENSITY_BANDS)
    valence = _choice(source, episode, "valence", path, VALENCES)
    emotion = field(source, episode, "emotion", path, str, "a string")
    days = age_days(moment, reference)
    if days < 0:
        raise DatasetError(
            source,
            f"{path}.date_time",
            f"episode {episode_id!r} is dated {moment.isoformat()}, after the release's reference_now "
            f"{reference.isoformat()}; an episode cannot be younger than the time it is asked about",
        )
    bucket = age_bucket(days)
    disputed = episode.get("label_disputed", False)
    if not isinstance(disputed, bool):
        raise DatasetError(source, f"{path}.label_disputed", f"expected true or false, got {describe(disputed)}")
    labels = {"emotion": emotion, "intensity_band": band, "valence": valence, "age_bucket": bucket}
    document = LabelledDocument(episode_id, text, moment, labels)
    queries = []
    for q_index, probe in enumerate(field(source, episode, "probes", path, list, "an array of probes")):
        q_path = f"{path}.probes[{q_index}]"
        if not isinstance(probe, dict):
            raise DatasetError(source, q_path, "expected a probe object")
        probe_id = field(source, probe, "id", q_path, str, "a string")
        probe_type = _choice(source, probe, "type", q_path, PROBE_TYPES)
        text_q = field(source, probe, "query", q_path, str, "a string")
        strata = {"probe_type": probe_type, "intensity_band": band, "valence": valence, "age_bucket": bucket}
        if disputed:
            strata = {"probe_type": probe_type, "age_bucket": bucket, "label_disputed": "true"}
        queries.append(JudgedQuery(probe_id, persona_id, text_q, reference, frozenset({episode_id}), strata))
    return document, queries


def _timestamp(source: str, value: str, path: str) -> datetime:
    """Parse an ISO-8601 timestamp with an explicit offset or raise at `path`."""
    moment = parse_timestamp(value)
    if moment is None:
        raise DatasetError(source, path, f"{value!r} is not an ISO-8601 timestamp with a UTC offset")
    return moment


def _choice(source: str, obj: dict, key: str, path: str, allowed: tuple[str, ...]) -> str:
    """A string field restricted to `allowed` values."""
    value = field(source, obj, key, path, str, "a string")
    if value not in allowed:
        raise DatasetError(source, f"{path}.{key}", f"{value!r} is not one of {', '.join(allowed)}")
    return value
