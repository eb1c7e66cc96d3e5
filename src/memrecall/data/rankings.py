"""Rankings files in and out: JSONL (EpiRec or generic keys) or TREC runs, strictly checked against a Task."""

from __future__ import annotations

import json
import math
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from memrecall.data.model import Ranking, Task
from memrecall.errors import RankingsError, short

EPIREC_KEYS = ("persona_id", "probe_id", "ranked_episode_ids")
GENERIC_KEYS = ("store_id", "query_id", "ranked_ids")


@dataclass(frozen=True)
class RankingRow:
    """One query's ranking as read from a file or returned by a system, with where it came from."""

    where: str
    store_id: str | None
    query_id: str
    doc_ids: tuple[str, ...]


def read_rankings_file(path: Path) -> tuple[str, str]:
    """Read a rankings file once: its text and the sha256 of the bytes read."""
    import hashlib

    try:
        data = Path(path).read_bytes()
        text = data.decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise RankingsError(str(path), [f"cannot read file: {short(exc)}"]) from None
    return text, hashlib.sha256(data).hexdigest()


def parse_rankings_text(text: str, source: str = "rankings") -> tuple[list[RankingRow], list[str]]:
    """Rows and format problems of rankings text, its format told from the content (JSON lines or TREC run)."""
    if text.startswith("\ufeff"):
        raise RankingsError(source, ["the file starts with a UTF-8 byte-order mark; save it as UTF-8 without BOM"])
    lines = text.splitlines()
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
        return _read_jsonl(lines)
    if len(first.split()) == 6:
        return _read_trec(lines)
    raise RankingsError(
        source,
        [f"line {number} is neither a JSON object nor a TREC run line 'qid Q0 docid rank score tag': {short(first)}"],
    )


def _read_jsonl(lines: list[str]) -> tuple[list[RankingRow], list[str]]:
    """One JSON object per line with EpiRec or generic keys."""
    parsed, problems = [], []
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            parsed.append((f"line {number}", json.loads(raw)))
        except json.JSONDecodeError as exc:
            problems.append(f"line {number}: not valid JSON ({exc.msg} at column {exc.colno})")
    rows, found = _rows_from(parsed)
    return rows, sorted(problems + found, key=_line_number)


def rows_from_dicts(objects: list[dict]) -> tuple[list[RankingRow], list[str]]:
    """Rows from in-memory row dicts (EpiRec or generic keys), each named by its position."""
    return _rows_from([(f"row {index}", obj) for index, obj in enumerate(objects, start=1)])


def _rows_from(objects: list[tuple[str, object]]) -> tuple[list[RankingRow], list[str]]:
    """Rows from (where, object) pairs, and the problem with each object that is not a ranking row."""
    rows, problems = [], []
    for where, obj in objects:
        row, problem = row_from_object(obj, where)
        if problem:
            problems.append(problem)
        else:
            rows.append(row)
    return rows, problems


def _line_number(problem: str) -> int:
    """The N of a `line N: ...` problem, to keep problems in file order."""
    return int(problem.split(":", 1)[0].split()[1])


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
    if not isinstance(store, str) or not isinstance(query, str):
        return None, f"{where}: {keys[0]} and {keys[1]} must be strings"
    if not isinstance(ranked, list) or not all(isinstance(d, str) for d in ranked):
        return None, f"{where}: {keys[2]} must be an array of strings"
    extra = sorted(set(obj) - set(keys))
    if extra:
        return None, f"{where}: unexpected field(s) {short(', '.join(extra))}"
    return RankingRow(where, store, query, tuple(ranked)), None


def _read_trec(lines: list[str]) -> tuple[list[RankingRow], list[str]]:
    """`qid Q0 docid rank score tag` lines, grouped by qid and ordered as trec_eval orders them.

    trec_eval ignores the rank column: documents go by score descending, ties by document id
    descending. Scores must be finite numbers.
    """
    grouped: dict[str, list[tuple[float, str, int]]] = {}
    problems = []
    for number, raw in enumerate(lines, start=1):
        parts = raw.split()
        if not parts:
            continue
        if len(parts) != 6:
            problems.append(f"line {number}: expected 6 fields 'qid Q0 docid rank score tag', got {len(parts)}")
            continue
        qid, _, docid, rank, score, _ = parts
        try:
            int(rank)
            value = float(score)
        except ValueError:
            problems.append(f"line {number}: rank must be an integer and score a number")
            continue
        if not math.isfinite(value):
            problems.append(f"line {number}: score must be a finite number, got {short(score)}")
            continue
        grouped.setdefault(qid, []).append((value, docid, number))
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
    problems, rankings, partial = [], {}, []
    for row in rows:
        query = queries.get(row.query_id)
        if query is None:
            problems.append(f"{row.where}: unknown query {short(repr(row.query_id))}")
            continue
        if row.query_id in seen:
            problems.append(f"{row.where}: query {row.query_id} already ranked at {seen[row.query_id]}")
            continue
        seen[row.query_id] = row.where
        if row.store_id is not None and row.store_id != query.store_id:
            problems.append(f"{row.where}: {row.query_id} belongs to store {query.store_id}, not {short(row.store_id)}")
            continue
        if query.store_id not in store_ids_of:
            store_ids_of[query.store_id] = {d.id for d in task.stores[query.store_id]}
        store_ids = store_ids_of[query.store_id]
        repeated = sorted(d for d, count in Counter(row.doc_ids).items() if count > 1)
        unknown = [d for d in row.doc_ids if d not in store_ids]
        absent = sorted(store_ids - set(row.doc_ids))
        if repeated:
            problems.append(f"{row.where}: {row.query_id} ranks {short(', '.join(repeated))} more than once")
        if unknown:
            problems.append(f"{row.where}: {row.query_id} ranks unknown id(s) {short(', '.join(unknown[:5]))}")
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


def rankings_hint(problems: list[str], rows: int, benchmark: str) -> str | None:
    """A likely cause when every line fails the same way: the wrong key set or the wrong benchmark."""
    line_problems = [p for p in problems if p.startswith("line")]
    if line_problems and all("missing ranked_episode_ids (found ranked_ids" in p for p in line_problems):
        return (
            "every line lacks ranked_episode_ids; found ranked_ids: "
            "is this a LongMemEval/LoCoMo rankings file? use --benchmark"
        )
    unknown = sum("unknown query" in p for p in problems)
    if rows and unknown == rows:
        return f"no query id is one of {benchmark}'s: are these rankings for another benchmark? use --benchmark"
    return None


def rankings_rows(task: Task, rankings: dict[str, Ranking], keys: tuple[str, str, str] = GENERIC_KEYS) -> list[dict]:
    """One rankings-JSONL row per query, in task order, with the benchmark's row keys."""
    store_key, query_key, ranked_key = keys
    return [{store_key: q.store_id, query_key: q.id, ranked_key: list(rankings[q.id].doc_ids)} for q in task.queries]


def rankings_sha256(task: Task, rankings: dict[str, Ranking], keys: tuple[str, str, str] = GENERIC_KEYS) -> str:
    """sha256 of the rankings in canonical JSONL form: the same for a run and its exported file."""
    import hashlib

    from memrecall.io import canonical_json

    text = "".join(canonical_json(row) + "\n" for row in rankings_rows(task, rankings, keys))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
