"""What a plug-in's worker or a service sends the scorer is bounded in size and time, and refused in one line.

Worker frames: a length past MAX_FRAME_BYTES is refused before any of the body is read; a header or a body
left half-written is cut at the deadline of the whole frame (--worker-timeout), not per read; a frame nested
too deep to parse is malformed. Service replies: a body past MAX_REPLY_BYTES, a reply dripped a byte at a
time past the call's timeout, and more hits than the cap are each one line.
"""

from __future__ import annotations

import json
import os
import struct
import sys
import textwrap
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
from conftest import MINI_RELEASE, run

from memrecall.errors import SystemFailure
from memrecall.running.boundary.wire import HEADER, MAX_FRAME_BYTES, FrameTimeout, read_frame

DEEP = b"[" * 200_000 + b"]" * 200_000
FRAMES = {
    "a length of 2**62": (struct.pack(">Q", 2**62), ValueError, "a frame of 4611686018427387904 bytes"),
    "a length one past the limit": (struct.pack(">Q", MAX_FRAME_BYTES + 1), ValueError, "the limit is"),
    **{f"{n} of 8 header bytes": (struct.pack(">Q", 10)[:n], FrameTimeout, None) for n in (1, 4, 7)},
    "half a body": (struct.pack(">Q", 10) + b'{"ok"', FrameTimeout, None),
    "nesting 200,000 deep": (HEADER.pack(len(DEEP)) + DEEP, ValueError, "nested too deep"),
    "not JSON": (HEADER.pack(3) + b"\xff\xfe{", ValueError, None),
}


@pytest.mark.parametrize("name", sorted(FRAMES))
def test_each_bad_frame_is_refused_within_its_deadline(name):
    sent, error, words = FRAMES[name]
    read_end, write_end = os.pipe()
    writer = os.fork() if len(sent) > 65536 else 0
    if writer == 0 and len(sent) > 65536:  # the child writes what a pipe can't hold, then waits
        os.close(read_end)
        os.write(write_end, sent)
        time.sleep(5)
        os._exit(0)
    if writer == 0:
        os.write(write_end, sent)
    started = time.monotonic()
    try:
        with pytest.raises(error, match=words):
            read_frame(read_end, time.monotonic() + 1.0, MAX_FRAME_BYTES)
        assert time.monotonic() - started < 4.0
    finally:
        os.close(read_end)
        os.close(write_end)
        if writer:
            os.kill(writer, 9)
            os.waitpid(writer, 0)


WRITER = '''
import os
import sys
import time

SENT = {sent!r}


class Writer:
    """Writes to the worker's own reply pipe (its fd is in the worker's argv), then stalls."""

    def index(self, documents):
        self.ids = [d.id for d in documents]
        os.write(int(sys.argv[2]), SENT)
        time.sleep(60)

    def rank(self, query):
        return list(self.ids)
'''


@pytest.mark.parametrize(
    ("sent", "expected"),
    [
        (b"\x00\x00\x00\x00", "no answer within 2 s during index() and rank()"),
        (struct.pack(">Q", 64) + b'{"ok":', "no answer within 2 s during index() and rank()"),
        (struct.pack(">Q", 2**62), "malformed frame during index() and rank() on store"),
    ],
    ids=["4 header bytes", "half a body", "2**62 bytes"],
)
def test_a_worker_that_writes_part_of_a_frame_or_a_huge_length_is_stopped(tmp_path, monkeypatch, sent, expected):
    (tmp_path / "writer.py").write_text(textwrap.dedent(WRITER.format(sent=sent)), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    started = time.monotonic()
    result = run(
        "run", "epirec", "--system", "writer:Writer", "--data", MINI_RELEASE, "--worker-timeout", "2",
        "--output", tmp_path / "r.json", "--quiet",
    )  # fmt: skip
    assert result.exit_code == 1 and not (tmp_path / "r.json").exists()
    assert expected in result.output.strip().splitlines()[-1]
    assert time.monotonic() - started < 30


SERVER = r"""
import json
import socket
import sys
import time

mode, port = sys.argv[1], int(sys.argv[2])
HEAD = b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n"
server = socket.create_server(("127.0.0.1", port))
while True:
    connection, _ = server.accept()
    request = b""
    while b"\r\n\r\n" not in request:
        got = connection.recv(65536)
        if not got:
            break
        request += got
    if not request:
        connection.close()
        continue
    head, _, rest = request.partition(b"\r\n\r\n")
    length = next((int(l.split(b":")[1]) for l in head.split(b"\r\n") if l.lower().startswith(b"content-length")), 0)
    while len(rest) < length:
        rest += connection.recv(65536)
    search = head.startswith(b"POST /s")
    if search and mode == "hits":
        body = json.dumps({"r": [{"id": "d1"}] * 20000}).encode()
    else:
        body = b"{}"
    if search and mode == "drip":
        connection.sendall(HEAD % 100)
        for _ in range(100):
            connection.sendall(b" ")
            time.sleep(0.3)
    elif search and mode == "huge":
        size = 400 * 1024 * 1024
        connection.sendall(HEAD % size)
        block = b" " * (1 << 20)
        try:
            for _ in range(400):
                connection.sendall(block)
        except OSError:
            pass
    else:
        connection.sendall(HEAD % len(body) + body)
    connection.close()
"""


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        ("drip", r"^svc: POST /s timed out after 2 s$"),
        ("huge", r"^svc: POST /s answered more than 67108864 bytes \(the limit for one reply\)$"),
        ("hits", r"^svc: POST /s: 20000 hits for a store of 2 documents \(at most 10004\)$"),
    ],
)
def test_a_service_reply_that_drips_floods_or_holds_too_many_hits_is_one_line(tmp_path, mode, expected):
    from memrecall.systems.services.http import HttpServiceAdapter
    from memrecall.systems.services.spec import parse_service

    (tmp_path / "server.py").write_text(SERVER, encoding="utf-8")
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    command = json.dumps([sys.executable, str(tmp_path / "server.py"), mode, str(port)])
    spec = tmp_path / "svc.toml"
    spec.write_text(
        f'name = "svc"\nkind = "http"\n[server]\ncommand = {command}\nport = {port}\nready_timeout = 20\n'
        f'[http]\nbase_url = "http://127.0.0.1:{{port}}"\ntimeout = 2\n[add]\npath = "/a"\n'
        f'body = {{ text = "{{text}}" }}\n[search]\npath = "/s"\nhits = "r"\nbody = {{ q = "{{query}}" }}\n'
        '[ids]\nmatch = "id"\n',
        encoding="utf-8",
    )
    adapter = HttpServiceAdapter(parse_service(spec))
    try:
        adapter.prepare(SimpleNamespace(depth=None))
        adapter.index([SimpleNamespace(id=f"d{i}", text=f"text {i}", timestamp=None) for i in (1, 2)])
        started = time.monotonic()
        with pytest.raises(SystemFailure, match=expected):
            adapter.rank(SimpleNamespace(id="q1", store_id="s1", text="q", time=None))
        assert time.monotonic() - started < 15
    finally:
        adapter.close()
    assert Path(spec).exists()
