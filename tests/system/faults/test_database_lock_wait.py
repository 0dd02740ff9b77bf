"""Bounded waits straight to PostgreSQL (issue 25): a real daphne on the direct
path (the psycopg pool), and a game whose row another session holds locked —
a stalled transaction, a long migration. The player's action over HTTP and over
its game socket waits ``DB_LOCK_TIMEOUT`` (3 s) for the lock, then is answered
503 + ``Retry-After`` (an ``error`` frame on the socket), nothing applied; once
the lock is let go the same ``seq`` is accepted, once. Before the fix each
waited for as long as the lock was held.

And the settings themselves: every connection on the direct path carries the
statement and lock timeouts; behind PgBouncer (which refuses the ``options``
start-up parameter) none is sent.
"""

from __future__ import annotations

import json
import secrets
import subprocess
import sys
import threading
import time
from pathlib import Path

import psycopg
import pytest

from deploy.processes import ROOT, free_port, one_daphne, server_env, start_redis, stop
from tests.support.api import requires_postgres, requires_redis
from tests.support.players import close_quietly, open_socket, sign_up

pytestmark = [requires_postgres, requires_redis]

HOLD_S = 12.0  # the lock is held this long; longer than BOUND
BOUND = 10.0  # each refusal comes within this (DB_LOCK_TIMEOUT is 3 s)


def test_a_locked_game_is_a_503_within_the_lock_timeout_and_nothing_is_applied(
    tmp_path: Path,
) -> None:
    name = f"patience_lock_{secrets.token_hex(4)}"
    redis_port = free_port()
    env = server_env(
        f"postgres://postgres@127.0.0.1:5432/{name}",
        f"redis://127.0.0.1:{redis_port}/0",
        CELERY_EAGER="1",
        LOG_LEVEL="WARNING",
    )
    redis = start_redis(redis_port)
    try:
        locked_game(name, env, tmp_path)
    finally:
        stop([redis])


def locked_game(name: str, env: dict[str, str], tmp_path: Path) -> None:
    with one_daphne(name, env, tmp_path / "daphne.log") as port:
        player = sign_up(f"lock_{secrets.token_hex(3)}", port, wait=3 * HOLD_S)
        game = player.expect("POST", "/api/games/", {"random": "EH1-N", "any": True}, 201)
        actions = f"/api/games/{game['id']}/actions/"
        stock = {"type": "stock"}
        ws = open_socket(port, f"/ws/games/{game['id']}/", player, wait=3 * HOLD_S)
        try:
            assert json.loads(ws.recv(timeout=BOUND))["type"] == "snapshot"
            url = f"postgresql://postgres@127.0.0.1:5432/{name}"
            with psycopg.connect(url) as holder:  # a transaction that holds the row
                holder.execute("SELECT 1 FROM games_attempt WHERE id = %s FOR UPDATE", [game["id"]])
                release = threading.Timer(HOLD_S, holder.rollback)
                release.start()
                try:
                    sent = time.monotonic()
                    answer = player.request("POST", actions, {"seq": 0, "action": stock})
                    http_took = time.monotonic() - sent
                    sent = time.monotonic()
                    ws.send(json.dumps({"seq": 0, "action": stock}))
                    frame = json.loads(ws.recv(timeout=3 * HOLD_S))
                    socket_took = time.monotonic() - sent
                finally:
                    release.join()
            assert answer.status == 503 and http_took < BOUND, (answer.status, http_took)
            assert answer.body["error"]["code"] == "unavailable", answer.body
            assert "database" in answer.body["error"]["message"], answer.body
            assert answer.headers.get("Retry-After"), dict(answer.headers)
            assert frame["type"] == "error" and frame["seq"] == 0, frame
            assert frame["error"]["code"] == "unavailable" and socket_took < BOUND, (
                frame,
                socket_took,
            )
            # The lock let go: the same seq is accepted, and only once.
            again = player.expect("POST", actions, {"seq": 0, "action": stock})
            assert again["seq"] == 1, again
            with psycopg.connect(url) as conn:
                rows = conn.execute(
                    "SELECT seq FROM games_action WHERE attempt_id = %s", [game["id"]]
                ).fetchall()
            assert rows == [(0,)], rows
        finally:
            close_quietly(ws)


SHOW_TIMEOUTS = (
    "import json, django; django.setup(); from django.db import connection as c;"
    "cursor = c.cursor();"
    "print(json.dumps([cursor.execute(f'SHOW {name}').fetchone()[0] for name in"
    " ('statement_timeout', 'lock_timeout')] + [c.get_connection_params().get('connect_timeout')]))"
)


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        ({}, ["5s", "3s", 3]),
        ({"DB_STATEMENT_TIMEOUT": "0", "DB_LOCK_TIMEOUT": "0.5"}, ["0", "500ms", 3]),
    ],
)
def test_every_direct_connection_carries_the_timeouts(extra: dict, expected: list) -> None:
    env = server_env("postgres://postgres@127.0.0.1:5432/postgres", None, **extra)
    out = subprocess.run(
        [sys.executable, "-c", SHOW_TIMEOUTS],
        cwd=ROOT, env=env, capture_output=True, text=True, check=True, timeout=60,
    )  # fmt: skip
    assert json.loads(out.stdout.strip().splitlines()[-1]) == expected
