"""The four cheats of issue 48, rebuilt: each scores what an honest plug-in scores, or is refused.

Reading the scorer's memory through /proc, poisoning the embedding cache, running stale bytecode behind an
innocent file of the same size and mtime, and a detached child that outlives the run. Each runs inside the
bubblewrap sandbox, locally and (the slow variants) on Ray; where the sandbox is what stops a cheat, the same
cheat run with `--sandbox none` shows that the test can see it succeed. These tests never skip in CI.
"""

from __future__ import annotations

import json
import os
import py_compile
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest
from conftest import MINI_RELEASE, run

from memrecall.systems.sandbox import bwrap_problem


@pytest.fixture(autouse=True)
def bubblewrap():
    """The sandbox must run here; under MEMRECALL_REQUIRE_SANDBOX=1 (.ci/run) a missing bwrap fails, not skips."""
    problem = bwrap_problem()
    if problem and os.environ.get("MEMRECALL_REQUIRE_SANDBOX") == "1":
        pytest.fail(f"MEMRECALL_REQUIRE_SANDBOX=1 and the sandbox cannot run: {problem}")
    if problem:
        pytest.skip(problem)


HONEST = '''
import os
import re
import sqlite3
import sys
import time


class StoreOrder:
    """The honest reference: every document in store order."""

    def index(self, documents):
        self.ids = [d.id for d in documents]

    def rank(self, query):
        return list(self.ids)


class ProcReader(StoreOrder):
    """Finds the scorer by its parent pid and by scanning /proc/*/cmdline, then reads its memory and
    environment; ranks first every document whose opaque id it found next to a real EpiRec id."""

    def __init__(self):
        self.reach = {"scorers": 0, "environ_bytes": 0, "memory_bytes": 0}
        self.memory = b""
        own = {os.getpid(), os.getppid()} if os.getppid() == 1 else {os.getpid()}
        candidates = [os.getppid(), *(int(p) for p in os.listdir("/proc") if p.isdigit())]
        for pid in dict.fromkeys(candidates):
            if pid in own:
                continue
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as handle:
                    command = handle.read()
            except OSError:
                continue
            if b"bwrap" in command.split(b"\\0")[0] or not re.search(rb"memrecall|pytest|ray", command):
                continue
            self.reach["scorers"] += 1
            try:
                with open(f"/proc/{pid}/environ", "rb") as handle:
                    self.reach["environ_bytes"] += len(handle.read())
            except OSError:
                pass
            self.memory += self.read_memory(pid)
        self.reach["memory_bytes"] = len(self.memory)

    @staticmethod
    def read_memory(pid):
        found = []
        try:
            with open(f"/proc/{pid}/maps", encoding="utf-8") as handle:
                regions = [line.split()[0] for line in handle if " rw" in line]
            with open(f"/proc/{pid}/mem", "rb") as memory:
                for region in regions[:400]:
                    start, end = (int(x, 16) for x in region.split("-"))
                    if end - start > 32 << 20:
                        continue
                    try:
                        memory.seek(start)
                        found.append(memory.read(end - start))
                    except (OSError, ValueError, OverflowError):
                        continue
        except OSError:
            pass
        return b"".join(found)

    def config(self):
        return {"reach": self.reach}

    def rank(self, query):
        near = {i for i in self.ids if self.memory and self.memory.find(i.encode()) >= 0
                and query.id.encode() in self.memory}
        return sorted(self.ids, key=lambda i: i not in near)


CACHE = __CACHE__


class CachePoisoner(StoreOrder):
    """Rewrites every row of the scorer's embedding cache to one vector, checksum recomputed."""

    def __init__(self):
        self.done = {"seen": os.path.exists(CACHE), "rows": 0}
        try:
            import hashlib

            db = sqlite3.connect(CACHE)
            rows = db.execute("SELECT model, text_sha256, length(vector) FROM vectors").fetchall()
            with db:
                for model, key, size in rows:
                    blob = b"\\x00" * size
                    checksum = hashlib.sha256(blob).hexdigest()[:16]
                    db.execute("UPDATE vectors SET vector = ?, checksum = ? WHERE model = ? AND text_sha256 = ?",
                               [blob, checksum, model, key])
            self.done["rows"] = len(rows)
        except Exception as exc:
            self.done["error"] = type(exc).__name__

    def config(self):
        return self.done


REPORT = __REPORT__
MARK = __MARK__


class Leaver(StoreOrder):
    """Double-forks a detached child that outlives the run, rewrites the report, then lingers as `sleep MARK`."""

    def __init__(self):
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                for fd in range(3, 256):
                    try:
                        os.close(fd)
                    except OSError:
                        pass
                time.sleep(1.0)
                try:
                    with open(REPORT, "w", encoding="utf-8") as out:
                        out.write("{}")
                except OSError:
                    pass
                os.execv("/bin/sleep", ["sleep", MARK])
            os._exit(0)
        os.wait()
'''

