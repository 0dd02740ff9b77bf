"""Database waits past their bound, provoked for real (issue 25): a table held
locked from a connection of its own, so that a job meets ``DB_LOCK_TIMEOUT`` and
Celery runs it again (``games.tasks.DATABASE_RETRY``)."""

from __future__ import annotations

import threading

import psycopg
from django.db import connection


def hold_table(table: str, seconds: float, locked: threading.Event) -> None:
    """Hold ``table`` in ACCESS EXCLUSIVE mode from a connection of its own."""
    settings = connection.settings_dict
    with (
        psycopg.connect(
            host=settings["HOST"],
            port=settings["PORT"],
            user=settings["USER"],
            dbname=settings["NAME"],
        ) as other,
        other.transaction(),
    ):
        other.execute(f"LOCK TABLE {table} IN ACCESS EXCLUSIVE MODE")
        locked.set()
        threading.Event().wait(seconds)


def lock_timeout() -> str:
    """The session's ``lock_timeout`` (``DB_LOCK_TIMEOUT``: 3 s in the tests)."""
    with connection.cursor() as cursor:
        cursor.execute("SHOW lock_timeout")
        (value,) = cursor.fetchone()
    return value
