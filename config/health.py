"""``GET /healthz``: the process answers, and the database and Redis it needs do.

200 ``{"status": "ok", "database": "ok", "redis": "ok"}``, or 503 with the
error shape naming what is unreachable — for load balancers, docker-compose
health checks and operators. Each check is bounded (a couple of seconds).
"""

from __future__ import annotations

import redis
from django.conf import settings
from django.db import connection
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache

from .errors import error_body

TIMEOUT = 2.0


def _database() -> str | None:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as exc:  # any failure is "unreachable", said in the answer
        return f"database: {type(exc).__name__}"
    return None


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


@never_cache
def healthz(request: HttpRequest) -> JsonResponse:
    problems = [p for p in (_database(), _redis()) if p]
    if problems:
        return JsonResponse(
            error_body("unavailable", "Unreachable: " + "; ".join(problems) + "."), status=503
        )
    return JsonResponse(
        {"status": "ok", "database": "ok", "redis": "ok" if settings.REDIS_URL else "embedded"}
    )
