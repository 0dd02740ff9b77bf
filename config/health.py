"""Health answers for load balancers, docker-compose and Kubernetes.

- ``GET /livez``: the process answers. Nothing else is asked, on purpose: a
  liveness probe that failed with the database would restart every pod at once
  during a database blip, which cures nothing.
- ``GET /readyz``: the database and Redis answer, and every migration is applied
  (none left in the plan), so a pod started before the migrations Job finished
  gets no traffic. Once the migrations are found applied that answer is kept:
  they do not come undone, and the check reads every migration file.
- ``GET /healthz``: the database and Redis (the older check, kept for operators'
  scripts).

Ready and healthy answer 200 ``{"status": "ok", …}`` or 503 with the error
shape naming what is missing. Each check is bounded (a couple of seconds).
"""

from __future__ import annotations

import threading

import redis
from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connection, connections
from django.db.migrations.executor import MigrationExecutor
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache

from kit.http import error_body

TIMEOUT = 2.0
_found = {"migrated": False}  # set once the plan was found empty; never unset


def _ask_database(answer: list[str | None]) -> None:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
        answer.append(None)
    except Exception as exc:  # any failure is "unreachable", said in the answer
        answer.append(f"database: {type(exc).__name__}")
    finally:
        connection.close()  # this thread's own connection (back to the pool, if any)


def _database() -> str | None:
    """``SELECT 1``, given TIMEOUT seconds. On a thread of its own: a stalled
    database (a paused PgBouncer holds the query, the TCP connection is fine)
    would hold the probe until PgBouncer's query_wait_timeout; the probe says
    "no answer" at once instead, and the thread ends when that fires (issue 25)."""
    answer: list[str | None] = []
    thread = threading.Thread(target=_ask_database, args=(answer,), daemon=True)
    thread.start()
    thread.join(TIMEOUT)
    return answer[0] if answer else f"database: no answer within {TIMEOUT:g} s"


def _redis() -> str | None:
    if not settings.REDIS_URL:
        return None
    try:
        client = redis.Redis.from_url(
            settings.REDIS_URL, socket_timeout=TIMEOUT, socket_connect_timeout=TIMEOUT
        )
        try:
            client.ping()
        finally:
            client.close()
    except Exception as exc:
        return f"redis: {type(exc).__name__}"
    return None


def _migrations() -> str | None:
    if _found["migrated"]:
        return None
    try:
        executor = MigrationExecutor(connections[DEFAULT_DB_ALIAS])
        plan = executor.migration_plan(executor.loader.graph.leaf_nodes())
    except Exception as exc:
        return f"migrations: {type(exc).__name__}"
    if plan:
        first = plan[0][0]
        return f"migrations: {len(plan)} not applied (first {first.app_label}.{first.name})"
    _found["migrated"] = True
    return None


def _unavailable(what: str, problems: list[str]) -> JsonResponse:
    return JsonResponse(
        error_body("unavailable", f"{what}: " + "; ".join(problems) + "."), status=503
    )


def _redis_state() -> str:
    return "ok" if settings.REDIS_URL else "embedded"


@never_cache
def livez(request: HttpRequest) -> JsonResponse:
    return JsonResponse({"status": "ok"})


@never_cache
def readyz(request: HttpRequest) -> JsonResponse:
    database = _database()
    # The migration plan is read from the database: asked only when that answers.
    problems = [p for p in (database, _redis(), None if database else _migrations()) if p]
    if problems:
        return _unavailable("Not ready", problems)
    return JsonResponse(
        {"status": "ok", "database": "ok", "redis": _redis_state(), "migrations": "ok"}
    )


@never_cache
def healthz(request: HttpRequest) -> JsonResponse:
    problems = [p for p in (_database(), _redis()) if p]
    if problems:
        return _unavailable("Unreachable", problems)
    return JsonResponse({"status": "ok", "database": "ok", "redis": _redis_state()})
