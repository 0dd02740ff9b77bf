"""No full client address in any log line of the stack (issue 37, deliverable 4).

The production process set (``deploy/stack.py``: two daphnes, a Celery worker and
beat, nginx in front as compose runs it) is driven by clients on loopback
addresses no server listens on (127.0.N.M: each client socket binds its source),
through nginx and straight at a daphne:

- a few errors: a request line that is no HTTP, a 404, a host we do not serve,
  a body over 64 KiB (nginx's error log names its client), a websocket frame of
  a reserved opcode, a socket on no route, and a task message the worker does
  not know, carrying an address (Celery logs the whole message);
- a socket flood: sockets that never finish their handshake, and sockets opened
  and dropped (a reset) while the stack's Redis is paused, so that each one's
  application outlives its client past daphne's 10 s and daphne warns that it
  "took too long to shut down", naming the connection — the line a tester
  counted 419 of after one flood.

Then every log the stack wrote is read — the daphnes', the worker's, beat's,
nginx's access and error logs, Redis's: no client's address in full, and a
client's network (its /24) in each log the clients reached, so the test sees
the very lines it searches.
"""

from __future__ import annotations

import datetime as dt
import http.client
import re
import signal
import socket
import struct
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from celery import Celery

from deploy.stack import Stack
from tests.support.api import requires_postgres, requires_redis
from tests.support.nginx import requires_nginx
from tests.support.stack import throwaway_stack
from tests.support.waiting import wait_for

pytestmark = [
    requires_postgres,
    requires_redis,
    requires_nginx,
]

CLIENTS = [f"127.0.{20 + n}.{2 + n}" for n in range(6)]
"""Loopback addresses no server listens on: each one a client's, masked like any."""
FLOOD = 4  # sockets dropped per client and door while Redis is paused
HALF_OPEN = 2  # sockets per client and door that never finish their handshake
WAIT = 30.0  # every bounded wait, in seconds (daphne warns 10 s after a drop)
TOO_LONG = "took too long to shut down"
ADDRESS = re.compile(r"(?<![\d.])\d{1,3}(?:\.\d{1,3}){3}(?![\d])")


def network(client: str) -> str:
    return client.rsplit(".", 1)[0] + ".0/24"


def connect(port: int, client: str) -> socket.socket:
    return socket.create_connection(("127.0.0.1", port), timeout=5, source_address=(client, 0))


def dropped(sock: socket.socket) -> None:
    """Closed abruptly: a reset, no goodbye (SO_LINGER 0)."""
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.close()


def until_closed(sock: socket.socket) -> bytes:
    said = b""
    try:
        while chunk := sock.recv(65536):
            said += chunk
    except OSError:
        pass
    return said


def handshake(path: str) -> bytes:
    """A websocket's opening request as a page of http://127.0.0.1/ sends it (nginx
    passes the Host on without its port, as a site on port 80 or 443 has none)."""
    return (
        f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
        "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
        "Sec-WebSocket-Version: 13\r\nOrigin: http://127.0.0.1\r\n\r\n"
    ).encode()


def http_request(
    port: int, client: str, method: str, path: str, *, body: bytes | None = None, host: str = ""
) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10, source_address=(client, 0))
    try:
        headers = {"Host": host} if host else {}
        conn.request(method, path, body=body, headers=headers)
        answer = conn.getresponse()
        answer.read()
        return answer.status
    finally:
        conn.close()


def errors(port: int, client: str, leaderboard: str) -> None:
    """A few errors from ``client`` at ``port``: each answered as it should be."""
    assert http_request(port, client, "GET", "/no-such-page/") == 404
    assert http_request(port, client, "GET", "/api/auth/me/", host="evil.example") == 400
    assert http_request(port, client, "POST", "/api/auth/login/", body=b"x" * 70_000) == 413
    with connect(port, client) as sock:
        sock.sendall(b"NOT HTTP AT ALL\r\n\r\n")
        assert b" 400 " in until_closed(sock).split(b"\r\n", 1)[0]
    with connect(port, client) as sock:  # a frame of a reserved opcode (3), after the handshake
        sock.sendall(handshake(leaderboard))
        assert sock.recv(65536).startswith(b"HTTP/1.1 101 ")
        sock.sendall(bytes([0x83, 0x80, 0, 0, 0, 0]))
        until_closed(sock)
    with connect(port, client) as sock:  # a socket on no route: 404 in the socket's words
        sock.sendall(handshake("/ws/no-such-socket/"))
        assert b"\x88\x02" + (4404).to_bytes(2, "big") in until_closed(sock)  # close, 4404


@contextmanager
def paused(stack: Stack) -> Iterator[None]:
    """The stack's Redis stopped (SIGSTOP) until the block ends: the channel layer's
    subscriptions wait for it, with no time limit of their own."""
    assert stack.redis is not None
    stack.redis.send_signal(signal.SIGSTOP)
    try:
        yield
    finally:
        stack.redis.send_signal(signal.SIGCONT)


def test_no_log_of_the_stack_names_a_client_after_a_flood_and_errors(tmp_path: Path) -> None:
    logs = tmp_path / "stack"
    with throwaway_stack("logaddr", daphnes=2, nginx=True, logs=logs) as stack:
        assert stack.nginx_port is not None
        doors = [stack.nginx_port, *stack.ports]  # through nginx, and straight at each daphne
        today = dt.datetime.now(dt.UTC).date().isoformat()
        leaderboard = f"/ws/leaderboard/{today}/SH1-C4/"
        for n, client in enumerate(CLIENTS):
            errors(doors[n % 2], client, leaderboard)

        # The worker is sent a task it does not know, an address among its arguments.
        sender = Celery(broker=stack.redis_url)
        sender.send_task("patience.no_such_task", args=[CLIENTS[0]])
        sender.close()
        wait_for(lambda: "no_such_task" in stack.log("worker"), "the worker's error", WAIT)

        half_open = []
        for client in CLIENTS:
            for port in doors:
                for _ in range(HALF_OPEN):
                    sock = connect(port, client)
                    sock.sendall(handshake(leaderboard)[:40])  # and never the rest
                    half_open.append(sock)
        with paused(stack):
            flood: list[socket.socket] = []
            for client in CLIENTS:
                for port in doors:
                    for _ in range(FLOOD):
                        sock = connect(port, client)
                        sock.sendall(handshake(leaderboard))
                        flood.append(sock)
            for sock in flood:
                dropped(sock)
            for n in (1, 2):
                wait_for(
                    lambda n=n: TOO_LONG in stack.log(f"daphne{n}"),
                    f"daphne {n}'s warnings of applications that outlived their client",
                    WAIT,
                )
        for sock in half_open:
            dropped(sock)

    written = {path.name: path.read_text(errors="replace") for path in logs.glob("*.log")}
    for name in ("daphne1", "daphne2", "worker", "beat", "nginx-access", "nginx-error"):
        assert f"{name}.log" in written, sorted(written)
    naming = {
        name: [line for line in text.splitlines() if set(ADDRESS.findall(line)) & set(CLIENTS)]
        for name, text in written.items()
    }
    if any(naming.values()):
        pytest.fail(
            "\n".join(
                f"{name}: {len(lines)} lines name a client, as {lines[0]}"
                for name, lines in sorted(naming.items())
                if lines
            )
        )
    networks = {network(client) for client in CLIENTS}
    for name in ("daphne1.log", "daphne2.log", "worker.log", "nginx-access.log", "nginx-error.log"):
        assert any(net in written[name] for net in networks), f"{name}: no client's network"
    assert any(TOO_LONG in line and "/24" in line for line in written["daphne1.log"].splitlines())
