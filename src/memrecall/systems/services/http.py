"""HttpServiceAdapter: a memory service over HTTP with JSON bodies, started per store or connected to."""

from __future__ import annotations

import json
import time
from typing import Any
from urllib.parse import quote

from memrecall.errors import SystemFailure
from memrecall.systems.services.adapter import ServiceAdapter, one_line
from memrecall.systems.services.process import ServerProcess, free_port, sandboxed, server_env, server_values
from memrecall.systems.services.spec import Call, ServiceSpec, fill

MAX_REPLY_BYTES = 64 * 1024 * 1024
"""The largest reply body read from a service; a larger one is refused once that many bytes have arrived."""


class ReplyTooLarge(Exception):
    """The body passed MAX_REPLY_BYTES."""


class ReplyLate(Exception):
    """The whole reply did not arrive within the call's timeout."""


def read_body(response: Any, deadline: float) -> bytes:
    """The reply body, read in a bounded stream: at most MAX_REPLY_BYTES, all of it before `deadline`
    (time.monotonic()); a service that drips one byte at a time is cut at the deadline, not per read."""
    chunks, size = [], 0
    for chunk in response.iter_bytes():
        size += len(chunk)
        if size > MAX_REPLY_BYTES:
            raise ReplyTooLarge
        chunks.append(chunk)
        if time.monotonic() > deadline:
            raise ReplyLate
    return b"".join(chunks)


class HttpServiceAdapter(ServiceAdapter):
    """Each add and search is one HTTP request (httpx, sync, the spec's timeouts); replies must be JSON."""

    stack = "http"

    def __init__(self, spec: ServiceSpec) -> None:
        super().__init__(spec)
        self._process: ServerProcess | None = None
        self._client: Any = None
        self._base = spec.base_url

    def _start(self) -> None:
        """Start the server command in a fresh folder and wait until it answers (or only open a client)."""
        import httpx

        if not self.spec.command:
            self._client = httpx.Client(headers=self.spec.headers, trust_env=False)
            return
        port = self.spec.port or free_port()
        folder = self._folder.store_folder()
        values = server_values(self.spec, folder, port)
        argv = [str(fill(part, values)) for part in self.spec.command]
        self._base = fill(self.spec.base_url, {"port": port}).rstrip("/")
        argv, env, relay = sandboxed(argv, server_env(self.spec, values), values, relay_port=port)
        transport = httpx.HTTPTransport(uds=str(relay)) if relay is not None else None
        self._client = httpx.Client(headers=self.spec.headers, trust_env=False, transport=transport)
        self._process = ServerProcess(self.name, argv, env, folder, self.spec.stop_timeout)
        ready = fill(self.spec.ready_url, {"port": port}) if self.spec.ready_url else None
        try:
            self._process.wait_ready(ready, port, self.spec.ready_timeout, relay)
        except SystemFailure:
            self._stop()
            raise

    def _stop(self) -> None:
        """Stop the server process (SIGTERM, then SIGKILL) and close the client."""
        if self._process is not None:
            self._process.stop()
            self._process = None
        if self._client is not None:
            self._client.close()
            self._client = None

    def _call(self, call: Call, values: dict[str, Any]) -> Any:
        """One request; its JSON reply. Timeouts, a dead server, non-2xx and non-JSON replies are one line each."""
        import httpx

        path = fill(call.path, {k: quote(str(v), safe="") if v is not None else "" for k, v in values.items()})
        body = fill(call.template, values)
        where = f"{call.method} {path}"
        ended = self._process.failure() if self._process is not None else None
        if ended is not None:  # a server memrecall started has exited: what still answers is not it (a remnant)
            raise ended
        deadline = time.monotonic() + call.timeout
        try:
            with self._client.stream(
                call.method, self._base + path, json=body, timeout=httpx.Timeout(call.timeout)
            ) as response:
                raw = read_body(response, deadline)
        except (httpx.TimeoutException, ReplyLate):
            raise SystemFailure(f"{self.name}: {where} timed out after {call.timeout:g} s") from None
        except ReplyTooLarge:
            raise SystemFailure(
                f"{self.name}: {where} answered more than {MAX_REPLY_BYTES} bytes (the limit for one reply)"
            ) from None
        except httpx.HTTPError as exc:
            failure = self._process.failure() if self._process is not None else None
            raise failure or SystemFailure(f"{self.name}: {where} failed: {one_line(exc)}") from None
        text = raw.decode("utf-8", "replace")
        if not 200 <= response.status_code < 300:
            raise SystemFailure(f"{self.name}: {where} answered HTTP {response.status_code}: {one_line(text)}")
        try:
            return json.loads(text)
        except (ValueError, RecursionError):
            raise SystemFailure(f"{self.name}: {where} answered with no JSON: {one_line(repr(text))}") from None

    def config(self) -> dict:
        """config() of the base, plus the base URL pattern and the two calls."""
        return {
            **super().config(),
            "base_url": self.spec.base_url,
            "add": self.spec.add.target,
            "search": self.spec.search.target,
        }
