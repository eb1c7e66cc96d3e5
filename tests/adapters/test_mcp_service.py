"""The `mcp` service adapter against real MCP servers over stdio: the reference memory server (npm, installed
into .venv/node by scripts/bootstrap.sh test) and engram-search's MCP server on the bundled MiniLM.

Expected rankings are worked out from the servers' code (quoted beside each), not copied from a run.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

pytest.importorskip("mcp", reason="the mcp SDK is not installed (pip install 'mcp==1.30.0')")

from memrecall.errors import SystemFailure  # noqa: E402
from memrecall.systems.services.mcp import McpServiceAdapter  # noqa: E402
from memrecall.systems.services.spec import parse_service  # noqa: E402

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "services"
SERVER_MEMORY = (
    Path(sys.prefix) / "node" / "node_modules" / "@modelcontextprotocol" / "server-memory" / "dist" / "index.js"
)
needs_server_memory = pytest.mark.skipif(
    not SERVER_MEMORY.is_file() or shutil.which("node") is None,
    reason="@modelcontextprotocol/server-memory is not in .venv/node (bash scripts/bootstrap.sh test)",
)
STORE = [
    SimpleNamespace(id="d1", text="Alice adopted a cat named Miso.", timestamp=None),
    SimpleNamespace(id="d2", text="Bob went hiking in the Alps last summer.", timestamp=None),
    SimpleNamespace(id="d3", text="The CAT knocked over Alice's vase.", timestamp=None),
    SimpleNamespace(id="d4", text="A catalogue of summer hiking trails.", timestamp=None),
    SimpleNamespace(id="d5", text="Nothing to report today.", timestamp=None),
]


def query(text: str, qid: str = "q1") -> SimpleNamespace:
    return SimpleNamespace(id=qid, store_id="s1", text=text, time=None)


def adapter_for(spec_path: Path, depth: int | None = None, store=STORE) -> McpServiceAdapter:
    adapter = McpServiceAdapter(parse_service(spec_path))
    adapter.prepare(SimpleNamespace(depth=depth))
    try:
        adapter.index(store)
    except BaseException:
        adapter.close()
        raise
    return adapter


def variant(tmp_path: Path, base: Path, **replace: str) -> Path:
    """A copy of a service file with some lines replaced (old line -> new line)."""
    text = base.read_text(encoding="utf-8")
    for old, new in replace.items():
        assert old in text, old
        text = text.replace(old, new)
    path = tmp_path / base.name
    path.write_text(text, encoding="utf-8")
    return path


@needs_server_memory
def test_server_memory_ranks_by_substring_in_creation_order() -> None:
    """searchNodes keeps entities whose name, entityType or an observation contains query.toLowerCase() (the
    observations lowercased too), in graph order = creation order; everything else is appended in store order."""
    adapter = adapter_for(EXAMPLES / "server-memory.toml")
    try:
        assert adapter.rank(query("cat")) == ["d1", "d3", "d4", "d2", "d5"]  # cat, CAT, catalogue
        assert adapter.rank(query("Summer")) == ["d2", "d4", "d1", "d3", "d5"]  # case-insensitive
        assert adapter.rank(query("alice's")) == ["d3", "d1", "d2", "d4", "d5"]  # the whole query as one substring
        assert adapter.rank(query("Which pet did Alice adopt?")) == [
            "d1",
            "d2",
            "d3",
            "d4",
            "d5",
        ]  # no hit: store order
        assert adapter.rank(query("docu")) == ["d1", "d2", "d3", "d4", "d5"]  # every entityType is "document": all hit
        assert adapter.store_counts() == {"queries_without_hits": 1}
        adapter.prepare(SimpleNamespace(depth=2))
        assert adapter.rank(query("hiking")) == ["d2", "d4"]
        config = adapter.config()
        assert config["service"] == {
            "name": "memory-server",
            "version": "0.6.3",
            "protocol": config["service"]["protocol"],
        }
        assert (
            config["stack"] == "mcp"
            and config["spec_file"] == "server-memory.toml"
            and len(config["spec_sha256"]) == 64
        )
        assert config["fresh_store"] == "a fresh server process per store" and config["k"] == 2
        first = adapter._log
        adapter.index(STORE[:2])  # the next store: a new process, a new memory file
        assert adapter._log != first and adapter.rank(query("cat")) == ["d1", "d2"]
        lines = [json.loads(line) for line in (first.parent / "memory.jsonl").read_text().splitlines()]
        assert lines[0] == {"type": "entity", "name": "d1", "entityType": "document", "observations": [STORE[0].text]}
    finally:
        adapter.close()
    assert adapter._owner is None and adapter._loop is None and processes_in(adapter._folder.path) == []


@needs_server_memory
@pytest.mark.parametrize(
    ("replace", "expected"),
    [
        ({'hits = "entities"': 'hits = "nodes"'},
         r"^server-memory: tool search_nodes: malformed reply: no 'nodes' in it$"),
        ({'name = "{doc_id}"': 'name = "x-{doc_id}"'},
         r"^server-memory: query 'q1': the service returned id 'x-d1', which is not in the store$"),
        ({'arguments = { query = "{query}" }': 'arguments = { text = "{query}" }'},
         r"^server-memory: tool search_nodes answered an error: .*query"),
        ({"timeout = 30\n\n[ids]": 'timeout = 30\nreply = "text"\n\n[ids]'}, None),
    ],
)  # fmt: skip
def test_server_memory_reply_failures_are_one_line(tmp_path, replace, expected) -> None:
    adapter = adapter_for(variant(tmp_path, EXAMPLES / "server-memory.toml", **replace))
    try:
        if expected is None:  # the text content parsed as JSON reads the same as the structured content
            assert adapter.rank(query("cat")) == ["d1", "d3", "d4", "d2", "d5"]
            return
        with pytest.raises(SystemFailure, match=expected) as caught:
            adapter.rank(query("cat"))
        assert "\n" not in str(caught.value)
    finally:
        adapter.close()


@pytest.mark.slow
def test_a_server_that_exits_at_once_or_never_answers(tmp_path) -> None:
    base = """name = "odd"\nkind = "mcp"\n[server]\nready_timeout = 3\ncommand = {command}
