"""The OS sandbox around every process memrecall starts for untrusted code: bubblewrap (`bwrap`), the sandbox
Flatpak uses.

Inside: its own PID, IPC, UTS and network namespaces (no network: only its own loopback, which a service's
scorer reaches through a unix socket relay, systems/services/relay.py),
its own mount namespace with the filesystem read-only and only what the code needs bound into it (the
Python installation, memrecall's own package, the plug-in's code, declared model folders and --allow-read
paths), a private scratch tmpfs at /tmp that is also its working folder and HOME, no capabilities, its own
/proc (only its own processes), and it dies with the scorer (`--die-with-parent`; the namespace's init ends
every process left in it). What the scorer hides (data files, outputs, the cache folder, the key path) is
never bound, and is covered again when a bound folder holds it.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import subprocess
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from memrecall.errors import ConfigError

SANDBOXES = ("bwrap", "none")
SCRATCH = "/tmp"
NAMESPACES = ("--unshare-pid", "--unshare-ipc", "--unshare-net", "--unshare-uts", "--unshare-cgroup-try")
SYSTEM_DIRS = ("/usr", "/bin", "/lib", "/lib32", "/lib64", "/libx32", "/sbin")
ETC_FILES = ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/localtime", "/etc/alternatives")
MODEL_ENV_NAMES = ("MEMRECALL_MODEL", "HF_HOME", "SENTENCE_TRANSFORMERS_HOME", "TORCH_HOME")
PR_SET_DUMPABLE = 4
SIGN_KEY_ENV = "MEMRECALL_SIGN_KEY"
"""The signing key's variable: it never reaches a plug-in or a service."""
_probed: dict[str, str | None] = {}


def non_dumpable() -> None:
    """Mark this process non-dumpable: other processes of the same user can no longer read its memory through
    /proc/<pid>/mem, environ or ptrace. Linux only; elsewhere nothing happens."""
    if not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    except (OSError, AttributeError):
        return


def bwrap_problem() -> str | None:
    """Why bubblewrap cannot run here (checked once per process by running it), or None when it can."""
    if "bwrap" in _probed:
        return _probed["bwrap"]
    found = shutil.which("bwrap")
    problem: str | None = None
    if not sys.platform.startswith("linux"):
        problem = f"bubblewrap needs Linux; this is {sys.platform}"
    elif found is None:
        problem = "bubblewrap (bwrap) is not installed (Debian/Ubuntu: apt-get install bubblewrap)"
    else:
        probe = [found, *_user_namespace(), *NAMESPACES, "--ro-bind", "/", "/", "--proc", "/proc", "true"]
        try:
            done = subprocess.run(probe, capture_output=True, timeout=30, check=False)
        except (OSError, subprocess.TimeoutExpired) as exc:
            problem = f"bubblewrap cannot start: {exc}"
        else:
            said = done.stderr.decode("utf-8", "replace").strip().splitlines()
            if done.returncode != 0:
                problem = f"bubblewrap cannot create its namespaces here ({said[-1] if said else done.returncode})"
    _probed["bwrap"] = problem
    return problem


def _user_namespace() -> list[str]:
    """A user namespace when not root (root needs none, and its capabilities are dropped inside anyway)."""
    return [] if os.geteuid() == 0 else ["--unshare-user"]


def check_sandbox(sandbox: str) -> None:
    """Refuse an unknown --sandbox value, or bwrap where it cannot run, in one line naming the reason."""
    if sandbox not in SANDBOXES:
        raise ConfigError(f"unknown sandbox {sandbox!r}; choose {' or '.join(SANDBOXES)}")
    if sandbox == "bwrap":
        problem = bwrap_problem()
        if problem:
            raise ConfigError(
                f"cannot sandbox the plug-in: {problem}; "
                "--sandbox none runs it unsandboxed (isolation: process, which the leaderboard refuses)"
            )


