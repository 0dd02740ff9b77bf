"""The action log's monthly partitions on PostgreSQL (docs/operations.md, "The action log").

``games_action`` is partitioned by range of ``month``, the UTC month its
attempt started (``games.models.log_month``), one partition a month
(``games_action_y2026m12``), plus a DEFAULT partition as a safety net: a row
whose month has no partition yet (beat down for months) is still accepted
there, never refused with a 500, and ``ensure`` moves it to its month's
partition as it creates it. Partitions are made ahead of need by the beat job
``ensure_action_partitions`` and ``manage.py ensure_partitions``; ``detach``
takes old months out of the table for cold storage.

New partitions are built as plain tables and then attached: ``ATTACH
PARTITION`` takes only a SHARE UPDATE EXCLUSIVE lock on the parent, so actions
go on being written meanwhile (``CREATE TABLE … PARTITION OF`` would take an
ACCESS EXCLUSIVE one).

Under SQLite (the embedded default) the log is a plain table and every
function here does nothing. This module knows table names, not models: the
migration that partitions the table uses it too.
"""

from __future__ import annotations

import datetime as dt
import logging
import re
from typing import Any

from django.db import transaction

TABLE = "games_action"
DEFAULT = f"{TABLE}_default"
AHEAD = 3
"""Months made ahead of the current one: beat runs daily, so three months of
outage pass before a row meets a month without its partition."""

log = logging.getLogger(__name__)

_NAME = re.compile(rf"^{TABLE}_y(\d{{4}})m(\d{{2}})$")


def add_months(month: dt.date, count: int) -> dt.date:
    """The first day of the month ``count`` months after ``month``'s."""
    index = month.year * 12 + month.month - 1 + count
    return dt.date(index // 12, index % 12 + 1, 1)


def partition_name(month: dt.date) -> str:
    return f"{TABLE}_y{month.year:04d}m{month.month:02d}"


def partitioned(connection: Any) -> bool:
    """Whether the log is a partitioned table (PostgreSQL, migrated)."""
    if connection.vendor != "postgresql":
        return False
    with connection.cursor() as cursor:
        cursor.execute("SELECT relkind FROM pg_class WHERE oid = to_regclass(%s)", [TABLE])
        row = cursor.fetchone()
    return row is not None and row[0] == "p"


def months(connection: Any) -> list[dt.date]:
    """The months that have a partition, oldest first."""
    if not partitioned(connection):
        return []
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid"
            " WHERE i.inhparent = %s::regclass",
            [TABLE],
        )
        names = [name for (name,) in cursor.fetchall()]
    found = [_NAME.match(name) for name in names]
    return sorted(dt.date(int(m[1]), int(m[2]), 1) for m in found if m)


def create_sql(month: dt.date, *, moving: bool) -> list[str]:
    """Statements (one transaction) that add ``month``'s partition without blocking
    writers; with ``moving``, its rows already in the DEFAULT partition move
    into it first (otherwise the attach would fail on them)."""
    name, start, end = partition_name(month), month, add_months(month, 1)
    bounds = f"month >= '{start}' AND month < '{end}'"
    statements = [
        f"CREATE TABLE {name} (LIKE {TABLE} INCLUDING DEFAULTS INCLUDING CONSTRAINTS)",
        # Lets the attach skip scanning the new table for rows out of range.
        f"ALTER TABLE {name} ADD CONSTRAINT {name}_range CHECK ({bounds})",
    ]
    if moving:
        statements += [
            # Writers of that month wait until the rows have moved and the
            # partition is attached, so none is left behind in DEFAULT.
            f"LOCK TABLE {DEFAULT} IN EXCLUSIVE MODE",
            f"INSERT INTO {name} SELECT * FROM {DEFAULT} WHERE {bounds}",
            f"DELETE FROM {DEFAULT} WHERE {bounds}",
        ]
    statements.append(
        f"ALTER TABLE {TABLE} ATTACH PARTITION {name} FOR VALUES FROM ('{start}') TO ('{end}')"
    )
    return statements


def ensure(connection: Any, *, today: dt.date | None = None) -> list[str]:
    """Make sure this month's partition and the next ``AHEAD`` months' exist, and
    give every month with rows in DEFAULT its own partition (moving them). Safe
    to run twice, and from several processes (each month in a transaction of
    its own; a month another run made meanwhile is skipped). Returns the
    partitions created."""
    if not partitioned(connection):
        return []
    today = today or dt.datetime.now(dt.UTC).date()
    current = today.replace(day=1)
    wanted = {add_months(current, n) for n in range(AHEAD + 1)}
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT DISTINCT date_trunc('month', month)::date FROM {DEFAULT}")
        stray = {month for (month,) in cursor.fetchall()}
    if stray:
        # Months went by without this job or a migrate: rows waited in DEFAULT.
        log.warning(
            "action log: rows of %s in %s: moved", ", ".join(map(str, sorted(stray))), DEFAULT
        )
    created = []
    for month in sorted(wanted | stray):
        with transaction.atomic(using=connection.alias), connection.cursor() as cursor:
            # One creator at a time; then check again (another may have made it).
            cursor.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", [TABLE])
            if month in months(connection):
                continue
            for statement in create_sql(month, moving=month in stray):
                cursor.execute(statement)
        created.append(partition_name(month))
    return created


def detach(connection: Any, *, before: dt.date, drop: bool = False) -> list[str]:
    """Take every month's partition older than ``before``'s month out of the log
    (a plain table then, to dump to cold storage), or with ``drop`` remove it.
    Run it in a transaction. Returns the partitions detached."""
    old = [m for m in months(connection) if m < before.replace(day=1)]
    with connection.cursor() as cursor:
        # Detaching locks the whole log for an instant (ACCESS EXCLUSIVE; the
        # CONCURRENTLY form is refused beside a DEFAULT partition): give up
        # rather than hold every action queued behind a long query.
        cursor.execute("SET LOCAL lock_timeout = '5s'")
        for month in old:
            name = partition_name(month)
            cursor.execute(f"ALTER TABLE {TABLE} DETACH PARTITION {name}")
            if drop:
                cursor.execute(f"DROP TABLE {name}")
    return [partition_name(m) for m in old]
