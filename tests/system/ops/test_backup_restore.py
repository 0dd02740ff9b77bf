"""The restore drill of docs/operations.md ("Backup and restore"), run for real:
a scratch PostgreSQL database holding rows made through the service (players
signed up, dailies won action by action, a game under way) is dumped with
``pg_dump -Fc``, restored with ``pg_restore`` into another scratch database, and
the two are compared — every table's rows, the migrations table, the sequences —
and the app, pointed at the restored database, reads the same leaderboard,
player record and signed-in player as it did from the original."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from django.core.cache import cache
from django.db import connection

from games.dailies import utc_today
from tests.support.api import Client, requires_postgres, start, win_daily

pytestmark = [
    requires_postgres,
    pytest.mark.skipif(not shutil.which("pg_restore"), reason="needs pg_dump and pg_restore"),
]

VARIANT = "SH1-C4"


def libpq_env() -> dict[str, str]:
    """The test database's server for the PostgreSQL client tools, as PG* variables."""
    db = connection.settings_dict
    found = {"PGHOST": db["HOST"], "PGPORT": str(db["PORT"] or 5432), "PGUSER": db["USER"]}
    if db.get("PASSWORD"):
        found["PGPASSWORD"] = db["PASSWORD"]
    return {**os.environ, **{k: v for k, v in found.items() if v}}


def server(dbname: str) -> psycopg.Connection[Any]:
    db = connection.settings_dict
    return psycopg.connect(
        host=db["HOST"],
        port=db["PORT"] or 5432,
        user=db["USER"],
        password=db.get("PASSWORD") or None,
        dbname=dbname,
        autocommit=True,
    )


@pytest.fixture
def restored_name() -> Iterator[str]:
    """A scratch database's name beside the test database, dropped afterwards."""
    name = f"{connection.settings_dict['NAME']}_restored"
    with server("postgres") as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    yield name
    with server("postgres") as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def snapshot(dbname: str) -> dict[str, Any]:
    """Every public table's rows (as text, sorted), the migrations applied and
    the sequences' positions of database ``dbname``."""
    with server(dbname) as db:
        tables = [
            name
            for (name,) in db.execute(
                "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
                " WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') ORDER BY 1"
            )
        ]
        rows = {
            table: [row for (row,) in db.execute(f'SELECT t::text FROM "{table}" t ORDER BY 1')]
            for table in tables
        }
        migrations = db.execute(
            "SELECT app, name, applied FROM django_migrations ORDER BY id"
        ).fetchall()
        sequences = db.execute(
            "SELECT sequencename, last_value FROM pg_sequences"
            " WHERE schemaname = 'public' ORDER BY 1"
        ).fetchall()
    return {"rows": rows, "migrations": migrations, "sequences": sequences}


def reads(player: Client) -> dict[str, Any]:
    """What the app answers from the database it is connected to: today's
    leaderboard to a visitor and to a player, a record, the player's me."""
    cache.clear()  # nothing from the other database's answers
    today = utc_today().isoformat()
    answers = {
        "database": connection.cursor().connection.info.dbname,
        "board": Client().get(f"/api/leaderboard/{today}/{VARIANT}/"),
        "board_as_player": player.get(f"/api/leaderboard/{today}/{VARIANT}/"),
        "record": Client().get(f"/api/players/{player.username}/"),
        "me": player.get("/api/auth/me/"),
    }
    for what, response in answers.items():
        if what != "database":
            assert response.status_code == 200, (what, response.content)
            answers[what] = response.json()
    return answers


def dump(dbname: str, into: Path) -> None:
    subprocess.run(
        ["pg_dump", "-Fc", "--no-owner", "-d", dbname, "-f", str(into)],
        env=libpq_env(),
        check=True,
        capture_output=True,
        timeout=120,
    )


def restore(archive: Path, dbname: str) -> None:
    with server("postgres") as admin:
        admin.execute(f'CREATE DATABASE "{dbname}"')
    subprocess.run(
        ["pg_restore", "--no-owner", "--exit-on-error", "-d", dbname, str(archive)],
        env=libpq_env(),
        check=True,
        capture_output=True,
        timeout=120,
    )


def connected_to(dbname: str) -> None:
    """Point the app's connection at database ``dbname`` (the next query opens it)."""
    connection.close()
    connection.settings_dict["NAME"] = dbname


@pytest.mark.django_db(transaction=True)
def test_a_dump_restores_into_a_database_the_app_reads_the_same(
    make_player, tmp_path, restored_name
):
    winner, runner_up, playing = make_player(), make_player(), make_player()
    win_daily(winner, VARIANT)
    win_daily(runner_up, VARIANT)
    start(playing, daily=VARIANT)
    source = connection.settings_dict["NAME"]
    before = reads(winner)
    assert before["board"]["count"] == 2 and before["me"]["username"] == winner.username

    archive = tmp_path / "patience.dump"
    dump(source, archive)
    restore(archive, restored_name)

    original, copy = snapshot(source), snapshot(restored_name)
    assert copy["migrations"] == original["migrations"] and original["migrations"]
    assert copy["sequences"] == original["sequences"]
    assert copy["rows"].keys() == original["rows"].keys()
    differing = [t for t in original["rows"] if copy["rows"][t] != original["rows"][t]]
    assert not differing, f"tables whose rows differ after the restore: {differing}"
    assert sum(map(len, original["rows"].values())) > 0

    try:
        connected_to(restored_name)
        after = reads(winner)
    finally:
        connected_to(source)
    assert after["database"] == restored_name and before["database"] == source
    assert {k: v for k, v in after.items() if k != "database"} == {
        k: v for k, v in before.items() if k != "database"
    }


@pytest.mark.django_db(transaction=True)
def test_the_comparison_sees_a_row_the_restore_lacks(make_player, tmp_path, restored_name):
    """The drill can fail: a result written after the dump is missing from the
    restored copy, and both the rows and the leaderboard read show it."""
    winner, late = make_player(), make_player()
    win_daily(winner, VARIANT)
    source = connection.settings_dict["NAME"]
    archive = tmp_path / "patience.dump"
    dump(source, archive)
    win_daily(late, VARIANT)  # after the backup
    restore(archive, restored_name)
    original, copy = snapshot(source), snapshot(restored_name)
    assert copy["rows"]["games_attempt"] != original["rows"]["games_attempt"]
    before = reads(winner)
    try:
        connected_to(restored_name)
        after = reads(winner)
    finally:
        connected_to(source)
    assert (before["board"]["count"], after["board"]["count"]) == (2, 1)