@dataclass(frozen=True)
class Mounts:
    """What a sandbox binds read-only (beside the system and the Python installation), and what it hides."""

    code: tuple[str, ...] = ()
    allow_read: tuple[str, ...] = ()
    hidden: tuple[str, ...] = ()
    extra_env: dict[str, str] = field(default_factory=dict)
    writable: tuple[str, ...] = ()  # bound read-write (a service's own data folder)
    workdir: str = SCRATCH


def python_paths() -> list[str]:
    """The Python installation this process runs (prefixes and site folders) and memrecall's own package."""
    paths = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
    paths.add(str(Path(__file__).resolve().parents[1]))  # memrecall's own package
    paths.add(str(Path(sys.executable).resolve().parent))
    return sorted(p for p in paths if p and os.path.isdir(p))


def model_paths(environ: dict[str, str] | None = None) -> list[str]:
    """Declared model folders: memrecall's default encoder, and model folders named by the environment."""
    environ = os.environ if environ is None else environ
    found = [environ[name] for name in MODEL_ENV_NAMES if environ.get(name) and os.path.isdir(environ[name])]
    try:
        from memrecall.encoding.sources import resolve_model

        location = resolve_model(None).location
        if os.path.isdir(location):
            found.append(location)
    except Exception:  # noqa: BLE001, S110 - no default encoder is nothing to bind
        pass
    return [str(Path(p).resolve()) for p in found]


def _under(path: str, roots: Iterable[str]) -> bool:
    """True when `path` is one of `roots` or inside one."""
    return any(path == root or path.startswith(root.rstrip("/") + "/") for root in roots)


def _bind(path: str) -> list[str]:
    """Bind one path read-only at the same place (a symlink to a folder is made again as the same symlink)."""
    if os.path.islink(path) and os.path.isdir(path) and os.path.dirname(path) == "/":
        return ["--symlink", os.readlink(path), path]
    return ["--ro-bind", path, path]


def bwrap_command(argv: Sequence[str], mounts: Mounts, environ: dict[str, str]) -> list[str]:
    """`bwrap ... argv`: the namespaces, the read-only binds, the scratch folder, then the command."""
    command = [shutil.which("bwrap") or "bwrap", *_user_namespace(), *NAMESPACES]
    command += ["--die-with-parent", "--new-session", "--cap-drop", "ALL", "--tmpfs", SCRATCH]
    command += ["--proc", "/proc", "--dev", "/dev"]
    for path in SYSTEM_DIRS + ETC_FILES:
        if os.path.lexists(path):
            command += _bind(path)
    bound: list[str] = []
    wanted = [*python_paths(), *model_paths(environ), *mounts.code, *mounts.allow_read]
    for path in sorted({str(Path(p).absolute()) for p in wanted}, key=lambda p: (p.count("/"), p)):
        if os.path.exists(path) and not _under(path, [*bound, *SYSTEM_DIRS]):
            command += ["--ro-bind", path, path]
            bound.append(path)
    for path in mounts.writable:
        command += ["--bind", path, path]
    real_bound = [os.path.realpath(p) for p in bound]
    for hidden in sorted({os.path.realpath(p) for p in mounts.hidden}):  # a link's target is what it shows
        if os.path.exists(hidden) and _under(hidden, real_bound):  # never bound: covered where a bound folder has it
            command += ["--tmpfs", hidden] if os.path.isdir(hidden) else ["--ro-bind", "/dev/null", hidden]
    env = {**environ, "HOME": SCRATCH, "TMPDIR": SCRATCH, **mounts.extra_env}
    command += ["--clearenv"]
    for key, value in sorted(env.items()):
        command += ["--setenv", key, value]
    command += ["--chdir", mounts.workdir, "--", *argv]
    return command


def described(mounts: Mounts) -> dict:
    """What signed content records of a sandbox: the tool and the --allow-read paths a user added."""
    return {"tool": "bubblewrap", "allow_read": sorted(str(Path(p).absolute()) for p in mounts.allow_read)}
