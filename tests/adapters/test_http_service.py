"""The `http` service adapter against real servers on 127.0.0.1: engram-search's REST server as released, and
`python -m http.server` (static JSON replies, a 404, a non-JSON file, a bad port) plus a socket that never answers.

Every failure is one line; the rankings are what the replies say, mapped back, then the rest in store order.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import signal
import socket
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

pytest.importorskip("httpx", reason="httpx is not installed")

from memrecall.errors import ConfigError, SystemFailure  # noqa: E402
from memrecall.systems.contract import NotMeasurable  # noqa: E402
from memrecall.systems.registry import SystemContext, default_name, is_trusted_spec, load_system  # noqa: E402
from memrecall.systems.services.http import HttpServiceAdapter  # noqa: E402
from memrecall.systems.services.spec import fill, lookup, parse_service  # noqa: E402

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "services"
STORE = [
    SimpleNamespace(id="d1", text="Alice adopted a cat named Miso.", timestamp=None),
    SimpleNamespace(id="d2", text="Bob went hiking in the Alps last summer.", timestamp=None),
    SimpleNamespace(id="d3", text="The CAT knocked over Alice's vase.", timestamp=None),
    SimpleNamespace(id="d4", text="A catalogue of summer hiking trails.", timestamp=None),
    SimpleNamespace(id="d5", text="Alice adopted a cat named Miso.", timestamp=None),  # the same text as d1
]


def free_port() -> int:
    """A port on 127.0.0.1 nothing listens on (chosen by the test)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def query(text: str, qid: str = "q1") -> SimpleNamespace:
    return SimpleNamespace(id=qid, store_id="s1", text=text, time=None)


def write_spec(folder: Path, body: str, name: str = "svc.toml") -> Path:
    path = folder / name
    path.write_text(body, encoding="utf-8")
    return path


