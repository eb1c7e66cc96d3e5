"""The scorer's side of the trust boundary: spawn a plug-in worker, talk to it in frames, and end it.

The worker is a fresh interpreter (`python -B -m memrecall.running.boundary.worker`, never a fork of this process)
with an allow-listed environment, so no signing key or key path reaches it, writing no bytecode; by default it
runs inside bubblewrap (systems/sandbox.py), and this process marks itself non-dumpable first.
Every failure of the worker (an error, a crash, a kill, a hang past the timeout, a
byte on its stdout) is one line naming the system and what it was doing; the worker is killed and nothing
is written.
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

from memrecall.errors import ConfigError, MemrecallError, SystemFailure, SystemInterrupted
from memrecall.running.boundary.wire import MAX_FRAME_BYTES, FrameTimeout, read_frame, write_frame
from memrecall.systems.sandbox import SIGN_KEY_ENV, Mounts, bwrap_command, non_dumpable

DEFAULT_TIMEOUT = 1800.0
ENV_NAMES = frozenset(
    {
        "PATH", "HOME", "USER", "LOGNAME", "LANG", "LANGUAGE", "TZ", "TERM", "NO_COLOR", "COLUMNS",
        "TMPDIR", "TEMP", "TMP", "PYTHONPATH", "PYTHONHASHSEED", "PYTHONUTF8", "PYTHONIOENCODING",
        "PYTHONDONTWRITEBYTECODE", "VIRTUAL_ENV", "SYSTEMROOT", "XDG_CACHE_HOME", "XDG_CONFIG_HOME",
        "XDG_DATA_HOME", "HF_HOME", "HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_DATASETS_OFFLINE",
        "SENTENCE_TRANSFORMERS_HOME", "TORCH_HOME", "TOKENIZERS_PARALLELISM", "CUDA_VISIBLE_DEVICES",
        "OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE",
    }
)  # fmt: skip
ENV_PREFIXES = ("LC_",)
NEVER_PASSED = SIGN_KEY_ENV
KINDS = {"ConfigError": ConfigError, "SystemInterrupted": SystemInterrupted}


def check_pass_env(names: Sequence[str]) -> None:
    """Refuse a --pass-env name that may never reach a plug-in (the signing key's variable)."""
    if NEVER_PASSED in names:
        raise ConfigError(f"--pass-env {NEVER_PASSED}: the signing key never reaches a plug-in")


def worker_env(extra: Sequence[str] = (), source: dict[str, str] | None = None) -> dict[str, str]:
    """The worker's environment: the allow-list, plus the names a user passed with --pass-env."""
    check_pass_env(extra)
    source = dict(os.environ if source is None else source)
    wanted = set(ENV_NAMES) | set(extra)
    return {k: v for k, v in source.items() if k in wanted or k.startswith(ENV_PREFIXES)}


def _died(code: int) -> str:
    """How a worker process ended, in words."""
    if code < 0:
        try:
            return f"was killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"was killed by signal {-code}"
    return f"exited with code {code}"


class Worker:
    """One spawned worker process for one plug-in; `call` sends an operation and waits for its answer."""

    def __init__(
        self,
        system: str,
        timeout: float = DEFAULT_TIMEOUT,
        pass_env: Sequence[str] = (),
        cwd: str | None = None,
        sandbox: Mounts | None = None,
    ) -> None:
        self.system, self.timeout = system, timeout
        non_dumpable()
        to_child, from_parent = os.pipe()
        from_child, to_parent = os.pipe()
        command = [sys.executable, "-B", "-m", "memrecall.running.boundary.worker", str(to_child), str(to_parent)]
        env = {**worker_env(pass_env), "PYTHONDONTWRITEBYTECODE": "1"}
        self.sandboxed = sandbox is not None
        if sandbox is not None:
            command, env, cwd = bwrap_command(command, sandbox, env), {}, None
        try:
            self.process = subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                env=env,
                pass_fds=(to_child, to_parent),
                close_fds=True,
                cwd=cwd,
            )
        finally:
            os.close(to_child)
            os.close(to_parent)
        self.send_fd, self.reply_fd = from_parent, from_child
        self.stdout_fd = self.process.stdout.fileno()  # type: ignore[union-attr]

    def call(self, op: str, doing: str, rename: Callable[[str], str] = str, **payload: Any) -> dict:
        """Send one operation and return its answer; every way it can fail is one SystemFailure line."""
        try:
            write_frame(self.send_fd, {"op": op, "payload": payload})
            answer = self._answer(doing)
        except KeyboardInterrupt:
            self.kill()
            raise SystemInterrupted(f"system {self.system}: interrupted during {doing}") from None
        except (BrokenPipeError, EOFError):
            raise self._dead(doing) from None
        except MemrecallError:
            self.kill()
            raise
        if "error" in answer:
            self.kill()
            error = answer["error"] if isinstance(answer["error"], dict) else {}
            failure = KINDS.get(str(error.get("kind")), SystemFailure)(
                rename(str(error.get("message", "the worker failed")))[:2000]
            )
            failure.remote_traceback = rename(str(error.get("traceback") or ""))  # type: ignore[attr-defined]
            raise failure
        if not isinstance(answer.get("ok"), dict):
            self.kill()
            raise SystemFailure(f"system {self.system}: the worker sent a malformed answer during {doing}")
        return answer["ok"]

    def _answer(self, doing: str) -> dict:
        """Wait for the answer frame, failing on stdout output, a closed pipe or the timeout."""
        deadline = time.monotonic() + self.timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise self._late(doing)
            ready, _, _ = select.select([self.reply_fd, self.stdout_fd], [], [], min(left, 1.0))
            if self.stdout_fd in ready:
                self._refuse_stdout(doing)
            if self.reply_fd in ready:
                try:  # the whole frame, header and body, before the same deadline
                    answer = read_frame(self.reply_fd, deadline, MAX_FRAME_BYTES)
                except FrameTimeout:
                    raise self._late(doing) from None
                except ValueError as exc:
                    self.kill()
                    raise SystemFailure(
                        f"system {self.system}: the worker sent a malformed frame during {doing} ({exc})"
                    ) from None
                if not isinstance(answer, dict):
                    self.kill()
                    raise SystemFailure(f"system {self.system}: the worker sent a malformed answer during {doing}")
                ready, _, _ = select.select([self.stdout_fd], [], [], 0)
                if ready:
                    self._refuse_stdout(doing)
                return answer

    def _late(self, doing: str) -> SystemFailure:
        """Stop the worker: no whole answer within the timeout."""
        self.kill()
        return SystemFailure(
            f"system {self.system}: no answer within {self.timeout:g} s during {doing} "
            "(the worker was stopped; --worker-timeout sets the limit)"
        )

    def _refuse_stdout(self, doing: str) -> None:
        """A plug-in that writes to stdout is refused: stdout is the command's own output."""
        printed = os.read(self.stdout_fd, 200)
        if not printed:
            return
        self.kill()
        shown = printed.decode("utf-8", "replace").strip().splitlines()
        raise SystemFailure(
            f"system {self.system}: printed to stdout during {doing} "
            f"({shown[0][:80] if shown else 'blank'!r}); a plug-in must write to stderr"
        )

    def _dead(self, doing: str) -> SystemFailure:
        """The failure for a worker that went away."""
        try:
            code = self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.kill()
            code = self.process.wait()
        self.close_pipes()
        if self.sandboxed and code > 128:  # bwrap exits with 128 + the signal that killed the worker
            code = 128 - code
        return SystemFailure(f"system {self.system}: the worker process {_died(code)} during {doing}")

    def finish(self) -> dict:
        """Ask for the worker's last facts and wait for it to exit."""
        facts = self.call("finish", "finish()")
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.kill()
        ready, _, _ = select.select([self.stdout_fd], [], [], 0)  # never blocks: a child it left may hold the pipe
        tail = os.read(self.stdout_fd, 200) if ready else b""
        self.close_pipes()
        if tail.strip():
            raise SystemFailure(f"system {self.system}: printed to stdout at exit; a plug-in must write to stderr")
        return facts

    def kill(self) -> None:
        """End the worker now (idempotent)."""
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self.close_pipes()

    def close_pipes(self) -> None:
        """Close this side's pipe ends."""
        for fd in (self.send_fd, self.reply_fd):
            try:
                os.close(fd)
            except OSError:
                pass
        self.send_fd = self.reply_fd = -1
        if self.process.stdout:
            self.process.stdout.close()


class InProcess:
    """The same session in this interpreter (`--in-process`, for debugging a plug-in): no boundary at all."""

    def __init__(self, session: Any) -> None:
        self.session = session

    def call(self, op: str, doing: str, rename: Callable[[str], str] = str, **payload: Any) -> dict:
        """Run one operation directly (prepare takes the sealed task as it is); errors get their real ids back."""
        try:
            if op == "prepare":
                return self.session.prepare(payload["task"])
            return self.session.declarations() if op == "declarations" else self.session.call(op, payload)
        except (SystemFailure, ConfigError) as exc:
            raise type(exc)(rename(str(exc))) from None

    def finish(self) -> dict:
        """The process's own facts."""
        return self.session.finish()

    def kill(self) -> None:
        """Nothing to end."""
