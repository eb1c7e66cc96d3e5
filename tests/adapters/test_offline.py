"""The offline guard itself: the audit hook records network attempts, and unshare -n leaves no route out."""

from __future__ import annotations

import errno
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

RUNNER = Path(__file__).with_name("run_offline.sh")
PROBE = (
    "import socket\ns = socket.socket(); s.settimeout(5)\n"
    "try:\n    s.connect(('198.51.100.1', 443)); print(0)\nexcept OSError as e:\n    print(e.errno)\n"
)


def test_a_connect_out_is_recorded_even_when_the_caller_swallows_the_error(no_network_attempts):
    probe = socket.socket()
    probe.settimeout(0.01)
    try:
        probe.connect(("198.51.100.1", 443))
    except OSError:
        pass
    finally:
        probe.close()
    recorded = list(no_network_attempts)
    no_network_attempts.clear()
    assert recorded == ["socket.connect ('198.51.100.1', 443)"]


def test_a_name_lookup_is_recorded_and_loopback_is_not(no_network_attempts):
    socket.getaddrinfo("localhost", 80)
    try:
        socket.getaddrinfo("registry.example.invalid", 443)
    except OSError:
        pass
    recorded = list(no_network_attempts)
    no_network_attempts.clear()
    assert recorded == ["socket.getaddrinfo 'registry.example.invalid'"]


@pytest.mark.skipif(shutil.which("unshare") is None, reason="unshare (util-linux) is not installed")
def test_inside_unshare_a_connect_out_fails_at_once_with_enetunreach():
    isolate = ["unshare", "-n"] if os.geteuid() == 0 else ["unshare", "-rn"]
    done = subprocess.run([*isolate, sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout.strip()) == (0, str(errno.ENETUNREACH)), done.stderr


@pytest.mark.skipif(shutil.which("unshare") is None, reason="unshare (util-linux) is not installed")
def test_the_runner_passes_its_no_route_check_and_runs_the_adapter_tests_inside_the_namespace():
    env = {**os.environ, "PYTHON": sys.executable}
    env.pop("MEMRECALL_NO_NETWORK", None)
    done = subprocess.run(
        [str(RUNNER), str(Path(__file__)), "-k", "recorded"],
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "2 passed" in done.stdout