def static_spec(folder: Path, port: int, ids: str, search_path: str = "/replies/{query}.json", extra: str = "") -> Path:
    """`python -m http.server` on `port` serving `folder`: GET add and search replies are files there."""
    command = json.dumps(
        [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1", "--directory", str(folder)]
    )
    return write_spec(
        folder,
        f"""name = "static"
kind = "http"
[server]
command = {command}
port = {port}
ready_url = "http://127.0.0.1:{{port}}/"
ready_timeout = 30
[http]
base_url = "http://127.0.0.1:{{port}}"
timeout = 10
[add]
method = "GET"
path = "/added/{{doc_id}}.json"
[search]
method = "GET"
path = "{search_path}"
hits = "results"
{extra}
[ids]
{ids}
""",
    )


def replies(folder: Path, files: dict[str, object]) -> None:
    for name, value in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(value if isinstance(value, str) else json.dumps(value), encoding="utf-8")


def started(spec_path: Path, depth: int | None = None, store=STORE) -> HttpServiceAdapter:
    adapter = HttpServiceAdapter(parse_service(spec_path))
    adapter.prepare(SimpleNamespace(depth=depth))
    adapter.index(store)
    return adapter


def _cwd_in(proc: Path, folder: Path) -> bool:
    """True for a process whose working directory is inside `folder`."""
    try:
        return (proc / "cwd").resolve().is_relative_to(folder.resolve())
    except OSError:
        return False


def test_templates_and_paths() -> None:
    template = {"a": "{text}", "b": "at {timestamp}!", "c": ["{k}"], "{doc_id}": 1, "d": "{{x}}"}
    assert fill(template, {"text": {"x": 1}, "timestamp": None, "k": 7, "doc_id": "d1"}) == {
        "a": {"x": 1}, "b": "at !", "c": [7], "d1": 1, "d": "{x}",
    }  # fmt: skip
    reply = {"r": [{"id": "a", "m": {"s": 1}}, {"id": "b", "m": {"s": 2}}]}
    assert lookup(reply, "r[*].id") == ["a", "b"] and lookup(reply, "r[1].m.s") == 2 and lookup(reply, "") == reply


def test_engram_http_as_released_answers_422_at_ingest(tmp_path) -> None:
    """engram's REST app declares its request models inside a function under `from __future__ import annotations`,
    so FastAPI cannot resolve `req: IngestRequest` and reads it as a required query parameter: every POST /ingest
    (and /search) is refused with 422 before engram's code runs. /health answers, so the server is ready."""
    pytest.importorskip("engram", reason="engram-search is not installed")
    pytest.importorskip("fastapi", reason="fastapi is not installed")
    spec = dataclasses.replace(parse_service(EXAMPLES / "engram-http.toml"), port=free_port())
    adapter = HttpServiceAdapter(spec)
    adapter.prepare(SimpleNamespace(depth=None))
    try:
        with pytest.raises(SystemFailure) as caught:
            adapter.index(STORE)
        line = str(caught.value)
        assert line.startswith(
            'engram-http: POST /ingest answered HTTP 422: {"detail":[{"type":"missing","loc":["query","req"]'
        )
        assert "\n" not in line
        config = adapter.config()
        assert config["stack"] == "http" and config["spec_file"] == "engram-http.toml" and config["k"] == "whole store"
    finally:
        adapter.close()
    running = [p for p in Path("/proc").glob("[0-9]*") if _cwd_in(p, adapter._folder.path)]
    assert adapter._process is None and running == []  # SIGTERM to the process group ended uvicorn


def test_ids_echoed_metadata_and_depth(tmp_path) -> None:
    port = free_port()
    replies(tmp_path, {f"added/{d.id}.json": {"ok": True} for d in STORE})
    replies(
        tmp_path,
        {"replies/cat.json": {"results": [{"id": "d3", "meta": {"doc": "d3"}}, {"id": "d1", "meta": {"doc": "d1"}}]}},
    )
    adapter = started(static_spec(tmp_path, port, 'match = "id"\nid_path = "meta.doc"'))
    try:
        assert adapter.rank(query("cat")) == ["d3", "d1", "d2", "d4", "d5"]
        adapter.prepare(SimpleNamespace(depth=2))
        assert adapter.rank(query("cat")) == ["d3", "d1"]
        config = adapter.config()
        assert config["ids"] == {"match": "id", "id_path": "meta.doc", "added_id_path": ""}
        assert config["unreturned"] == "appended in store order" and config["ties"] == "the service's order"
    finally:
        adapter.close()


def test_added_ids_text_match_and_not_measurable(tmp_path) -> None:
    port = free_port()
    replies(tmp_path, {f"added/{d.id}.json": {"made": f"svc-{n}"} for n, d in enumerate(STORE)})
    replies(tmp_path, {"replies/a.json": {"results": [{"k": "svc-3"}, {"k": None}, {"k": "svc-0"}]}})
    replies(tmp_path, {"replies/b.json": {"results": [{"k": None}]}, "replies/z.json": {"results": []}})
    adapter = started(static_spec(tmp_path, port, 'match = "added_id"\nadded_id_path = "made"\nid_path = "k"'))
    try:
        assert adapter.rank(query("a")) == ["d4", "d1", "d2", "d3", "d5"]
        assert adapter.rank(query("z")) == ["d1", "d2", "d3", "d4", "d5"]
        assert adapter.rank(query("b", "qb")) == NotMeasurable(
            "static: none of the 1 hits for query 'qb' maps to a store id"
        )
        assert adapter.store_counts() == {
            "hits_without_id": 2,
            "not_measurable": 1,
            "queries_without_hits": 1,
            "texts_shared": 1,
        }
    finally:
        adapter.close()
    port = free_port()
    texts = ["The CAT knocked over Alice's vase.", "Alice adopted a cat named Miso.", "other"]
    replies(tmp_path, {"replies/t.json": {"results": [{"text": text} for text in texts]}})
    adapter = started(static_spec(tmp_path, port, 'match = "text"'))
    try:  # a text two documents share maps to the first in store order (d1, not d5); an unknown text maps nowhere
        assert adapter.rank(query("t")) == ["d3", "d1", "d2", "d4", "d5"]
        assert adapter.store_counts() == {"hits_text_unmatched": 1, "texts_shared": 1}
    finally:
        adapter.close()


@pytest.mark.parametrize(
    ("files", "search_path", "expected"),
    [
        ({}, "/nowhere.json", "static: GET /nowhere.json answered HTTP 404: <!DOCTYPE HTML>"),
        ({"plain.txt": "not json"}, "/plain.txt", "static: GET /plain.txt answered with no JSON: 'not json'"),
        ({"r.json": {"other": []}}, "/r.json", "static: GET /r.json: malformed reply: no 'results' in it"),
        ({"r.json": {"results": [{"name": "d1"}]}}, "/r.json", "static: GET /r.json: malformed reply: no 'id' in it"),
        ({"r.json": {"results": [{"id": "zzz"}]}}, "/r.json",
         "static: query 'q1': the service returned id 'zzz', which is not in the store"),
    ],
)  # fmt: skip
def test_reply_failures_are_one_line(tmp_path, files, search_path, expected) -> None:
    replies(tmp_path, {**{f"added/{d.id}.json": {} for d in STORE}, **files})
    adapter = started(static_spec(tmp_path, free_port(), 'match = "id"', search_path))
    try:
        with pytest.raises(SystemFailure) as caught:
            adapter.rank(query("q"))
        assert str(caught.value).startswith(expected) and "\n" not in str(caught.value)
    finally:
        adapter.close()


def test_a_server_that_exits_at_once_or_dies(tmp_path) -> None:
    command = json.dumps([sys.executable, "-m", "http.server", "notaport"])
    rest = '[http]\nbase_url = "http://127.0.0.1:{port}"\n[add]\npath = "/a"\n[search]\npath = "/s"\nhits = "r"\n'
    rest += '[ids]\nmatch = "id"\n'
    bad = write_spec(tmp_path, f'name = "bad"\nkind = "http"\n[server]\ncommand = {command}\n{rest}')
    with pytest.raises(SystemFailure, match=r"^bad: the server exited with code 2: .*invalid int value: 'notaport'$"):
        started(bad)
    replies(tmp_path, {f"added/{d.id}.json": {} for d in STORE})
    adapter = started(static_spec(tmp_path, free_port(), 'match = "id"'))
    os.killpg(adapter._process.process.pid, signal.SIGKILL)
    adapter._process.process.wait(10)
    with pytest.raises(SystemFailure, match=r"^static: the server exited with code -9"):
        adapter.rank(query("q"))
    adapter.close()


def test_timeouts_name_the_endpoint_and_the_seconds(tmp_path) -> None:
    """A server that accepts connections and never answers (it sleeps): the add times out, or it is never ready."""
    port = free_port()
    sleeper = f"import socket, time; s = socket.create_server(('127.0.0.1', {port})); time.sleep(120)"
    command = json.dumps([sys.executable, "-c", sleeper])
    common = f"""kind = "http"\n[server]\ncommand = {command}\nport = {port}\nready_timeout = 3
[http]\nbase_url = "http://127.0.0.1:{{port}}"\n[add]\npath = "/add"\ntimeout = 1\nbody = {{ text = "{{text}}" }}
[search]\npath = "/s"\nhits = "r"\n[ids]\nmatch = "id"\n"""  # fmt: skip
    with pytest.raises(SystemFailure, match=r"^slow: POST /add timed out after 1 s$"):
        started(write_spec(tmp_path, 'name = "slow"\n' + common))
    port2 = free_port()
    ready = common.replace(str(port), str(port2)).replace(
        "ready_timeout = 3", f'ready_timeout = 2\nready_url = "http://127.0.0.1:{port2}/"'
    )
    with pytest.raises(
        SystemFailure, match=rf"^slow: the server did not answer at http://127.0.0.1:{port2}/ within 2 s$"
    ):
        started(write_spec(tmp_path, 'name = "slow"\n' + ready, "ready.toml"))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("name = \n", r"^{path}: not a TOML file: "),
        ('kind = "http"\n', r"^{path}: name: missing$"),
        ('name = "x"\nkind = "grpc"\n', r"^{path}: kind: must be one of 'http', 'mcp', got 'grpc'$"),
        ('name = "x"\nkind = "http"\ncolour = 1\n', r"^{path}: colour: unknown key; use add, fresh_store, http, ids"),
        ('name = "x"\nkind = "mcp"\n[server]\ncommand = []\n', r"^{path}: server.command: must be a non-empty list"),
        ('name = "x"\nkind = "http"\n[http]\nbase_url = "ftp://h"\n', r"^{path}: http.base_url: must be an http://"),
        ('name = "x"\nkind = "http"\n[http]\nbase_url = "http://h"\n',
         r"^{path}: fresh_store: must be \"namespace\" for a"),
        ('name = "x"\nkind = "http"\nfresh_store = "namespace"\n[http]\nbase_url = "http://h"\n'
         '[add]\npath = "/a/{nope}"\n',
         r"^{path}: add.path: unknown placeholder \{{nope\}}; use namespace, doc_id, text, timestamp$"),
        ('name = "x"\nkind = "http"\nfresh_store = "namespace"\n[http]\nbase_url = "http://h"\n[add]\npath = "/a"\n',
         r"^{path}: fresh_store: \"namespace\" needs \{{namespace\}} in add"),
        ('name = "x"\nkind = "http"\n[server]\ncommand = ["s"]\nport = 0\n',
         r"^{path}: server.port: must be \"auto\" or a port"),
        ('name = "x"\nkind = "http"\n[server]\ncommand = ["s"]\n[http]\nbase_url = "http://h"\n[add]\npath = "/a"\n'
         '[search]\npath = "/s"\nhits = "a..b"\n[ids]\nmatch = "id"\n',
         r"^{path}: search.hits: not a JSON path: cannot read"),
    ],
)  # fmt: skip
def test_bad_service_files_are_one_config_line(tmp_path, text, expected) -> None:
    path = write_spec(tmp_path, text)
    with pytest.raises(ConfigError, match=expected.format(path=re.escape(str(path)))) as caught:
        parse_service(path)
    assert "\n" not in str(caught.value)


