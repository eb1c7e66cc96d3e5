"""Inside an HTTP service's sandbox: start the server, then relay a unix socket to its loopback port.

The service runs in its own network namespace (only its own loopback), so the scorer cannot reach its port
directly. This process, started by bubblewrap in that namespace, starts the server command as its child,
waits until the port accepts a TCP connection, then binds the unix socket (in the service's folder, which the
scorer sees at the same path) and copies bytes both ways for every connection. It exits with the server's
exit code (128 + the signal when a signal ended it), so the scorer reads the server's own exit.

    python -m memrecall.systems.services.relay SOCKET PORT -- COMMAND...
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Sequence

CHUNK = 1 << 16
POLL_SECONDS = 0.05


def pump(source: socket.socket, target: socket.socket) -> None:
    """Copy bytes from `source` to `target` until either side closes; then half-close `target`."""
    try:
        while data := source.recv(CHUNK):
            target.sendall(data)
    except OSError:
        pass
    finally:
        try:
            target.shutdown(socket.SHUT_WR)
        except OSError:
            pass


def serve(client: socket.socket, port: int) -> None:
    """Relay one scorer connection to the server's port (closed at once when the server does not accept)."""
    try:
        upstream = socket.create_connection(("127.0.0.1", port))
    except OSError:
        client.close()
        return
    back = threading.Thread(target=pump, args=(upstream, client), daemon=True)
    back.start()
    pump(client, upstream)
    back.join()
    client.close()
    upstream.close()


def listen(path: str) -> socket.socket:
    """A unix socket listening at `path`, bound under a temporary name and renamed, so it appears whole."""
    staged = f"{path}.{os.getpid()}"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(staged)
    server.listen(64)
    os.rename(staged, path)
    return server


def accept_forever(server: socket.socket, port: int) -> None:
    """Serve every connection on its own thread."""
    while True:
        try:
            client, _ = server.accept()
        except OSError:
            return
        threading.Thread(target=serve, args=(client, port), daemon=True).start()


def port_open(port: int) -> bool:
    """True when something accepts a TCP connection on 127.0.0.1:port (in this namespace)."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1.0):
            return True
    except OSError:
        return False


def exit_code(code: int) -> int:
    """The child's exit code as a shell gives it (128 + the signal for a signal)."""
    return 128 - code if code < 0 else code


def main(argv: Sequence[str]) -> int:
    """Start the server, wait for its port, relay the socket until the server exits; its exit code."""
    if len(argv) < 4 or argv[2] != "--":
        print("usage: python -m memrecall.systems.services.relay SOCKET PORT -- COMMAND...", file=sys.stderr)
        return 2
    path, port, command = argv[0], int(argv[1]), list(argv[3:])
    try:
        child = subprocess.Popen(command)
    except OSError as exc:
        print(f"cannot start {command[0]!r}: {exc.strerror or exc}", file=sys.stderr)
        return 127
    while child.poll() is None and not port_open(port):
        time.sleep(POLL_SECONDS)
    if child.poll() is None:
        threading.Thread(target=accept_forever, args=(listen(path), port), daemon=True).start()
    return exit_code(child.wait())


if __name__ == "__main__":
    sys.stdout.flush()
    os._exit(main(sys.argv[1:]))
