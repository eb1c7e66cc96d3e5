"""A service file (TOML): parsed and checked into a ServiceSpec; request templates and a tiny JSON path."""

from __future__ import annotations

import hashlib
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memrecall.errors import UsageError
from memrecall.systems.services.templates import PathMissing, fill, lookup, parse_path, placeholders

__all__ = ["Call", "PathMissing", "ServiceSpec", "fill", "lookup", "parse_service", "placeholders"]

KINDS = ("http", "mcp")
MATCHES = ("id", "added_id", "text")
FRESH = ("restart", "namespace")
REPLIES = ("structured", "text")
ORDERS = ("descending", "ascending")  # the service lists its hits best first, or best last
ADD_FIELDS = ("namespace", "doc_id", "text", "timestamp")
SEARCH_FIELDS = ("namespace", "query", "k", "timestamp")
SERVER_FIELDS = ("python", "venv", "spec_dir", "folder", "port", "local_model")
TOP_KEYS = {"name", "kind", "fresh_store", "server", "http", "add", "search", "ids"}
SECTION_KEYS = {
    "server": {"command", "env", "port", "ready_url", "ready_timeout", "stop_timeout"},
    "http": {"base_url", "timeout", "headers"},
    "add": {"method", "path", "body", "tool", "arguments", "timeout", "reply", "count"},
    "search": {
        *("method", "path", "body", "tool", "arguments", "timeout", "reply", "count"),
        *("hits", "score", "max_k", "order"),
    },
    "ids": {"match", "id_path", "added_id_path", "text_path"},
}


@dataclass(frozen=True)
class Call:
    """One request (HTTP method + path + JSON body) or one MCP tool call (tool + arguments)."""

    target: str  # "POST /ingest" for http, the tool name for mcp
    method: str
    path: str
    template: Any  # the JSON body or the tool arguments, with {placeholders}
    timeout: float
    reply: str = "structured"  # mcp: the result's structuredContent, or "text": its text content parsed as JSON
    count: tuple[str, ...] = ()  # JSON paths whose value in every reply is counted per store


@dataclass(frozen=True)
class ServiceSpec:
    """Everything a service file says, checked."""

    file: Path
    sha256: str
    name: str
    kind: str
    fresh_store: str
    command: tuple[str, ...]
    env: dict[str, str]
    port: int | None  # None: a free port is picked per start
    ready_url: str | None
    ready_timeout: float
    stop_timeout: float
    base_url: str
    headers: dict[str, str]
    add: Call
    search: Call
    hits: str
    score: str | None
    max_k: int | None
    order: str  # "descending": hits best first, kept; "ascending": best last, reversed before mapping
    match: str
    id_path: str
    added_id_path: str
    text_path: str


class _Reader:
    """Typed reads from one table of the file, each problem one line naming the file and the key."""

    def __init__(self, source: str, table: dict, prefix: str = "") -> None:
        self.source, self.table, self.prefix = source, table, prefix

    def fail(self, key: str, problem: str) -> UsageError:
        return UsageError(f"{self.source}: {self.prefix}{key}: {problem}")

    def get(self, key: str, kind: type | tuple, default: Any = ..., choices: tuple = ()) -> Any:
        if key not in self.table:
            if default is ...:
                raise self.fail(key, "missing")
            return default
        value = self.table[key]
        bad_bool = isinstance(value, bool) and bool not in (kind if isinstance(kind, tuple) else (kind,))
        if not isinstance(value, kind) or bad_bool:
            kinds = " or ".join(k.__name__ for k in (kind if isinstance(kind, tuple) else (kind,)))
            raise self.fail(key, f"must be {kinds}, got {value!r}"[:160])
        if choices and value not in choices:
            raise self.fail(key, f"must be one of {', '.join(map(repr, choices))}, got {value!r}")
        return value

    def seconds(self, key: str, default: float) -> float:
        value = self.get(key, (int, float), default)
        if not 0 < value <= 86400:
            raise self.fail(key, f"must be seconds in (0, 86400], got {value!r}")
        return float(value)

    def json_path(self, key: str, default: Any = ...) -> Any:
        value = self.get(key, str, default)
        if isinstance(value, str):
            try:
                parse_path(value)
            except ValueError as exc:
                raise self.fail(key, f"not a JSON path: {exc}") from None
        return value

    def json_paths(self, key: str) -> tuple[str, ...]:
        """One JSON path or a list of them (none when the key is absent)."""
        value = self.get(key, (str, list), [])
        paths = [value] if isinstance(value, str) else value
        if not all(isinstance(path, str) for path in paths):
            raise self.fail(key, "must be a JSON path or a list of them")
        for path in paths:
            try:
                parse_path(path)
            except ValueError as exc:
                raise self.fail(key, f"not a JSON path: {exc}") from None
        return tuple(paths)

    def template(self, key: str, allowed: tuple[str, ...], default: Any = ...) -> Any:
        value = self.get(key, (dict, list, str, int, float, bool), default)
        unknown = sorted(placeholders(value) - set(allowed))
        if unknown:
            raise self.fail(key, f"unknown placeholder {{{unknown[0]}}}; use {', '.join(allowed)}")
        return value