STALE = '''
class Stale:
    """{which}"""

    def index(self, documents):
        self.ids = [d.id for d in documents]

    def rank(self, query):
        return list(self.ids)

    def config(self):
        return {{"version": "{version}"}}
'''


@pytest.fixture
def plugins(tmp_path, monkeypatch):
    """The cheats' module in a folder outside the repo, also the working folder; the cache and report paths
    the cheats aim at are written into it."""
    mark = f"{time.time() % 1000:.6f}"
    text = HONEST.replace("__CACHE__", repr(str(tmp_path / "cache" / "vectors-v2.sqlite")))
    text = text.replace("__REPORT__", repr(str(tmp_path / "r.json"))).replace("__MARK__", repr(mark))
    (tmp_path / "cheats.py").write_text(textwrap.dedent(text), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


def run_plugin(folder: Path, attr: str, *extra: str, module: str = "cheats") -> tuple:
    """`memrecall run epirec` of one class: (result, report or None)."""
    output = folder / "r.json"
    output.unlink(missing_ok=True)
    args = ["run", "epirec", "--system", f"{module}:{attr}", "--data", MINI_RELEASE, "--quiet", "--resamples", "100"]
    result = run(*args, "--cache-dir", folder / "cache", "--output", output, *extra)
    return result, (json.loads(output.read_text(encoding="utf-8")) if output.exists() else None)


def entry(report: dict) -> dict:
    """The one system's entry."""
    (only,) = report["content"]["systems"].values()
    return only


RAY = ("--executor", "ray", "--workers", "1")


@pytest.mark.parametrize("executor", ["local", pytest.param("ray", marks=pytest.mark.slow)])
def test_the_scorers_memory_and_process_are_out_of_reach(plugins, executor):
    extra = RAY if executor == "ray" else ()
    honest, reference = run_plugin(plugins, "StoreOrder", *extra)
    assert honest.exit_code == 0, honest.output
    result, report = run_plugin(plugins, "ProcReader", *extra)
    assert result.exit_code == 0, result.output
    assert entry(report)["identity"]["config"] == {"reach": {"scorers": 0, "environ_bytes": 0, "memory_bytes": 0}}
    assert entry(report)["results"] == entry(reference)["results"]
    assert entry(report)["identity"]["isolation"] == "sandbox"


@pytest.mark.slow
def test_without_the_sandbox_the_same_reader_finds_the_scorer(plugins):
    """The contrast that shows the test above can fail: unsandboxed, the scorer is in /proc."""
    result, report = run_plugin(plugins, "ProcReader", "--sandbox", "none")
    assert result.exit_code == 0, result.output
    assert entry(report)["identity"]["config"]["reach"]["scorers"] >= 1
    assert entry(report)["identity"]["isolation"] == "process"


def fill_cache(path: Path, rows: int = 40) -> bytes:
    """A cache file with `rows` random vectors (no model needed to be a target); its bytes."""
    from memrecall.encoding.vector_cache import VectorCache

    draw = np.random.default_rng(0)
    VectorCache(path.parent).put_many("m", {f"{i:064x}": draw.standard_normal(8) for i in range(rows)})
    return path.read_bytes()


def test_a_plug_in_never_sees_the_embedding_cache(plugins):
    cache = plugins / "cache" / "vectors-v2.sqlite"
    before = fill_cache(cache)
    result, report = run_plugin(plugins, "CachePoisoner")
    assert result.exit_code == 0, result.output
    assert entry(report)["identity"]["config"] == {"seen": False, "rows": 0, "error": "OperationalError"}
    assert cache.read_bytes() == before


@pytest.mark.slow
def test_a_cache_poisoned_from_outside_is_refused_naming_the_file(tmp_path):
    """Every way of altering rows (checksums recomputed): each is caught by the re-encoded sample."""
    from memrecall.encoding.embeddings import Encoder, resolve_model
    from memrecall.encoding.vector_cache import vector_checksum
    from memrecall.errors import DatasetError

    texts = [f"note {i}: the meeting moved to room {i % 9}." for i in range(6)]
    first = Encoder(resolve_model(), tmp_path)
    vectors = first.encode(texts)
    keys = [k for (k,) in sqlite3.connect(tmp_path / "vectors-v2.sqlite").execute("SELECT text_sha256 FROM vectors")]
    poisons = {
        "zeros": lambda v, i: np.zeros_like(v),
        "another text's vector": lambda v, i: vectors[(i + 1) % len(vectors)],
        "a small push": lambda v, i: v + 0.01,
        "one component": lambda v, i: np.where(np.arange(v.size) == 3, v + 0.05, v),
    }
    for name, poison in poisons.items():
        db = sqlite3.connect(tmp_path / "vectors-v2.sqlite")
        with db:
            for i, key in enumerate(keys[:1] if name == "one component" else keys):
                (blob,) = db.execute("SELECT vector FROM vectors WHERE text_sha256 = ?", [key]).fetchone()
                new = np.asarray(poison(np.frombuffer(blob, dtype=np.float32), i), dtype=np.float32).tobytes()
                db.execute("UPDATE vectors SET vector = ?, checksum = ? WHERE text_sha256 = ?",
                           [new, vector_checksum(new), key])  # fmt: skip
        db.close()
        again = Encoder(resolve_model(), tmp_path)
        with pytest.raises(DatasetError) as refused:
            again.encode(texts)
        assert str(refused.value).startswith(f"{tmp_path / 'vectors-v2.sqlite'}: "), name
        assert "differ from a fresh encoding" in str(refused.value), name
        (tmp_path / "vectors-v2.sqlite").unlink()
        first = Encoder(resolve_model(), tmp_path)
        vectors = first.encode(texts)
    honest = Encoder(resolve_model(), tmp_path)
    assert np.allclose(honest.encode(texts), vectors, atol=1e-6)
    assert (honest.checked_count, honest.encoded_count) == (6, 0)


@pytest.mark.slow
def test_a_poisoned_cache_stops_a_run_of_memrecalls_own_dense_and_nothing_is_written(tmp_path):
    args = ["run", "epirec", "--system", "dense", "--data", MINI_RELEASE, "--quiet", "--resamples", "100"]
    args += ["--cache-dir", tmp_path / "cache"]
    clean = run(*args, "--output", tmp_path / "clean.json")
    assert clean.exit_code == 0, clean.output
    report = json.loads((tmp_path / "clean.json").read_text())
    assert report["env"]["cache_vectors_checked"] == 0 and report["env"]["texts_encoded"] > 0
    db = sqlite3.connect(tmp_path / "cache" / "vectors-v2.sqlite")
    with db:
        db.execute("UPDATE vectors SET vector = zeroblob(length(vector)), checksum = ?",
                   [__import__("hashlib").sha256(bytes(1536)).hexdigest()[:16]])  # fmt: skip
    db.close()
    result = run(*args, "--output", tmp_path / "again.json")
    assert result.exit_code == 1 and not (tmp_path / "again.json").exists()
    assert f"{tmp_path / 'cache' / 'vectors-v2.sqlite'}: " in result.output
    assert "the cache was altered or damaged" in result.output


@pytest.mark.parametrize("sandbox", ["bwrap", "none"])
def test_stale_bytecode_behind_an_innocent_file_never_runs(plugins, sandbox):
    source = plugins / "stale.py"
    cheat = STALE.format(which="cheat", version="cheat")
    innocent = STALE.format(which="plain", version="plain")
    assert len(cheat) == len(innocent)
    source.write_text(cheat, encoding="utf-8")
    os.utime(source, (1_700_000_000, 1_700_000_000))
    py_compile.compile(str(source), doraise=True)
    source.write_text(innocent, encoding="utf-8")
    os.utime(source, (1_700_000_000, 1_700_000_000))
    plain = subprocess.run(
        [sys.executable, "-c", "import stale; print(stale.Stale().config()['version'])"],
        cwd=plugins, capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert plain.stdout.strip() == "cheat"  # Python itself runs the stale bytecode: the cheat is real
    result, report = run_plugin(plugins, "Stale", "--sandbox", sandbox, module="stale")
    assert result.exit_code == 0, result.output
    identity = entry(report)["identity"]
    assert identity["config"] == {"version": "plain"}
    digest = __import__("hashlib").sha256(innocent.encode()).hexdigest()
    assert identity["source_sha256"] == digest
    assert {f["path"]: f["sha256"] for f in identity["code"]["files"]}["stale.py"] == digest
    assert "cheats.py" in {f["path"] for f in identity["code"]["files"]}  # every file beside a single module


def lingering(mark: str) -> list[int]:
    """Pids of processes whose command line carries `mark`."""
    found = []
    for pid in (p for p in os.listdir("/proc") if p.isdigit()):
        try:
            if mark.encode() in Path(f"/proc/{pid}/cmdline").read_bytes():
                found.append(int(pid))
        except OSError:
            continue
    return found


@pytest.mark.parametrize(
    ("executor", "sandbox"),
    [("local", "bwrap"), ("local", "none"), pytest.param("ray", "bwrap", marks=pytest.mark.slow)],
)
def test_a_detached_child_ends_with_the_run_and_never_touches_the_report(plugins, executor, sandbox):
    mark = (plugins / "cheats.py").read_text().split("MARK = ")[1].split("\n")[0].strip("'")
    result, report = run_plugin(plugins, "Leaver", "--sandbox", sandbox, *(RAY if executor == "ray" else ()))
    assert result.exit_code == 0, result.output
    written = (plugins / "r.json").read_bytes()
    if sandbox == "none":  # it execs `sleep MARK` only after writing; a loaded machine may be slow
        deadline = time.monotonic() + 60
        while not lingering(mark) and time.monotonic() < deadline:
            time.sleep(0.1)
    else:
        time.sleep(2.5)  # the child acts 1 s after it forks; sandboxed, it must be gone with the run
    left = lingering(mark)
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    if sandbox == "none":  # the contrast: unsandboxed, the child outlives the run and rewrites the report
        assert left and (plugins / "r.json").read_bytes() == b"{}"
        return
    assert left == [] and (plugins / "r.json").read_bytes() == written
    assert entry(report)["identity"]["isolation"] == "sandbox"


def test_sandbox_none_is_recorded_and_an_unknown_sandbox_is_refused(plugins):
    result, report = run_plugin(plugins, "StoreOrder", "--sandbox", "none")
    assert result.exit_code == 0, result.output
    assert entry(report)["identity"]["isolation"] == "process" and "sandbox" not in entry(report)["identity"]
    refused = run("run", "epirec", "--system", "cheats:StoreOrder", "--sandbox", "firejail", "--data", MINI_RELEASE)
    assert refused.exit_code == 2 and "firejail" in refused.output


def test_where_bubblewrap_cannot_run_a_plug_in_run_is_refused_in_one_line(plugins, monkeypatch):
    from memrecall.systems import sandbox

    monkeypatch.setattr(sandbox, "_probed", {"bwrap": "bubblewrap (bwrap) is not installed (test)"})
    result, report = run_plugin(plugins, "StoreOrder")
    assert result.exit_code == 1 and report is None
    assert result.output.strip().splitlines()[-1] == (
        "error: cannot sandbox the plug-in: bubblewrap (bwrap) is not installed (test); --sandbox none runs it "
        "unsandboxed (isolation: process, which the leaderboard refuses)"
    )
    result, report = run_plugin(plugins, "StoreOrder", "--sandbox", "none")
    assert result.exit_code == 0 and entry(report)["identity"]["isolation"] == "process"


def test_allow_read_is_recorded_and_only_then_readable(plugins):
    extra = plugins / "models"
    extra.mkdir()
    (extra / "weights.txt").write_text("w", encoding="utf-8")
    (plugins / "reader.py").write_text(
        textwrap.dedent(f"""
        import os


        class Reader:
            def index(self, documents):
                self.ids = [d.id for d in documents]

            def rank(self, query):
                return list(self.ids)

            def config(self):
                return {{"sees": os.path.exists({str(extra / "weights.txt")!r})}}
        """),
        encoding="utf-8",
    )
    result, report = run_plugin(plugins, "Reader", module="reader")
    assert result.exit_code == 0, result.output
    assert entry(report)["identity"]["config"] == {"sees": False}
    result, report = run_plugin(plugins, "Reader", "--allow-read", str(extra), module="reader")
    assert result.exit_code == 0, result.output
    assert entry(report)["identity"]["config"] == {"sees": True}
    assert entry(report)["identity"]["sandbox"] == {"tool": "bubblewrap", "allow_read": [str(extra)]}


@pytest.mark.parametrize("option", [("--sandbox", "none"), ("--allow-read", ".")])
def test_memrecalls_own_systems_take_no_sandbox_options(tmp_path, option):
    result = run("run", "epirec", "--system", "recency", *option, "--data", MINI_RELEASE, "--output", tmp_path / "r")
    assert result.exit_code == 2 and not (tmp_path / "r").exists()
    assert f"error: {option[0]}: recency is memrecall's own code and needs no worker" in result.output


def test_the_data_file_is_covered_even_inside_the_plug_ins_own_folder(plugins):
    package = plugins / "inside"
    package.mkdir()
    data = package / "epirec.json"
    data.write_bytes(Path(MINI_RELEASE).read_bytes())
    (package / "__init__.py").write_text(
        textwrap.dedent(f"""
        class Peek:
            def index(self, documents):
                self.ids = [d.id for d in documents]

            def rank(self, query):
                return list(self.ids)

            def config(self):
                try:
                    with open({str(data)!r}, "rb") as handle:
                        return {{"bytes": len(handle.read())}}
                except OSError as exc:
                    return {{"error": type(exc).__name__}}
        """),
        encoding="utf-8",
    )
    output = plugins / "r.json"
    result = run("run", "epirec", "--system", "inside:Peek", "--data", data, "--quiet", "--output", output)
    assert result.exit_code == 0, result.output
    assert entry(json.loads(output.read_text()))["identity"]["config"] == {"error": "PermissionError"}
    assert data.stat().st_size > 0


PROBING_HTTP = """
import json
import socket
import sys
from http.server import BaseHTTPRequestHandler, HTTPServer

PORT, TARGET = int(sys.argv[1]), int(sys.argv[2])


def reached():
    try:
        socket.create_connection(("127.0.0.1", TARGET), timeout=2).close()
        return True
    except OSError:
        return False


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        body = {"results": [{"id": "d1" if reached() else "d2"}]} if self.path == "/search" else {}
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


HTTPServer(("127.0.0.1", PORT), Handler).serve_forever()
"""

PROBING_MCP = """
import socket
import sys

from mcp.server.fastmcp import FastMCP

TARGET = int(sys.argv[1])
server = FastMCP("probe")


@server.tool()
def add(text: str) -> dict:
    return {"ok": True}


@server.tool()
def search(query: str) -> dict:
    try:
        socket.create_connection(("127.0.0.1", TARGET), timeout=2).close()
        return {"results": [{"id": "d1"}]}
    except OSError:
        return {"results": [{"id": "d2"}]}


server.run()
"""


class Listener:
    """A TCP listener on 127.0.0.1 outside any sandbox that counts the connections it accepts."""

    def __init__(self) -> None:
        import socket
        import threading

        self.server = socket.create_server(("127.0.0.1", 0))
        self.port, self.accepted = self.server.getsockname()[1], 0
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.server.accept()
            except OSError:
                return
            self.accepted += 1
            client.close()


def probing_service(folder: Path, kind: str, target: int) -> Path:
    """A service file whose server answers each search with d1 when it could connect to 127.0.0.1:target, else d2."""
    script = folder / f"probe_{kind}.py"
    script.write_text(PROBING_HTTP if kind == "http" else PROBING_MCP, encoding="utf-8")
    if kind == "http":
        command = json.dumps([sys.executable, str(script), "{port}", str(target)])
        calls = '[http]\nbase_url = "http://127.0.0.1:{port}"\ntimeout = 20\n[add]\npath = "/add"\n'
        calls += '[search]\npath = "/search"\nhits = "results"\n'
    else:
        command = json.dumps([sys.executable, str(script), str(target)])
        calls = '[add]\ntool = "add"\narguments = { text = "{text}" }\nreply = "text"\n'
        calls += '[search]\ntool = "search"\narguments = { query = "{query}" }\nreply = "text"\nhits = "results"\n'
    spec = folder / f"probe_{kind}.toml"
    head = f'name = "probe"\nkind = "{kind}"\n[server]\ncommand = {command}\nready_timeout = 60\n'
    spec.write_text(f'{head}{calls}[ids]\nmatch = "id"\n', encoding="utf-8")
    return spec


@pytest.mark.parametrize("kind", ["http", "mcp"])
@pytest.mark.parametrize("sandboxed", [True, False])
def test_a_service_reaches_only_its_own_loopback(tmp_path, monkeypatch, kind, sandboxed):
    """A real service the test starts tries to connect to a port the test listens on outside: inside the
    sandbox it cannot (its network namespace has only its own loopback), while the scorer still reaches the
    service (HTTP: through the relay's unix socket). Unsandboxed, the same service reaches the port: the
    contrast that shows the test can fail."""
    from types import SimpleNamespace

    from memrecall.systems import sandbox
    from memrecall.systems.services.loading import load_service

    if kind == "mcp":
        pytest.importorskip("mcp", reason="the mcp SDK is not installed")
    if not sandboxed:
        monkeypatch.setattr(sandbox, "_probed", {"bwrap": "bubblewrap (bwrap) is not installed (test)"})
    listener = Listener()
    adapter, _ = load_service(str(probing_service(tmp_path, kind, listener.port)))
    store = [SimpleNamespace(id=f"d{i}", text=f"note {i}", timestamp=None) for i in (1, 2, 3)]
    try:
        adapter.prepare(SimpleNamespace(depth=None))
        adapter.index(store)
        ranking = adapter.rank(SimpleNamespace(id="q1", store_id="s1", text="note", time=None))
        port = getattr(adapter, "_base", "").rpartition(":")[2]
        if kind == "http" and sandboxed:  # its port is in its own namespace: nothing listens there on the host
            import socket

            with pytest.raises(ConnectionRefusedError):
                socket.create_connection(("127.0.0.1", int(port)), timeout=2).close()
    finally:
        adapter.close()
    listener.server.close()
    if sandboxed:
        assert ranking == ["d2", "d1", "d3"] and listener.accepted == 0
    else:
        assert ranking == ["d1", "d2", "d3"] and listener.accepted >= 1


VERSIONED = 'VERSION = "{version}"\n'
ENTRY = """from {module} import VERSION


class Entry:
    def index(self, documents):
        self.ids = [d.id for d in documents]

    def rank(self, query):
        return list(self.ids)

    def config(self):
        return {{"version": VERSION}}
"""
PLACES = {  # where the stale module sits: the entry's spec, the file it imports and its dotted name
    "a module beside a single-file plug-in": ("entry:Entry", "helper.py", "helper"),
    "a regular package beside a single-file plug-in": (
        "entry:Entry",
        "plugin_tools/deep/helper.py",  # not `helpers`: tests/faults/helpers.py is imported under that name
        "plugin_tools.deep.helper",
    ),
    "a submodule of a package plug-in": ("plug.entry:Entry", "plug/sub/helper.py", "plug.sub.helper"),
    "a folder on the search path outside the plug-in": ("entry:Entry", "../elsewhere/outside.py", "outside"),
}


def plant_stale(path: Path) -> None:
    """`path` compiled while it says "cheat", then rewritten to say "plain" with the same size and mtime."""
    path.parent.mkdir(parents=True, exist_ok=True)
    for version in ("cheat", "plain"):
        path.write_text(VERSIONED.format(version=version), encoding="utf-8")
        os.utime(path, (1_700_000_000, 1_700_000_000))
        if version == "cheat":
            py_compile.compile(str(path), doraise=True)


@pytest.mark.parametrize("sandbox", ["bwrap", "none"])
@pytest.mark.parametrize("place", list(PLACES))
def test_stale_bytecode_never_runs_wherever_the_module_sits(tmp_path, monkeypatch, place, sandbox):
    """A stale .pyc (compiled from a cheating file later replaced by an innocent one of the same size and mtime)
    in every place a plug-in can import from: plain Python runs the cheat, the worker runs the innocent source,
    and the plug-in's own files are all in its identity."""
    spec, module_file, dotted = PLACES[place]
    module_name, attr = spec.split(":")
    folder = tmp_path / "work"
    module = (folder / module_file).resolve()
    outside = folder not in module.parents
    plant_stale(module)
    source = folder / (module_name.replace(".", "/") + ".py")
    source.parent.mkdir(parents=True, exist_ok=True)
    source.write_text(ENTRY.format(module=dotted), encoding="utf-8")
    for package in (*module.parents, *source.parents):  # every folder between the plug-in's and the file's
        if folder in package.parents:
            (package / "__init__.py").touch()
    search = [str(folder), *([str(module.parent)] if outside else [])]
    plain = subprocess.run(
        [sys.executable, "-c", f"import sys; sys.path[:0] = {search!r}; import {dotted}; print({dotted}.VERSION)"],
        cwd=folder, capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert plain.stdout.strip() == "cheat"  # Python itself runs the stale bytecode: the cheat is real
    monkeypatch.chdir(folder)
    for folder_on_path in search:
        monkeypatch.syspath_prepend(folder_on_path)
    extra = ("--allow-read", str(module.parent)) if outside and sandbox == "bwrap" else ()
    result, report = run_plugin(folder, attr, "--sandbox", sandbox, *extra, module=module_name)
    assert result.exit_code == 0, result.output
    identity = entry(report)["identity"]
    assert identity["config"] == {"version": "plain"}
    root = folder / module_name.partition(".")[0] if "." in module_name else folder
    hashed = {f["path"] for f in identity["code"]["files"]}
    if outside:  # code from elsewhere is never listed as the plug-in's
        assert hashed == {"entry.py"}
    else:
        assert module.relative_to(root).as_posix() in hashed


@pytest.mark.parametrize(
    ("place", "said"),
    [
        ("a namespace folder beside a single-file plug-in", "was not there when the scorer hashed its code"),
        ("bytecode without its source", "bytecode without its source; the plug-in runs only from source"),
    ],
)
def test_code_that_was_not_hashed_is_refused_in_one_line(tmp_path, monkeypatch, place, said):
    """Unsandboxed, where every file is visible: a module under the plug-in's folder that the scorer did not
    hash (a folder without __init__.py, which is no package of the module's) or a bare .pyc is refused."""
    if place.startswith("a namespace"):
        (tmp_path / "loose").mkdir()
        (tmp_path / "loose" / "helper.py").write_text(VERSIONED.format(version="plain"), encoding="utf-8")
        dotted = "loose.helper"
    else:
        plant_stale(tmp_path / "ghost.py")
        compiled = next((tmp_path / "__pycache__").glob("ghost.*.pyc"))
        compiled.rename(tmp_path / "ghost.pyc")
        (tmp_path / "ghost.py").unlink()
        dotted = "ghost"
    (tmp_path / "entry.py").write_text(ENTRY.format(module=dotted), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    result, report = run_plugin(tmp_path, "Entry", "--sandbox", "none", module="entry")
    assert result.exit_code == 1 and report is None
    (line,) = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert said in line


TWIN = """
class Twin:
    def index(self, documents):
        self.ids = [d.id for d in documents]

    def rank(self, query):
        return list(self.ids)

    def config(self):
        return {{"from": {folder!r}}}
"""


@pytest.mark.parametrize("scorer_order", [("a", "b"), ("b", "a")])
@pytest.mark.parametrize("worker_order", [("a", "b"), ("b", "a"), ("b",), ()])
def test_the_worker_imports_the_module_the_scorer_hashed_whatever_its_own_path_order(
    tmp_path, monkeypatch, scorer_order, worker_order
):
    """Two folders on the path each hold `twin.py`: the worker resolves it as the scorer's path does (the file
    the identity hashed), not as the worker's own path would, for every order of either."""
    from memrecall.running.boundary.worker import PluginSession
    from memrecall.systems.registry import module_file

    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "twin.py").write_text(TWIN.format(folder=folder), encoding="utf-8")
    scorer = [str(tmp_path / f) for f in scorer_order]
    monkeypatch.setattr(sys, "path", [str(tmp_path / f) for f in worker_order] + list(sys.path))
    monkeypatch.delitem(sys.modules, "twin", raising=False)
    hashed = module_file("twin", scorer)
    session = PluginSession.load("twin:Twin", None, scorer)
    sys.modules.pop("twin", None)
    assert hashed == tmp_path / scorer_order[0] / "twin.py"
    assert session.declarations()["config"] == {"from": scorer_order[0]}