def test_the_registry_loads_a_service_file(tmp_path) -> None:
    spec = str(EXAMPLES / "server-memory.toml")
    assert is_trusted_spec(spec) and default_name(spec) == "server-memory"
    assert default_name(str(tmp_path / "missing.toml")) == "missing"
    with pytest.raises(ConfigError, match=r"missing\.toml: cannot read the service file: No such file or directory$"):
        load_system(str(tmp_path / "missing.toml"), SystemContext(lambda: None))
    adapter, name = load_system(str(EXAMPLES / "engram-http.toml"), SystemContext(lambda: None))
    assert name == "engram-http" and isinstance(adapter, HttpServiceAdapter) and adapter.name == "engram-http"


def test_the_command_line_takes_a_service_file_by_its_path(tmp_path) -> None:
    from conftest import FIXTURES, run

    missing = tmp_path / "services" / "missing.toml"
    done = run("run", "locomo-turn", "--system", str(missing), "--data", FIXTURES / "locomo_mini.json", "--quiet")
    assert done.exit_code == 2 and "is a file path" not in done.output
    assert f"{missing}: cannot read the service file: No such file or directory" in done.output
    assert not missing.parent.exists()


@pytest.mark.parametrize(
    ("order", "expected"),
    [("", ["d3", "d4", "d1", "d2", "d5"]), ('order = "descending"', ["d3", "d4", "d1", "d2", "d5"]),
     ('order = "ascending"', ["d3", "d1", "d4", "d2", "d5"])],
)  # fmt: skip
def test_search_order_says_which_end_of_the_reply_is_best(tmp_path, order, expected) -> None:
    """The reply lists d3, d4, d1 (a duplicate d3 last): kept as given, or read from its end when the service lists
    its best hit last; either way a repeated hit keeps its better place and the rest follow in store order."""
    replies(tmp_path, {f"added/{d.id}.json": {} for d in STORE})
    replies(tmp_path, {"replies/q.json": {"results": [{"id": i} for i in ("d3", "d4", "d1", "d3")]}})
    adapter = started(static_spec(tmp_path, free_port(), 'match = "id"', extra=order))
    try:
        assert adapter.rank(query("q")) == expected
        reversed_ = "ascending" in order
        assert adapter.config()["order"] == (
            "the service's, reversed (it lists the best hit last)" if reversed_ else "the service's (best first)"
        )
    finally:
        adapter.close()


