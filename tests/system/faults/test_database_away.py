"""PostgreSQL unreachable (issue 7): a real daphne whose database connections
go through a TCP relay the test can cut. While it is cut, every request that
needs the database gets 503 with the error shape (and ``/healthz`` says so),
nothing is half-written; once the relay is back, play goes on where it was.
"""

from __future__ import annotations

import contextlib
import secrets
import socket
import threading
from pathlib import Path

import psycopg

from deploy.client import Client
from deploy.processes import free_port, one_daphne, server_env
from tests.support.api import requires_postgres, requires_redis
from tests.support.waiting import wait_for

pytestmark = [requires_postgres, requires_redis]

WAIT = 15.0


class Relay:
    """A TCP relay 127.0.0.1:port → PostgreSQL that can be cut (every connection
    dropped, new ones refused) and restored on the same port."""

    def __init__(self, target: tuple[str, int]) -> None:
        self.target = target
        self.port = free_port()
        self.listener: socket.socket | None = None
        self.open: list[socket.socket] = []
        self.lock = threading.Lock()

    def start(self) -> None:
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(64)
        self.listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return
            try:
                upstream = socket.create_connection(self.target, timeout=5)
            except OSError:
                client.close()
                continue
            with self.lock:
                self.open += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def _pipe(source: socket.socket, sink: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while data := source.recv(65536):
                sink.sendall(data)
        for sock in (source, sink):
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    def cut(self) -> None:
        if self.listener is not None:
            # shutdown() first: a bare close() leaves the thread blocked in
            # accept() on Linux, still taking connections.
            with contextlib.suppress(OSError):
                self.listener.shutdown(socket.SHUT_RDWR)
            self.listener.close()
            self.listener = None
        with self.lock:
            for sock in self.open:
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
                sock.close()
            self.open.clear()


def test_the_database_away_is_a_clean_503_and_play_resumes(tmp_path: Path) -> None:
    name = f"patience_fault_{secrets.token_hex(4)}"
    relay = Relay(("127.0.0.1", 5432))
    relay.start()
    env = server_env(
        f"postgres://postgres@127.0.0.1:{relay.port}/{name}",
        "redis://127.0.0.1:6379/10",
        CELERY_EAGER="1",
        DB_POOL_TIMEOUT="1",
        LOG_LEVEL="WARNING",
    )
    log = tmp_path / "daphne.log"
    try:
        with one_daphne(name, env, log) as port:
            player = Client(port, timeout=WAIT, keep_alive=False)
            player.sign_up("ada", "correct horse battery")
            game = player.expect(
                "POST", "/api/games/", {"random": "EH1-N", "any": True}, status=201
            )
            actions = f"/api/games/{game['id']}/actions/"
            player.expect("POST", actions, {"seq": 0, "action": {"type": "stock"}})

            relay.cut()  # PostgreSQL is gone for daphne
            health = player.request("GET", "/healthz")
            assert health.status == 503 and health.body["error"]["code"] == "unavailable"
            assert "database" in health.body["error"]["message"]
            for method, path, payload in (
                ("POST", actions, {"seq": 1, "action": {"type": "stock"}}),
                ("GET", f"/api/games/{game['id']}/", None),
                ("POST", "/api/games/", {"random": "SH1-C4", "any": True}),
            ):
                answer = player.request(method, path, payload)
                assert answer.status == 503, (path, answer.status, answer.body)
                body = answer.body
                assert set(body) == {"error"} and body["error"]["code"] == "unavailable", body
                assert answer.headers.get("Retry-After")

            # Nothing half-written: the database holds one action, one game.
            with psycopg.connect(f"postgresql://postgres@127.0.0.1:5432/{name}") as conn:
                assert conn.execute("SELECT count(*) FROM games_action").fetchone()[0] == 1
                assert conn.execute("SELECT count(*) FROM games_attempt").fetchone()[0] == 1

            relay.start()  # back: the same player goes on where they were
            wait_for(
                lambda: player.request("GET", "/healthz").status == 200, "healthz ok again", WAIT
            )
            answer = wait_for(
                lambda: (
                    (r := player.request("POST", actions, {"seq": 1, "action": {"type": "stock"}}))
                    and r.status != 503
                    and r
                ),
                "an action accepted again",
                WAIT,
            )
            assert answer.status == 200 and answer.body["seq"] == 2, answer.body
    finally:
        relay.cut()
        if log.exists():
            print(log.read_text(errors="replace")[-3000:])