[add]\ntool = "a"\n[search]\ntool = "s"\nhits = "r"\n[ids]\nmatch = "id"\n"""
    exits = tmp_path / "exits.toml"
    exits.write_text(base.format(command=json.dumps([sys.executable, "-m", "http.server", "notaport"])))
    with pytest.raises(
        SystemFailure,
        match=r"^odd: the server \(during initialize\) exited with code 2: .*invalid int value: 'notaport'$",
    ):
        adapter_for(exits)
    silent = tmp_path / "silent.toml"  # a real server that listens on TCP and never reads its stdin
    silent.write_text(
        base.format(command=json.dumps([sys.executable, "-m", "http.server", "0", "--bind", "127.0.0.1"]))
    )
    adapter = McpServiceAdapter(parse_service(silent))
    with pytest.raises(SystemFailure, match=r"^odd: initialize timed out after 3 s$"):
        adapter.index(STORE)
    adapter.close()
    assert processes_in(adapter._folder.path) == []  # the SDK's cleanup ended the process group


@needs_server_memory
def test_a_server_that_dies_between_calls(tmp_path) -> None:
    adapter = adapter_for(EXAMPLES / "server-memory.toml")
    try:
        folder = adapter._log.parent
        pid = int(next(p for p in Path("/proc").iterdir() if p.name.isdigit() and _is_node_in(p, folder)).name)
        import os
        import signal

        os.kill(pid, signal.SIGKILL)
        with pytest.raises(
            SystemFailure, match=r"^server-memory: the server \(during tool search_nodes\) exited with code 137"
        ):
            adapter.rank(query("cat"))
    finally:
        adapter.close()


def processes_in(folder: Path) -> list[int]:
    """Process ids whose working directory is inside `folder`."""
    found = []
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and (proc / "cwd").resolve().is_relative_to(folder.resolve()):
                found.append(int(proc.name))
        except OSError:
            continue
    return found


def _is_node_in(proc: Path, folder: Path) -> bool:
    """True for the node process whose working directory is `folder`."""
    try:
        return (proc / "cwd").resolve() == folder.resolve() and b"node" in (proc / "cmdline").read_bytes().split(b"\0")[
            0
        ]
    except OSError:
        return False


@pytest.mark.slow
def test_engram_mcp_on_the_bundled_minilm() -> None:
    """search_memory: FAISS inner product (cosine on normalised MiniLM vectors) for 3 x top_k candidates with
    score >= 0.45, then 0.6 x cosine + 0.4 x BM25 / max BM25 over the candidates (BM25 k1 1.5, b 0.75, IDF
    log((N - df + 0.5) / (df + 0.5) + 1), tokens \\w{2,} lowercased minus stop words), best first."""
    pytest.importorskip("engram.mcp_server", reason="engram-search[mcp] is not installed (mcp < 2)")
    from sentence_transformers import SentenceTransformer

    from memrecall.systems.adapters.common import local_model_path

    model = SentenceTransformer(local_model_path(), device="cpu")
    questions = ["Which pet did Alice adopt?", "Where did Bob go hiking?", "Summer"]
    cosines = (
        model.encode(questions, normalize_embeddings=True)
        @ model.encode([d.text for d in STORE], normalize_embeddings=True).T
    )
    passing = [[d.id for d, c in zip(STORE, row, strict=True) if c >= 0.45] for row in cosines]
    # pet: d1 (0.70) and d3 (0.54); both hold the one matched term "alice" once in 5 tokens: equal BM25 (1.0 after
    # dividing by the max), so cosine decides. Bob: d2 (0.70) has bob + hiking, d4 (0.49) hiking: d2 first either
    # way. Summer: only d4 (0.50) passes; d2 (0.43) holds "summer" too but is cut by min_score before BM25.
    assert passing == [["d1", "d3"], ["d2", "d4"], ["d4"]]
    adapter = adapter_for(EXAMPLES / "engram-mcp.toml")
    try:
        assert adapter.rank(query(questions[0])) == ["d1", "d3", "d2", "d4", "d5"]
        assert adapter.rank(query(questions[1])) == ["d2", "d4", "d1", "d3", "d5"]
        assert adapter.rank(query(questions[2])) == ["d4", "d1", "d2", "d3", "d5"]
        assert adapter.rank(query("zebra")) == ["d1", "d2", "d3", "d4", "d5"]  # no cosine reaches 0.45: no hits
        assert adapter.store_counts() == {"queries_without_hits": 1}
        assert sorted(adapter._added.values()) == ["d1", "d2", "d3", "d4", "d5"]  # engram's own ids, mapped back
        assert all(len(own) == 16 for own in adapter._added)
        config = adapter.config()
        assert config["service"]["name"] == "engram" and config["ids"]["match"] == "added_id"
    finally:
        adapter.close()


COLOURS = ("red", "green", "blue", "amber", "violet", "teal")
CPERSONA_STORE = [
    *(
        SimpleNamespace(
            id=f"n{i:03d}", text=f"Note {i}: the {COLOURS[i % 6]} bus leaves platform {i % 7}.", timestamp=None
        )
        for i in range(100)
    ),
    SimpleNamespace(id="cat1", text="Alice adopted a cat named Miso.", timestamp=None),
    SimpleNamespace(id="cat2", text="The cat Miso knocked over Alice's vase.", timestamp=None),
    SimpleNamespace(id="cat3", text="Miso the cat sleeps on Alice's bed all day.", timestamp=None),
    SimpleNamespace(id="again", text="Alice adopted a cat named Miso.", timestamp=None),  # cat1's text: skipped
]


@pytest.mark.slow
def test_cpersona_keyword_lists_its_best_row_last_and_says_it_is_degraded() -> None:
    """cpersona's recall fuses its FTS5 and keyword arms by reciprocal rank (1 / (60 + rank)) and lists the rows in
    ascending relevance; the service file reads them from the end. cat2 is the one row holding "vase", so it is
    ranked first by the arms and listed last by the tool. Every reply carries "degraded": true (no embedding)."""
    pytest.importorskip("cpersona", reason="cpersona is not installed (pip install cpersona==2.6.14)")
    adapter = adapter_for(EXAMPLES / "cpersona-keyword.toml", depth=10, store=CPERSONA_STORE)
    try:
        question = query("What did Miso do to the vase?")
        values = {"namespace": "", "query": question.text, "k": 10, "timestamp": None}
        rows = adapter._call(adapter.spec.search, values)["messages"]
        scores = [row["match_reason"]["score"] for row in rows]
        assert len(rows) > 2 and scores == sorted(scores) and scores[-1] == pytest.approx(1 / 61)
        assert rows[-1]["id"] == "cat2" and rows[-1]["content"] == "The cat Miso knocked over Alice's vase."
        ranking = adapter.rank(question)
        assert ranking[: len(rows)] == [row["id"] for row in reversed(rows)] and ranking[0] == "cat2"
        assert len(ranking) == 10
        assert adapter.store_counts() == {
            'add result = "skipped"': 1,
            'add result = "stored"': 103,
            "search advisory.degraded = true": 1,  # the ranked query (the probe called the tool directly)
            "texts_shared": 1,
        }
        config = adapter.config()
        assert config["service"]["name"] == "cloto-mcp-cpersona" and config["max_k"] == 100
        assert config["order"] == "the service's, reversed (it lists the best hit last)"
        assert config["counted"] == {"add": ["result"], "search": ["advisory.degraded"]}
    finally:
        adapter.close()