def test_count_paths_tally_each_replys_value_per_store(tmp_path) -> None:
    """add.count and search.count: every reply's value at each path, one count per value (absent counted too)."""
    replies(tmp_path, {f"added/{d.id}.json": {"result": "stored" if d.id != "d5" else "skipped"} for d in STORE})
    replies(tmp_path, {"replies/a.json": {"results": [{"id": "d2"}], "note": {"degraded": True}}})
    replies(tmp_path, {"replies/b.json": {"results": [], "note": {"degraded": [1, "x"]}}})
    replies(tmp_path, {"replies/c.json": {"results": []}})
    spec = static_spec(tmp_path, free_port(), 'match = "id"', extra='count = ["note.degraded", "results[0].id"]')
    added = 'path = "/added/{doc_id}.json"'
    spec.write_text(spec.read_text(encoding="utf-8").replace(added, f'{added}\ncount = "result"'), encoding="utf-8")
    adapter = started(spec)
    try:
        for name in ("a", "b", "c", "a"):
            adapter.rank(query(name))
        assert adapter.store_counts() == {
            'add result = "skipped"': 1,
            'add result = "stored"': 4,
            "queries_without_hits": 2,
            'search note.degraded = [1, "x"]': 1,
            "search note.degraded = true": 2,
            "search note.degraded: absent": 1,
            'search results[0].id = "d2"': 2,
            "search results[0].id: absent": 2,
            "texts_shared": 1,
        }
        assert adapter.config()["counted"] == {"add": ["result"], "search": ["note.degraded", "results[0].id"]}
        adapter.index(STORE[:2])  # counted per store: a new store starts from nothing
        assert adapter.store_counts() == {'add result = "stored"': 2}
    finally:
        adapter.close()