def _table(reader: _Reader, key: str, required: bool = True) -> _Reader:
    """The sub-table `key` (checked for unknown keys)."""
    value = reader.get(key, dict, ... if required else {})
    unknown = sorted(set(value) - SECTION_KEYS[key])
    sub = _Reader(reader.source, value, f"{key}.")
    if unknown:
        raise sub.fail(unknown[0], f"unknown key; use {', '.join(sorted(SECTION_KEYS[key]))}")
    return sub


def _call(reader: _Reader, kind: str, default_timeout: float) -> Call:
    """The add or search call of a table."""
    allowed = ADD_FIELDS if reader.prefix == "add." else SEARCH_FIELDS
    timeout, count = reader.seconds("timeout", default_timeout), reader.json_paths("count")
    if kind == "mcp":
        tool, reply = reader.get("tool", str), reader.get("reply", str, "structured", REPLIES)
        return Call(f"tool {tool}", "", tool, reader.template("arguments", allowed, {}), timeout, reply, count)
    method = reader.get("method", str, "POST", ("GET", "POST", "PUT", "PATCH", "DELETE"))
    path = reader.template("path", allowed)
    if not isinstance(path, str):
        raise reader.fail("path", "must be a string")
    body = reader.template("body", allowed, None)
    return Call(f"{method} {path}", method, path, body, timeout, count=count)


def parse_service(path: str | Path) -> ServiceSpec:
    """Read and check a service file; every problem is one UsageError line (exit 2) naming the file and the key."""
    file = Path(path)
    source = str(path)
    try:
        raw = file.read_bytes()
    except OSError as exc:
        raise UsageError(f"{source}: cannot read the service file: {exc.strerror or exc}") from None
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise UsageError(f"{source}: not a TOML file: {exc}") from None
    top = _Reader(source, data)
    unknown = sorted(set(data) - TOP_KEYS)
    if unknown:
        raise top.fail(unknown[0], f"unknown key; use {', '.join(sorted(TOP_KEYS))}")
    name = top.get("name", str)
    if not name.strip():
        raise top.fail("name", "must not be empty")
    kind = top.get("kind", str, choices=KINDS)
    server = _table(top, "server", kind == "mcp")
    command = server.get("command", list, [])
    if not all(isinstance(part, str) for part in command) or (kind == "mcp" and not command):
        raise server.fail("command", "must be a non-empty list of strings")
    server.template("command", SERVER_FIELDS, [])
    env = server.template("env", SERVER_FIELDS, {})
    if not isinstance(env, dict) or not all(isinstance(v, str) for v in env.values()):
        raise server.fail("env", "must be a table of strings")
    port = server.get("port", (int, str), "auto")
    if port != "auto" and not (isinstance(port, int) and 0 < port < 65536):
        raise server.fail("port", f'must be "auto" or a port number, got {port!r}')
    fresh = top.get("fresh_store", str, "restart", FRESH)
    http = _table(top, "http", kind == "http")
    base_url = http.template("base_url", ("port",), "") if kind == "http" else ""
    if kind == "http" and not (isinstance(base_url, str) and base_url.startswith(("http://", "https://"))):
        raise http.fail("base_url", "must be an http:// or https:// URL")
    if kind == "http" and not command and fresh == "restart":
        raise top.fail("fresh_store", 'must be "namespace" for a service memrecall does not start (no server.command)')
    timeout = http.seconds("timeout", 30.0) if kind == "http" else 60.0
    add = _call(_table(top, "add"), kind, timeout)
    if fresh == "namespace" and "namespace" not in placeholders([add.template, add.path]):
        raise top.fail("fresh_store", '"namespace" needs {namespace} in add (and search) so each store is apart')
    search = _table(top, "search")
    calls = (add, _call(search, kind, timeout))
    ids = _table(top, "ids")
    match = ids.get("match", str, choices=MATCHES)
    max_k = search.get("max_k", int, None)
    if max_k is not None and max_k < 1:
        raise search.fail("max_k", "must be 1 or more")
    headers = http.get("headers", dict, {})
    if not all(isinstance(v, str) for v in headers.values()):
        raise http.fail("headers", "must be a table of strings")
    return ServiceSpec(
        file=file,
        sha256=hashlib.sha256(raw).hexdigest(),
        name=name,
        kind=kind,
        fresh_store=fresh,
        command=tuple(command),
        env=dict(env),
        port=None if port == "auto" else port,
        ready_url=server.template("ready_url", ("port",), None),
        ready_timeout=server.seconds("ready_timeout", 60.0),
        stop_timeout=server.seconds("stop_timeout", 5.0),
        base_url=base_url.rstrip("/"),
        headers=dict(headers),
        add=calls[0],
        search=calls[1],
        hits=search.json_path("hits"),
        score=search.json_path("score", None),
        max_k=max_k,
        order=search.get("order", str, "descending", ORDERS),
        match=match,
        id_path=ids.json_path("id_path", "id" if match != "text" else ""),
        added_id_path=ids.json_path("added_id_path", ... if match == "added_id" else ""),
        text_path=ids.json_path("text_path", "text"),
    )
