"""Rankings files in and out: JSONL (EpiRec or generic keys) or TREC runs, strictly checked against a Task."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from memrecall.data.jsonfile import (
    DuplicateKey,
    count_strings_past,
    describe,
    line_problem,
    loads_strict,
    read_regular_bytes,
    split_lines,
)
from memrecall.data.model import Ranking, Task
from memrecall.data.text import decode_utf8
from memrecall.data.trec import fields, group_run_lines
from memrecall.errors import NearMiss, RankingsError, short

EPIREC_KEYS = ("persona_id", "probe_id", "ranked_episode_ids")
GENERIC_KEYS = ("store_id", "query_id", "ranked_ids")
LONG_LINE = 1 << 20  # a JSON line this long has its ranked ids counted (streamed) before it is parsed
RANKED_PREFIXES = ("ranked_ids.item", "ranked_episode_ids.item")


@dataclass(frozen=True)
class RankingRow:
    """One query's ranking as read from a file or returned by a system, with where it came from."""

    where: str
    store_id: str | None
    query_id: str
    doc_ids: tuple[str, ...]


def read_rankings_file(path: Path) -> tuple[str, str]:
    """Read a regular rankings file once (gzip or not): its text and the sha256 of the bytes read."""
    import hashlib

    from memrecall.data.compressed import inflated

    data = read_regular_bytes(path)
    return decode_utf8(path, inflated(path, data)), hashlib.sha256(data).hexdigest()


def store_sizes(task: Task) -> dict[str, int]:
    """How many documents each query's store holds: no ranking of that query may list more ids."""
    sizes = {store_id: len(docs) for store_id, docs in task.stores.items()}
    return {q.id: sizes[q.store_id] for q in task.queries}


def parse_rankings_text(
    text: str, source: str = "rankings", sizes: Mapping[str, int] | None = None
) -> tuple[list[RankingRow], list[str]]:
    """Rows and format problems of rankings text, its format told from the content (JSON lines or TREC run).

    Lines end at '\\n' only. With `sizes` (query id -> store size), a ranking longer than its store
    is refused as soon as it is seen and never kept.
    """
    if text.startswith("\ufeff"):
        raise RankingsError(source, ["the file starts with a UTF-8 byte-order mark; save it as UTF-8 without BOM"])
    lines = split_lines(text)
    number, first = next(((i, s.strip()) for i, s in enumerate(lines, start=1) if s.strip()), (0, ""))
    if not first:
        raise RankingsError(source, ["file holds no rankings"])
    if first.startswith(("#", "//")):
        raise RankingsError(source, [f"line {number} is a comment; rankings files hold only ranking lines"])
    if first.startswith("["):
        raise RankingsError(
            source, ["the file is one JSON array; rankings are JSON lines, one object per line (or a TREC run)"]
        )
    if first.startswith("{"):
        return _read_jsonl(lines, sizes)
    if len(fields(first)) == 6:
        return _read_trec(lines, sizes)
    raise RankingsError(
        source,
        [f"line {number} is neither a JSON object nor a TREC run line 'qid Q0 docid rank score tag': {short(first)}"],
    )


def too_long(query_id: object, count: int, sizes: Mapping[str, int] | None) -> str | None:
    """`ranks N ids but its store holds only M documents`, or None when the ranking fits (or is unknown)."""
    if sizes is None or not isinstance(query_id, str) or query_id not in sizes or count <= sizes[query_id]:
        return None
    return f"{query_id} ranks {count} ids but its store holds only {sizes[query_id]} documents"


def _read_jsonl(lines: list[str], sizes: Mapping[str, int] | None) -> tuple[list[RankingRow], list[str]]:
    """One JSON object per line with EpiRec or generic keys; duplicate keys and over-long rankings refused."""
    limit = max(sizes.values(), default=0) if sizes else None
    rows, problems = [], []
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        where = f"line {number}"
        if limit is not None and len(raw) > LONG_LINE:
            count = count_strings_past(raw, RANKED_PREFIXES, limit)
            if count is not None:
                problems.append(f"{where}: ranks more than {limit} ids, more than any store holds")
                continue
        try:
            obj = loads_strict(raw)
        except json.JSONDecodeError as exc:
            problems.append(line_problem(number, exc))
            continue
        except DuplicateKey as exc:
            problems.append(f"{where}: {exc}")
            continue
        row, problem = row_from_object(obj, where)
        problem = problem or too_long(row.query_id, len(row.doc_ids), sizes)
        if problem:
            problems.append(problem if problem.startswith(where) else f"{where}: {problem}")
        else:
            rows.append(row)
    return rows, problems


def rows_from_dicts(objects: list[dict]) -> tuple[list[RankingRow], list[str]]:
    """Rows from in-memory row dicts (EpiRec or generic keys), each named by its position."""
    found = [row_from_object(obj, f"row {index}") for index, obj in enumerate(objects, start=1)]
    return [row for row, problem in found if problem is None], [problem for _, problem in found if problem]


