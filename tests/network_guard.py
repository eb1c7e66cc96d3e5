"""Adapter tests (tests/adapters/): any network attempt from Python fails the test that made it, even when swallowed.

Loaded by tests/conftest.py (a conftest.py inside tests/adapters would take the module name `conftest` from the one
that tests import helpers from).

A sys audit hook records every socket connect, sendto and name lookup that does not stay on this machine
(`socket.connect`, `socket.sendto`, `socket.getaddrinfo`, `socket.gethostbyname` events). Stacks catch their
own network errors (mem0's notice fetch, telemetry clients), so a refused connection alone proves nothing; the
record does. Run under tests/adapters/run_offline.sh the whole session is also inside a network namespace with
no route out (`unshare -n`), which catches native code (Rust, C++) the hook cannot see: there, any attempt fails
at once with ENETUNREACH instead of hanging. With MEMRECALL_NO_NETWORK=1 (set by that script) the session
refuses to start unless the namespace really has no route out.
"""

from __future__ import annotations

import errno
import os
import socket
import sys
from pathlib import Path

import pytest

LOCAL_HOSTS = frozenset({"localhost", "127.0.0.1", "::1", "", None})
NO_NETWORK_ENV = "MEMRECALL_NO_NETWORK"
PROBE_ADDRESS = ("198.51.100.1", 443)  # TEST-NET-2: never routed anywhere, so only a hang or ENETUNREACH
ATTEMPTS: list[str] = []
_HOOKED: list[bool] = []


def _is_local(address: object) -> bool:
    """True for loopback and Unix-socket addresses."""
    if isinstance(address, (str, bytes)):  # AF_UNIX path
        return True
    if isinstance(address, tuple) and address:
        return address[0] in LOCAL_HOSTS
    return False


def network_audit(event: str, args: tuple) -> None:
    """Record a socket event that would leave this machine."""
    if event in ("socket.connect", "socket.sendto") and not _is_local(args[-1]):
        ATTEMPTS.append(f"{event} {args[-1]!r}")
    elif event in ("socket.getaddrinfo", "socket.gethostbyname") and args[0] not in LOCAL_HOSTS:
        host = args[0].decode() if isinstance(args[0], bytes) else args[0]
        ATTEMPTS.append(f"{event} {host!r}")


def install_audit() -> None:
    """Install the audit hook once per process (audit hooks cannot be removed)."""
    if not _HOOKED:
        sys.addaudithook(network_audit)
        _HOOKED.append(True)


def route_out_error() -> int | None:
    """The errno a connect to an unrouted address gets within 2 s; None when it neither fails nor connects."""
    probe = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    probe.settimeout(2)
    try:
        probe.connect(PROBE_ADDRESS)
    except TimeoutError:
        return None
    except OSError as exc:
        return exc.errno
    finally:
        probe.close()
    return 0


def pytest_sessionstart(session: pytest.Session) -> None:
    """Under MEMRECALL_NO_NETWORK=1, stop unless a connect out fails at once with ENETUNREACH."""
    if os.environ.get(NO_NETWORK_ENV) == "1":
        code = route_out_error()
        if code != errno.ENETUNREACH:
            shown = "a 2 s hang" if code is None else errno.errorcode.get(code, str(code)) if code else "success"
            pytest.exit(
                f"{NO_NETWORK_ENV}=1 but a connect to {PROBE_ADDRESS[0]} gave {shown}: not in a network "
                "namespace without a route out (run tests/adapters/run_offline.sh)",
                returncode=3,
            )
    install_audit()


ADAPTER_TESTS = Path(__file__).resolve().parent / "adapters"


@pytest.fixture(autouse=True)
def no_network_attempts(request):
    """Fail an adapter test when it, or anything before it (imports, wider fixtures), tried to reach the network."""
    if ADAPTER_TESTS not in Path(str(request.node.path)).resolve().parents:
        yield ATTEMPTS
        return
    before = list(ATTEMPTS)
    ATTEMPTS.clear()
    if before:
        pytest.fail(
            f"{len(before)} network attempt(s) before this test (imports, collection or a wider fixture): "
            + "; ".join(dict.fromkeys(before)),
            pytrace=False,
        )
    yield ATTEMPTS
    tried = list(ATTEMPTS)
    ATTEMPTS.clear()
    if tried:
        pytest.fail(f"{len(tried)} network attempt(s): " + "; ".join(dict.fromkeys(tried)), pytrace=False)
