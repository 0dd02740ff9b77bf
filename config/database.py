"""The service's database settings (``DATABASES["default"]``), from the values
``config/settings.py`` reads from the environment (it alone reads it):
PostgreSQL with every wait bounded and a pool of its own, or behind PgBouncer in
transaction pooling; or the embedded default, SQLite, with its writers
serialised."""

from __future__ import annotations

from typing import Any

import dj_database_url


def database(
    url: str,
    *,
    connect_timeout: int,
    statement_timeout_ms: int,
    lock_timeout_ms: int,
    pool_size: int,
    pool_timeout: float,
    pgbouncer: bool,
) -> dict[str, Any]:
    """The database of ``url`` as the service uses it."""
    db: dict[str, Any] = dj_database_url.parse(url)  # type: ignore[assignment]
    options = db.setdefault("OPTIONS", {})
    if db["ENGINE"].endswith("postgresql"):
        # Under ASGI each request runs in a thread of its own, so per-thread persistent
        # connections are never reused: a process-wide pool is (Django's ASGI advice).
        db["CONN_MAX_AGE"] = 0
        # Server-side binding lets psycopg prepare the statements every action repeats.
        options["server_side_binding"] = True
        # Every wait on the database is bounded, so a stall is a quick 503 (kit/http.py)
        # rather than a request held for as long as it lasts (issue 25): connecting on
        # every path; a statement and a lock wait here, straight to PostgreSQL. PgBouncer
        # refuses the ``options`` start-up parameter (1.18, measured), and it holds a
        # paused or overloaded pool's queries itself, where no PostgreSQL timeout can
        # fire: its own query_wait_timeout and query_timeout bound them (deploy/processes.py,
        # docker-compose.yml, deploy/k8s/base/kustomization.yaml; docs/operations.md,
        # "PgBouncer"). Through PgBouncer they are the role's defaults in the database
        # instead, which every ``migrate`` sets (games/apps.py, ``database_bounds``);
        # the migrations themselves run without them.
        options["connect_timeout"] = connect_timeout
        if pgbouncer:
            # Behind PgBouncer in transaction pooling (docs/operations.md, "PgBouncer") each
            # transaction may get another server connection, so nothing may outlive
            # one: no server-side cursors (``.iterator()`` would hold one across
            # transactions), no named prepared statements (PgBouncer 1.18 does not
            # carry them over; server-side binding's unnamed ones are fine), and no
            # pool of our own: a connection per request to PgBouncer, which pools.
            db["DISABLE_SERVER_SIDE_CURSORS"] = True
            options["prepare_threshold"] = None
        else:
            options["options"] = (
                f"-c statement_timeout={statement_timeout_ms} -c lock_timeout={lock_timeout_ms}"
            )
            # How long a request waits for a connection (all busy, or the database
            # away) before it is answered 503 (kit/http.py).
            options["pool"] = {"min_size": 1, "max_size": pool_size, "timeout": pool_timeout}
    if db["ENGINE"].endswith("sqlite3"):
        # The embedded default serialises writers: each transaction takes SQLite's
        # write lock at BEGIN (IMMEDIATE) and waits up to 20 s for it. With deferred
        # transactions two requests both read, then one's write found the lock held
        # and answered 503 ("database is locked") however long it waited (issue 17).
        # WAL lets readers go on while one writes (synchronous stays FULL: an
        # acknowledged action survives a power cut too).
        options.update(
            transaction_mode="IMMEDIATE", timeout=20, init_command="PRAGMA journal_mode=WAL"
        )
    return db