def row_from_object(obj: object, where: str) -> tuple[RankingRow | None, str | None]:
    """One rankings row from a parsed object, or the problem with it."""
    if not isinstance(obj, dict):
        return None, f"{where}: expected a JSON object, got {type(obj).__name__}"
    keys = EPIREC_KEYS if "probe_id" in obj or "persona_id" in obj else GENERIC_KEYS
    missing = [k for k in keys if k not in obj]
    if missing:
        found = (
            f" (found {', '.join(k for k in GENERIC_KEYS if k in obj)})"
            if keys == EPIREC_KEYS and any(k in obj for k in GENERIC_KEYS)
            else ""
        )
        return None, f"{where}: missing {', '.join(missing)}{found}"
    store, query, ranked = (obj[k] for k in keys)
    for key, value in ((keys[0], store), (keys[1], query)):
        if not isinstance(value, str):
            return None, f"{where}: {key} must be a string, got {describe(value)}"
    if not isinstance(ranked, list):
        return None, f"{where}: {keys[2]} must be an array of strings, got {describe(ranked)}"
    bad = next((d for d in ranked if not isinstance(d, str)), 0)
    if bad != 0:
        return None, f"{where}: {keys[2]} must be an array of strings, got {describe(bad)} in it"
    extra = sorted(set(obj) - set(keys))
    if extra:
        return None, f"{where}: unexpected field(s) {short(', '.join(extra))}"
    return RankingRow(where, store, query, tuple(ranked)), None


def _read_trec(lines: list[str], sizes: Mapping[str, int] | None) -> tuple[list[RankingRow], list[str]]:
    """TREC run lines grouped by qid and ordered as trec_eval orders them (see memrecall.data.trec).

    trec_eval ignores the rank column: documents go by score descending, ties by document id descending.
    """
    grouped, problems = group_run_lines(lines, lambda qid, count: too_long(qid, count, sizes))
    rows = []
    for qid, entries in grouped.items():
        ordered = sorted(entries, key=lambda e: e[1], reverse=True)  # ties: document id descending
        ordered.sort(key=lambda e: -e[0])  # stable: score descending
        rows.append(RankingRow(f"line {min(e[2] for e in entries)}", None, qid, tuple(e[1] for e in ordered)))
    return rows, problems


def check_rows(rows: list[RankingRow], task: Task, require_full: bool) -> tuple[dict[str, Ranking], list[str]]:
    """Match rows to the task's queries: each exactly once, known ids, no repeats, full if required."""
    queries = {q.id: q for q in task.queries}
    seen: dict[str, str] = {}
    store_ids_of: dict[str, set[str]] = {}
    explain_query = None
    problems, rankings, partial = [], {}, []
    for row in rows:
        query = queries.get(row.query_id)
        if query is None:
            explain_query = explain_query or NearMiss(queries)
            problems.append(
                f"{row.where}: unknown query {short(repr(row.query_id))}{explain_query.explain(row.query_id)}"
            )
            continue
        if row.query_id in seen:
            problems.append(f"{row.where}: query {row.query_id!r} already ranked at {seen[row.query_id]}")
            continue
        seen[row.query_id] = row.where
        if row.store_id is not None and row.store_id != query.store_id:
            problems.append(
                f"{row.where}: {row.query_id!r} belongs to store {query.store_id!r}, not {short(repr(row.store_id))}"
                + NearMiss([query.store_id]).explain(row.store_id)
            )
            continue
        store = task.stores[query.store_id]
        if len(row.doc_ids) > len(store):
            problems.append(f"{row.where}: {too_long(row.query_id, len(row.doc_ids), {row.query_id: len(store)})}")
            continue
        if query.store_id not in store_ids_of:
            store_ids_of[query.store_id] = {d.id for d in store}
        store_ids = store_ids_of[query.store_id]
        repeated = sorted(d for d, count in Counter(row.doc_ids).items() if count > 1)
        unknown = [d for d in row.doc_ids if d not in store_ids]
        absent = sorted(store_ids - set(row.doc_ids))
        if repeated:
            problems.append(f"{row.where}: {row.query_id} ranks {short(', '.join(repeated))} more than once")
        if unknown:
            hint = NearMiss(store_ids).explain(unknown[0])
            shown = short(", ".join(repr(d) for d in unknown[:5]))
            problems.append(f"{row.where}: {row.query_id} ranks unknown id(s) {shown}{hint}")
        if require_full and absent and not unknown:
            partial.append(
                f"{row.where}: {row.query_id} ranks {len(row.doc_ids)} of {len(store_ids)} and leaves out "
                f"{len(absent)} document(s): " + short(", ".join(absent[:5]))
            )
        if repeated or unknown or (require_full and absent):
            continue
        count = len(row.doc_ids)
        rankings[row.query_id] = Ranking(row.query_id, row.doc_ids, tuple(float(count - i) for i in range(count)))
    if partial:
        problems.append(partial_rankings_problem(partial, task.name))
    missing = [q.id for q in task.queries if q.id not in seen]
    problems.extend(f"missing query {q}" for q in missing)
    return rankings, problems


def partial_rankings_problem(partial: list[str], task_name: str) -> str:
    """One line for every ranking that stops short of its store: the count, the rule and the first one."""
    return (
        f"{len(partial)} ranking(s) leave out documents of their store; {task_name} needs every document "
        f"of the store ranked, best first (first: {partial[0]})"
    )


def rankings_rows(task: Task, rankings: dict[str, Ranking], keys: tuple[str, str, str] = GENERIC_KEYS) -> list[dict]:
    """One rankings-JSONL row per query, in task order, with the benchmark's row keys."""
    store_key, query_key, ranked_key = keys
    return [{store_key: q.store_id, query_key: q.id, ranked_key: list(rankings[q.id].doc_ids)} for q in task.queries]


def rankings_sha256(task: Task, rankings: dict[str, Ranking], keys: tuple[str, str, str] = GENERIC_KEYS) -> str:
    """sha256 of the rankings in canonical JSONL form: the same for a run and its exported file."""
    import hashlib

    from memrecall.io import jsonl_line

    text = "".join(jsonl_line(row) + "\n" for row in rankings_rows(task, rankings, keys))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
