"""The action path through a real PgBouncer in transaction pooling
(docs/operations.md, "PgBouncer"), as compose and Kubernetes run it.

A scratch database migrated directly (as the migrations Job does), a
``pgbouncer`` of the test's own in front of it (``deploy.processes.start_pgbouncer``:
Debian's 1.18, ``pool_mode = transaction``), a ``redis-server`` of its own, and a
real daphne whose ``DATABASE_URL`` is the PgBouncer with ``PGBOUNCER=1`` (tasks
run in the daphne, so the replay check goes through it too). The day's deals
are prepared through it, then a player signs up, wins the ranked daily over
HTTP, wins a practice game over the websocket, reads both replays and the
leaderboard. Then the proof that the traffic went through PgBouncer: its
``SHOW STATS`` counted the transactions, and every PostgreSQL backend on the
database is one of PgBouncer's server connections, named by the
``application_name`` the daphne gave.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import secrets
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from decimal import Decimal
from pathlib import Path
from typing import Any

import psycopg
import pytest

from deploy.client import Client
from deploy.processes import (
    PGBOUNCER,
    ROOT,
    admin_sql,
    create_database,
    drop_database,
    free_port,
    migrate,
    server_env,
    start_daphne,
    start_pgbouncer,
    start_redis,
    stop,
    wait_until_up,
)
from tests.support.api import requires_postgres
from tests.support.players import Player, open_socket
from tests.support.search import find_win

pytestmark = [
    requires_postgres,
    pytest.mark.skipif(
        not Path(PGBOUNCER).exists() and os.environ.get("REQUIRE_SERVICES") != "1",
        reason="no pgbouncer (apt-get install pgbouncer)",
    ),
]

CODE = "SH1-C4-AAAAAAE"  # a Seahaven deal that can be won
VARIANT = "SH1-C4"
APPLICATION = "patience-web"


@contextmanager
def through_pgbouncer(tmp_path: Path) -> Iterator[tuple[int, int, str]]:
    """PgBouncer, Redis and a daphne on a fresh database; yields the daphne's and
    PgBouncer's ports and the database's name."""
    assert Path(PGBOUNCER).exists(), "REQUIRE_SERVICES=1 but pgbouncer is not installed"
    database = f"patience_pgb_{secrets.token_hex(4)}"
    processes: list[subprocess.Popen[bytes]] = []
    create_database(database)
    try:
        redis_url = f"redis://127.0.0.1:{(redis_port := free_port())}/0"
        processes.append(start_redis(redis_port, log=tmp_path / "redis.log"))
        bouncer_port = free_port()
        processes.append(
            start_pgbouncer(bouncer_port, tmp_path / "pgbouncer", log=tmp_path / "pgbouncer.log")
        )
        migrate(server_env(f"postgres://postgres@127.0.0.1:5432/{database}", redis_url))
        env = server_env(
            f"postgres://postgres@127.0.0.1:{bouncer_port}/{database}"
            f"?application_name={APPLICATION}",
            redis_url,
            PGBOUNCER="1",
            CELERY_EAGER="1",
        )
        subprocess.run(
            [sys.executable, "manage.py", "prepare_dailies", "--days", "1"],
            cwd=ROOT, env=env, check=True, timeout=300, capture_output=True,
        )  # fmt: skip
        port, log = free_port(), tmp_path / "daphne.log"
        processes.append(start_daphne(port, env, log))
        wait_until_up(port, processes[-1], log)
        yield port, bouncer_port, database
    finally:
        stop(processes[::-1])
        drop_database(database)


def bouncer_console(port: int, command: str) -> list[dict[str, Any]]:
    """A ``SHOW`` of PgBouncer's admin console, as dicts."""
    with psycopg.connect(
        f"postgresql://postgres@127.0.0.1:{port}/pgbouncer", autocommit=True
    ) as conn:
        cursor = conn.execute(command)
        names = [column.name for column in cursor.description or ()]
        return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def transactions(port: int, database: str) -> Decimal:
    rows = [r for r in bouncer_console(port, "SHOW STATS") if r["database"] == database]
    return rows[0]["total_xact_count"] if rows else Decimal(0)


def daily_proof(bouncer_port: int, database: str) -> list[dict[str, Any]]:
    """The solver's line of today's daily (the test reads it; no player can)."""
    url = f"postgresql://postgres@127.0.0.1:{bouncer_port}/{database}"
    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute(
            "SELECT proof FROM games_dailydeal WHERE date = %s AND variant = %s",
            [dt.datetime.now(dt.UTC).date(), VARIANT],
        ).fetchone()
    assert row is not None and row[0], "today's daily was not prepared proven"
    return list(row[0])


def bounds_through(bouncer_port: int, database: str) -> list[str]:
    """The statement and lock timeouts a session through PgBouncer runs with."""
    url = f"postgresql://postgres@127.0.0.1:{bouncer_port}/{database}"
    with psycopg.connect(url, autocommit=True) as conn:
        return [
            conn.execute(f"SHOW {name}").fetchone()[0]  # type: ignore[index]
            for name in ("statement_timeout", "lock_timeout")
        ]


