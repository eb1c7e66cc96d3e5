"""A service's server process: its command filled in, started in a fresh folder, waited for, stopped."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from memrecall.errors import SystemFailure
from memrecall.systems.adapters import common
from memrecall.systems.sandbox import SIGN_KEY_ENV, Mounts, bwrap_command, bwrap_problem, non_dumpable
from memrecall.systems.services.spec import ServiceSpec, fill

EXIT_MARK = "memrecall: the server exited with code "
TAIL_BYTES = 8192
GROUP_EXIT_SECONDS = 5.0  # how long stop() waits for the last process it started to be gone


def descendants(pid: int) -> list[int]:
    """The processes below `pid` (Linux's /proc; none elsewhere), children first."""
    parents: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        parents.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    found, queue = [], list(parents.get(pid, []))
    while queue:
        child = queue.pop(0)
        found.append(child)
        queue += parents.get(child, [])
    return found


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def server_values(spec: ServiceSpec, folder: Path, port: int | None) -> dict[str, Any]:
    """What {python}, {venv}, {spec_dir}, {folder}, {port} and {local_model} stand for in server settings."""
    values: dict[str, Any] = {
        "python": sys.executable,
        "venv": sys.prefix,
        "spec_dir": str(spec.file.resolve().parent),
        "folder": str(folder),
        "port": port,
    }
    uses = " ".join([*spec.command, *spec.env.values()])
    values["local_model"] = common.local_model_path() if "{local_model}" in uses else None
    return values


def server_env(spec: ServiceSpec, values: dict[str, Any]) -> dict[str, str]:
    """memrecall's environment, common.OFFLINE_ENV, HOME = the folder, then the spec's own env (filled)."""
    own = {key: str(fill(value, values)) for key, value in spec.env.items()}
    inherited = {key: value for key, value in os.environ.items() if key != SIGN_KEY_ENV}  # never the key's path
    return {**inherited, **common.OFFLINE_ENV, "HOME": values["folder"], **own}


RELAY_SOCKET = ".memrecall-relay.sock"
MAX_SOCKET_PATH = 107  # sun_path holds 108 bytes with the closing NUL


def sandboxed(
    argv: list[str], env: dict[str, str], values: dict[str, Any], relay_port: int | None = None
) -> tuple[list[str], dict[str, str], Path | None]:
    """argv run inside bubblewrap (systems/sandbox.py), in its own network namespace (only its own loopback),
    its folder read-write and its working folder, the service file's folder, the command and the local model
    read-only, no other file of this machine's users; with `relay_port` (an HTTP service), the server runs
    under the relay (services/relay.py), and the unix socket the scorer reaches its port through is the third
    value. Where bubblewrap cannot run, (argv, env, None) as they are, with one warning; the adapter's config
    says which."""
    non_dumpable()
    problem = bwrap_problem()
    if problem:
        print(f"warning: the service runs unsandboxed: {problem}", file=sys.stderr)
        return argv, env, None
    found = shutil.which(argv[0]) if argv else None
    code = [values["spec_dir"], *([str(Path(found).resolve())] if found else [])]
    code += [values["local_model"]] if values.get("local_model") else []
    folder = values["folder"]
    relay: Path | None = None
    if relay_port is not None:
        relay = Path(folder) / RELAY_SOCKET
        if len(os.fsencode(relay)) > MAX_SOCKET_PATH:
            raise SystemFailure(f"the service folder's socket path {relay} is longer than {MAX_SOCKET_PATH} bytes; "
                                "set TMPDIR to a shorter folder")  # fmt: skip
        argv = [sys.executable, "-m", "memrecall.systems.services.relay", str(relay), str(relay_port), "--", *argv]
    mounts = Mounts(code=tuple(code), writable=(folder,), workdir=folder, extra_env={"HOME": folder})
    return bwrap_command(argv, mounts, env), {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}, relay


def sandbox_fact() -> str:
    """What a service's config says of its sandbox."""
    problem = bwrap_problem()
    return f"none ({problem})" if problem else "bubblewrap"


def last_line(log: Path) -> str:
    """The last non-empty line the server wrote to stderr (memrecall's exit line left out), or ""."""
    try:
        with open(log, "rb") as handle:
            handle.seek(max(0, handle.seek(0, os.SEEK_END) - TAIL_BYTES))
            text = handle.read().decode("utf-8", "replace")
    except OSError:
        return ""
    lines = [line.strip() for line in text.splitlines() if line.strip() and not line.startswith(EXIT_MARK)]
    return lines[-1][:200] if lines else ""


def recorded_exit(log: Path) -> int | None:
    """The exit code `with_exit_line` wrote to the log, or None while the server runs."""
    try:
        with open(log, "rb") as handle:
            handle.seek(max(0, handle.seek(0, os.SEEK_END) - 256))
            tail = handle.read().decode("utf-8", "replace")
    except OSError:
        return None
    found = [line for line in tail.splitlines() if line.startswith(EXIT_MARK)]
    return int(found[-1][len(EXIT_MARK) :].strip() or -1) if found else None


def with_exit_line(argv: list[str]) -> list[str]:
    """argv run by /bin/sh, which writes the exit code to stderr after it ends (for servers memrecall does not
    spawn itself, as the MCP client's stdio transport does); stdin, stdout and signals pass through."""
    return ["/bin/sh", "-c", f'"$@"; echo "{EXIT_MARK}$?" >&2', "sh", *argv]


def died(name: str, code: int | None, log: Path, what: str = "the server") -> SystemFailure:
    """The one line for a server that exited: its exit code and the last line of its stderr."""
    tail = last_line(log)
    return SystemFailure(f"{name}: {what} exited with code {code}" + (f": {tail}" if tail else " (no stderr)"))


class ServerProcess:
    """One running server command (its own process group), with stderr kept in a log file in its folder."""

    def __init__(self, name: str, argv: list[str], env: dict[str, str], folder: Path, stop_timeout: float) -> None:
        self.name, self.folder, self.stop_timeout = name, folder, stop_timeout
        self.log = folder / "server-stderr.log"
        self._stderr = open(self.log, "wb")  # noqa: SIM115 - kept open for the server's whole life
        try:
            self.process = subprocess.Popen(
                argv,
                cwd=folder,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=self._stderr,
                start_new_session=True,
            )
        except OSError as exc:
            self._stderr.close()
            raise SystemFailure(f"{name}: cannot start {argv[0]!r}: {exc.strerror or exc}") from None

    def exited(self) -> int | None:
        """The exit code when the server has ended, else None."""
        return self.process.poll()

    def failure(self) -> SystemFailure | None:
        """The one line for a server that has exited, or None while it runs."""
        code = self.exited()
        return None if code is None else died(self.name, code, self.log)

    def wait_ready(self, url: str | None, port: int | None, timeout: float, relay: Path | None = None) -> None:
        """Poll `url` (any HTTP answer) or, without one, the port (a TCP connect) until it answers; through the
        relay's unix socket when there is one (it appears once the port accepts a connection)."""
        import httpx

        deadline = time.monotonic() + timeout
        client = httpx.Client(trust_env=False, transport=httpx.HTTPTransport(uds=str(relay)) if relay else None)
        try:
            while True:
                failure = self.failure()
                if failure is not None:
                    raise failure
                left = deadline - time.monotonic()
                if left <= 0:
                    where = url or f"127.0.0.1:{port}"
                    raise SystemFailure(f"{self.name}: the server did not answer at {where} within {timeout:g} s")
                try:
                    if relay is not None and not relay.is_socket():
                        raise OSError("the relay's socket is not there yet")
                    if url:
                        client.get(url, timeout=min(2.0, left))
                    elif port is not None and relay is None:
                        socket.create_connection(("127.0.0.1", port), timeout=min(2.0, left)).close()
                    return
                except (httpx.HTTPError, OSError):
                    time.sleep(min(0.2, max(left, 0)))
        finally:
            client.close()

    def stop(self) -> None:
        """SIGTERM to its process group, then SIGKILL after stop_timeout seconds; returns once every process it
        started is gone (at most GROUP_EXIT_SECONDS more); the log is closed."""
        inside = descendants(self.process.pid)  # a sandbox's processes sit in a session of their own
        if self.process.poll() is None:
            for sig, wait in ((signal.SIGTERM, self.stop_timeout), (signal.SIGKILL, 5.0)):
                try:
                    os.killpg(self.process.pid, sig)
                except (ProcessLookupError, PermissionError):
                    break
                try:
                    self.process.wait(wait)
                    break
                except subprocess.TimeoutExpired:
                    continue
        gone_by = time.monotonic() + GROUP_EXIT_SECONDS  # the sandbox's own processes end a moment after bwrap
        while time.monotonic() < gone_by and any(Path(f"/proc/{pid}").exists() for pid in inside):
            time.sleep(0.05)
        self._stderr.close()