def test_a_count_path_is_counted_under_at_most_twenty_values(tmp_path) -> None:
    replies(tmp_path, {f"added/{d.id}.json": {} for d in STORE})
    replies(tmp_path, {f"replies/{n}.json": {"results": [], "n": n} for n in range(25)})
    adapter = started(static_spec(tmp_path, free_port(), 'match = "id"', extra='count = "n"'))
    try:
        for n in range(25):
            adapter.rank(query(str(n)))
        counts = adapter.store_counts()
        assert counts["search n = (other)"] == 5 and sum(k.startswith("search n = ") for k in counts) == 21
    finally:
        adapter.close()


def order_and_count_file(folder: Path, add: str = "", search: str = "") -> Path:
    """A service file whose add and search tables end with the given lines."""
    tables = f'[add]\npath = "/a"\n{add}\n[search]\npath = "/s"\nhits = "r"\n{search}\n[ids]\nmatch = "id"\n'
    head = 'name = "x"\nkind = "http"\n[server]\ncommand = ["s"]\n[http]\nbase_url = "http://h"\n'
    return write_spec(folder, head + tables)


BAD_COUNTS = [
    ("count = 3", "count: must be str or list, got 3"),
    ('count = ["a", 3]', "count: must be a JSON path or a list of them"),
    ('count = "a..b"', "count: not a JSON path: cannot read 'a..b' at character 3"),
]
BAD_ORDER_AND_COUNT = [
    ("search", 'order = "best_last"', "search.order: must be one of 'descending', 'ascending', got 'best_last'"),
    ("search", "order = 1", "search.order: must be str, got 1"),
    ("add", 'order = "ascending"', "add.order: unknown key; use arguments, body, count, method, path, reply, timeout,"),
    *((table, line, f"{table}.{problem}") for table in ("add", "search") for line, problem in BAD_COUNTS),
]


@pytest.mark.parametrize(("table", "line", "expected"), BAD_ORDER_AND_COUNT)
def test_a_bad_order_or_count_is_one_line_naming_the_file_and_key(tmp_path, table, line, expected) -> None:
    path = order_and_count_file(tmp_path, **{table: line})
    with pytest.raises(ConfigError) as caught:
        parse_service(path)
    assert str(caught.value).startswith(f"{path}: {expected}") and "\n" not in str(caught.value)


def test_the_command_line_answers_a_bad_order_with_exit_2_and_writes_nothing(tmp_path) -> None:
    from conftest import FIXTURES, run

    spec = order_and_count_file(tmp_path, search='order = "best"')
    out = tmp_path / "out" / "report.json"
    data = FIXTURES / "locomo_mini.json"
    done = run("run", "locomo-turn", "--system", spec, "--data", data, "--output", out, "--quiet")
    assert done.exit_code == 2
    assert f"{spec}: search.order: must be one of 'descending', 'ascending', got 'best'" in done.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["svc.toml"]