def test_the_action_path_through_pgbouncer_in_transaction_pooling(tmp_path: Path) -> None:
    line = find_win(CODE)
    assert line is not None, f"the search found no win for {CODE}"
    practice_line = [action.to_json() for action in line]
    today = dt.datetime.now(dt.UTC).date().isoformat()

    with through_pgbouncer(tmp_path) as (port, bouncer_port, database):
        # PgBouncer refuses the start-up options that carry them straight to
        # PostgreSQL: ``migrate`` made them the role's defaults (issue 25).
        assert bounds_through(bouncer_port, database) == ["5s", "3s"]
        before = transactions(bouncer_port, database)
        player = Client(port, keep_alive=False)
        player.sign_up(f"bouncer_{secrets.token_hex(3)}", "correct horse battery staple")

        # The ranked daily over HTTP, to the win.
        proof = daily_proof(bouncer_port, database)
        daily = player.expect("POST", "/api/games/", {"daily": VARIANT}, status=201)
        assert daily["ranked"] is True and daily["view"]["code"] is None, daily
        for seq, action in enumerate(proof):
            won = player.expect(
                "POST", f"/api/games/{daily['id']}/actions/", {"seq": seq, "action": action}
            )
        assert won["status"] == "won" and won["seq"] == len(proof), won
        # The first action sent again: the same answer, nothing applied twice.
        again = player.expect(
            "POST", f"/api/games/{daily['id']}/actions/", {"seq": 0, "action": proof[0]}
        )
        assert again["seq"] == len(proof), again
        ahead = player.request(
            "POST",
            f"/api/games/{daily['id']}/actions/",
            {"seq": len(proof) + 1, "action": proof[0]},
        )
        assert ahead.status == 409 and ahead.body["error"]["seq"] == len(proof), ahead

        # A practice game over the websocket, to the win.
        practice = player.expect("POST", "/api/games/", {"code": CODE}, status=201)
        ws = open_socket(port, f"/ws/games/{practice['id']}/", player)
        try:
            socket = Player(ws)
            assert socket.snapshot()["v"] == 0
            for seq, action in enumerate(practice_line):
                ack = socket.play(seq, action)
        finally:
            ws.close()
        assert ack["game"]["status"] == "won", ack

        # Both replays, and the leaderboard with the daily verified by its task.
        for game, actions in ((daily, proof), (practice, practice_line)):
            replay = player.expect("GET", f"/api/games/{game['id']}/replay/")
            assert replay["actions"] == actions
            assert len(replay["log"]) == len(actions)
        board = player.expect("GET", f"/api/leaderboard/{today}/{VARIANT}/")
        assert [(r["rank"], r["player"], r["won"]) for r in board["results"]] == [
            (1, player.username, True)
        ], board
        assert board["results"][0]["verified"] is True, board

        # It all went through PgBouncer: it counted a transaction per action at
        # least, and every backend on the database is one of its connections.
        assert transactions(bouncer_port, database) - before >= len(proof) + len(practice_line)
        servers = {
            row["remote_pid"]: row
            for row in bouncer_console(bouncer_port, "SHOW SERVERS")
            if row["database"] == database
        }
        backends = admin_sql(
            "SELECT pid, application_name FROM pg_stat_activity"
            f" WHERE datname = '{database}' AND pid <> pg_backend_pid()"
        )
        assert backends, "no connection to the database at all"
        for pid, application in backends:
            assert pid in servers, f"backend {pid} ({application!r}) bypassed PgBouncer"
        assert APPLICATION in {application for _, application in backends}, backends


SHOW_DATABASE = (
    "import json, django; django.setup(); from django.db import connection as c;"
    "o = c.settings_dict['OPTIONS'];"
    "print(json.dumps([c.settings_dict['DISABLE_SERVER_SIDE_CURSORS'], 'pool' in o,"
    " c.get_connection_params()['prepare_threshold']]))"
)


@pytest.mark.parametrize(
    ("flag", "expected"),
    [("1", [True, False, None]), ("0", [False, True, None])],
)
def test_the_setting_turns_off_what_transaction_pooling_breaks(flag: str, expected: list) -> None:
    """PGBOUNCER=1: no server-side cursors (the action test above cannot catch
    one: a lone client gets the same server connection back), no pool of our
    own, no named prepared statements; without it, the pool is back."""
    env = server_env("postgres://postgres@127.0.0.1:6432/patience", None, PGBOUNCER=flag)
    out = subprocess.run(
        [sys.executable, "-c", SHOW_DATABASE],
        cwd=ROOT, env=env, capture_output=True, text=True, check=True, timeout=60,
    )  # fmt: skip
    assert json.loads(out.stdout.strip().splitlines()[-1]) == expected
