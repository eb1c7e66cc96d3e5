"""McpServiceAdapter: a memory service as MCP tools over stdio (the official `mcp` SDK's client).

The SDK's async client runs on one private asyncio loop the adapter owns: one long-lived task enters
stdio_client and ClientSession (anyio wants them left by the task that entered them) and serves tool calls
from a queue; each add or search waits for its answer with the call's timeout while it watches for the
server's exit (the command runs under /bin/sh, which writes the exit code to the stderr log).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any, TextIO

from memrecall.errors import SystemFailure
from memrecall.systems.services.adapter import ServiceAdapter, one_line
from memrecall.systems.services.process import (
    died,
    recorded_exit,
    sandboxed,
    server_env,
    server_values,
    with_exit_line,
)
from memrecall.systems.services.spec import Call, ServiceSpec, fill

STOP_WAIT = 10.0  # seconds for the owner task to close the session and the server after stdin is closed


class McpServiceAdapter(ServiceAdapter):
    """Each add and search is one tools/call; a fresh server process per store unless tools take {namespace}."""

    stack = "mcp"

    def __init__(self, spec: ServiceSpec) -> None:
        super().__init__(spec)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._owner: asyncio.Task | None = None
        self._queue: asyncio.Queue | None = None
        self._errlog: TextIO | None = None
        self._log: Any = None
        self._broken = False  # a call failed: the session is not closed politely but cancelled at once

    async def _serve(self, params: Any, ready: asyncio.Future) -> None:
        """Hold the stdio transport and the session open; run the queued tool calls one at a time."""
        from mcp import ClientSession
        from mcp.client.stdio import stdio_client

        try:
            async with stdio_client(params, errlog=self._errlog) as (read, write):
                async with ClientSession(read, write) as session:
                    ready.set_result(await session.initialize())
                    while (item := await self._queue.get()) is not None:
                        tool, arguments, answer = item
                        try:
                            result = await session.call_tool(tool, arguments)
                        except Exception as exc:  # noqa: BLE001 - handed to the caller, which words it
                            answer.done() or answer.set_exception(exc)
                        else:
                            answer.done() or answer.set_result(result)
        except Exception as exc:  # noqa: BLE001 - the transport or the session failed: the waiting caller words it
            if not ready.done():
                ready.set_exception(exc)
            raise

    async def _watch(self, answer: asyncio.Future, what: str, timeout: float) -> Any:
        """The answer, or one line: the server exited (code, stderr), the call timed out, or the client failed."""
        deadline = self._loop.time() + timeout
        while not answer.done():
            if recorded_exit(self._log) is not None or self._owner.done():
                await asyncio.sleep(0.2)  # let the exit line reach the log
                code = recorded_exit(self._log)
                if code is None and self._owner.done() and self._owner.exception() is not None:
                    exc = self._owner.exception()
                    raise SystemFailure(f"{self.name}: the MCP client failed during {what}: {one_line(exc)}")
                raise died(self.name, code, self._log, f"the server (during {what})")
            if self._loop.time() >= deadline:
                raise SystemFailure(f"{self.name}: {what} timed out after {timeout:g} s")
            left = min(0.1, max(deadline - self._loop.time(), 0.001))
            await asyncio.wait({answer, self._owner}, timeout=left, return_when=asyncio.FIRST_COMPLETED)
        try:
            return answer.result()
        except Exception as exc:  # noqa: BLE001 - the SDK's errors become one line
            await asyncio.sleep(0.2)
            if recorded_exit(self._log) is not None:
                raise died(self.name, recorded_exit(self._log), self._log, f"the server (during {what})") from None
            raise SystemFailure(f"{self.name}: {what} failed: {type(exc).__name__}: {one_line(exc)}") from None

    def _start(self) -> None:
        """Spawn the server command (through the SDK's stdio transport) in a fresh folder and initialize."""
        from mcp import StdioServerParameters

        self._loop = self._loop or asyncio.new_event_loop()
        folder = self._folder.store_folder()
        values = server_values(self.spec, folder, None)
        argv = with_exit_line([str(fill(part, values)) for part in self.spec.command])
        argv, env, _ = sandboxed(argv, server_env(self.spec, values), values)
        params = StdioServerParameters(command=argv[0], args=argv[1:], env=env, cwd=str(folder))
        self._log = folder / "server-stderr.log"
        self._errlog = open(self._log, "w", encoding="utf-8")  # noqa: SIM115 - the server's stderr, its whole life
        self._queue = asyncio.Queue()
        ready = self._loop.create_future()
        self._owner = self._loop.create_task(self._serve(params, ready))
        try:
            info = self._loop.run_until_complete(self._watch(ready, "initialize", self.spec.ready_timeout))
        except SystemFailure:
            self._broken = True
            self._stop()
            raise
        server = getattr(info, "serverInfo", None)
        self.service_info = {"name": getattr(server, "name", None), "version": getattr(server, "version", None)}
        self.service_info["protocol"] = getattr(info, "protocolVersion", None)

    def _stop(self) -> None:
        """Close the session (stdin closed, then the SDK's SIGTERM/SIGKILL of the process group)."""
        if self._owner is not None and self._loop is not None:
            if not self._owner.done():
                self._queue.put_nowait(None)
                wait = 0.01 if self._broken else STOP_WAIT
                done, _ = self._loop.run_until_complete(asyncio.wait({self._owner}, timeout=wait))
                if not done:
                    self._owner.cancel()
            with contextlib.suppress(BaseException):
                self._loop.run_until_complete(self._owner)
            self._owner, self._broken = None, False
        if self._errlog is not None:
            self._errlog.close()
            self._errlog = None

    def _call(self, call: Call, values: dict[str, Any]) -> Any:
        """One tools/call; its structuredContent, or its text content as JSON ("reply" in the spec)."""
        arguments = fill(call.template, values)
        answer = self._loop.create_future()
        self._queue.put_nowait((call.path, arguments, answer))
        try:
            result = self._loop.run_until_complete(self._watch(answer, call.target, call.timeout))
        except SystemFailure:
            self._broken = True
            raise
        texts = [part.text for part in result.content if getattr(part, "type", None) == "text"]
        if result.isError:
            raise SystemFailure(f"{self.name}: {call.target} answered an error: {one_line(' '.join(texts))}")
        if call.reply == "structured":
            if result.structuredContent is None:
                raise SystemFailure(f"{self.name}: {call.target}: malformed reply: no structuredContent in it")
            return result.structuredContent
        try:
            parsed = [json.loads(text) for text in texts]
        except ValueError:
            raise SystemFailure(
                f"{self.name}: {call.target} answered with no JSON: {one_line(repr(' '.join(texts)))}"
            ) from None
        return parsed[0] if len(parsed) == 1 else parsed

    def close(self) -> None:
        """Stop the server and close the adapter's event loop."""
        super().close()
        if self._loop is not None and not self._loop.is_closed() and self._owner is None:
            self._loop.close()
            self._loop = None

    def config(self) -> dict:
        """config() of the base, plus the two tools and what the server said it is at initialize."""
        return {**super().config(), "add": self.spec.add.path, "search": self.spec.search.path}
