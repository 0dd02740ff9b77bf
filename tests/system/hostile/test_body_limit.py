"""Issue 25: a request body over ``MAX_BODY_BYTES`` is refused by the app before
anything reads it (``config/asgi.py`` BodyLimit), on a real daphne facing the
client as ``make stack`` runs it: a 40 MB form, with a Content-Length and chunked,
is answered 413 promptly, while a websocket on the same daphne keeps answering
pings and the daphne's memory does not balloon."""

from __future__ import annotations

import http.client
import json
import secrets
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from deploy import processes
from tests.support.api import requires_postgres
from tests.support.players import close_quietly, open_socket, receive

pytestmark = requires_postgres

BIG = 40 * 1024 * 1024
PIECE = b"a=" + b"x" * (1024 * 1024 - 2)  # 1 MiB of a form, sent piece by piece


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


class Pinger(threading.Thread):
    """Pings a websocket of the daphne in a loop; keeps the slowest answer and
    whether any was missing."""

    def __init__(self, port: int) -> None:
        super().__init__(daemon=True)
        self.ws = open_socket(port, "/ws/leaderboard/2026-12-01/SH1-C4/", None)
        assert receive(self.ws, time.monotonic() + 10)["type"] == "subscribed"
        self.slowest = 0.0
        self.pongs = 0
        self.failed: BaseException | None = None
        self.running = True

    def run(self) -> None:
        try:
            while self.running:
                sent = time.monotonic()
                self.ws.send(json.dumps({"type": "ping"}))
                assert receive(self.ws, sent + 30) == {"type": "pong"}
                self.slowest = max(self.slowest, time.monotonic() - sent)
                self.pongs += 1
                time.sleep(0.05)
        except BaseException as exc:
            self.failed = exc

    def finish(self) -> None:
        self.running = False
        self.join(40)
        close_quietly(self.ws)


class Sampler(threading.Thread):
    """The daphne's highest resident memory while it runs."""

    def __init__(self, pid: int) -> None:
        super().__init__(daemon=True)
        self.pid, self.peak, self.running = pid, rss_mb(pid), True

    def run(self) -> None:
        while self.running:
            self.peak = max(self.peak, rss_mb(self.pid))
            time.sleep(0.02)


@pytest.fixture
def daphne(tmp_path: Path) -> Iterator[tuple[int, int]]:
    """A production-shaped daphne (no Redis: the in-process defaults) on a fresh
    database: (port, pid)."""
    database = f"patience_body_{secrets.token_hex(4)}"
    env = processes.server_env(
        f"postgres://postgres@{processes.PG_HOST}:{processes.PG_PORT}/{database}", None
    )
    log = tmp_path / "daphne.log"
    processes.create_database(database)
    process = None
    try:
        processes.migrate(env)
        port = processes.free_port()
        process = processes.start_daphne(port, env, log)
        processes.wait_until_up(port, process, log)
        yield port, process.pid
    finally:
        if process is not None:
            processes.stop([process])
        processes.drop_database(database)


def post(port: int, chunked: bool) -> tuple[int, dict[str, Any], float]:
    """POST 40 MB of form to the sign-in; (status, body, seconds from the last byte
    sent to the answer)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    conn.putrequest("POST", "/api/auth/login/")
    conn.putheader("Content-Type", "application/x-www-form-urlencoded")
    if chunked:
        conn.putheader("Transfer-Encoding", "chunked")
    else:
        conn.putheader("Content-Length", str(BIG))
    conn.endheaders()
    try:
        for _ in range(BIG // len(PIECE)):
            if chunked:
                conn.send(b"%x\r\n%s\r\n" % (len(PIECE), PIECE))
            else:
                conn.send(PIECE)
        if chunked:
            conn.send(b"0\r\n\r\n")
    except (BrokenPipeError, ConnectionResetError):
        pass  # answered and closed before the whole body was taken: fine
    sent = time.monotonic()
    response = conn.getresponse()
    body = json.loads(response.read())
    conn.close()
    return response.status, body, time.monotonic() - sent


def test_a_40_mb_post_is_refused_at_once_and_the_sockets_keep_answering(daphne):
    port, pid = daphne
    pinger = Pinger(port)
    pinger.start()
    before = rss_mb(pid)
    sampler = Sampler(pid)
    sampler.start()
    answers = []
    try:
        for chunked in (False, True, False, True):
            answers.append(post(port, chunked))
    finally:
        sampler.running = False
        sampler.join()
        pinger.finish()
    growth = sampler.peak - before
    print(f"daphne RSS {before:.0f} MB, peak {sampler.peak:.0f} MB (+{growth:.0f} MB)")
    print(f"answers after the last byte: {[round(s, 2) for _, _, s in answers]} s")
    print(f"slowest pong meanwhile: {pinger.slowest:.2f} s over {pinger.pongs} pings")
    for status, body, seconds in answers:
        assert status == 413, body
        assert body["error"]["code"] == "too_large", body
        assert seconds < 10, seconds  # answered, not hung
    assert pinger.failed is None, pinger.failed
    assert pinger.pongs > 0
    assert pinger.slowest < 5, pinger.slowest  # the socket was never frozen for long
    # Generous: nothing of a refused body is kept (before, daphne held each whole
    # body in memory for the application: +190 MB over these four).
    assert growth < 100, growth


@pytest.mark.asyncio
async def test_the_app_itself_stops_reading_a_body_past_the_limit(settings):
    """``BodyLimit``, for a server that hands the app a body as it comes: a
    Content-Length over the limit is refused before the body is read at all; a
    body without one, as soon as it has grown past the limit."""
    from asgiref.testing import ApplicationCommunicator

    from config.asgi import application

    settings.MAX_BODY_BYTES = 1000
    scope = {
        "type": "http", "method": "POST", "path": "/api/auth/login/", "query_string": b"",
        "headers": [(b"host", b"localhost"), (b"content-type", b"application/json")],
    }  # fmt: skip
    declared = {**scope, "headers": [*scope["headers"], (b"content-length", b"5000")]}
    for the_scope, pieces in ((declared, 0), (scope, 3)):
        app = ApplicationCommunicator(application, the_scope)
        for _ in range(pieces):
            await app.send_input({"type": "http.request", "body": b"x" * 600, "more_body": True})
        start = await app.receive_output(5)
        assert start["status"] == 413
        body = json.loads((await app.receive_output(5))["body"])
        assert body["error"]["code"] == "too_large"
        await app.wait(5)
