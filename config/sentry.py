"""Error reports to Sentry, when ``SENTRY_DSN`` is set (``config/settings.py``).

Personal data off, and nothing a report could carry that a log line may not
(``kit/logs.py``): no request body, cookie or header that holds a session
or CSRF token, no query string, no user beyond the numeric id, no local
variables of stack frames (they hold game states with face-down cards), no
Redis command (a cache key names the session). Each event is tagged with the
log context — ``request_id``, ``attempt_id``, ``seq``, ``task`` — so a report
finds its log lines.
"""

from __future__ import annotations

from typing import Any

import sentry_sdk
import structlog
from sentry_sdk.integrations.celery import CeleryIntegration
from sentry_sdk.integrations.django import DjangoIntegration
from sentry_sdk.integrations.redis import RedisIntegration

Event = dict[str, Any]

SAFE_HEADERS = {"content-type", "content-length", "accept", "host"}
TAGS = ("request_id", "conn", "attempt_id", "seq", "task", "task_id")


def _scrub_request(request: dict[str, Any]) -> dict[str, Any]:
    headers = request.get("headers") or {}
    kept = {"method": request.get("method")}
    if isinstance(request.get("url"), str):
        kept["url"] = request["url"].split("?", 1)[0]
    kept["headers"] = {k: v for k, v in headers.items() if k.lower() in SAFE_HEADERS}
    return kept


def _quiet(crumb: dict[str, Any]) -> bool:
    """A breadcrumb of a Redis command: its key may be a session's."""
    return "redis" in str(crumb.get("category", "")) or "redis" in str(crumb.get("type", ""))


def scrub(event: Event, hint: dict[str, Any] | None = None) -> Event:
    """``before_send`` (and ``before_send_transaction``): keep what finds the bug,
    drop what identifies a player or shows a game."""
    if isinstance(event.get("request"), dict):
        event["request"] = _scrub_request(event["request"])
    context = structlog.contextvars.get_contextvars()
    user = event.get("user") or {}
    user_id = context.get("user_id", user.get("id"))
    event["user"] = {"id": str(user_id)} if user_id is not None else {}
    event.setdefault("tags", {}).update(
        {key: str(context[key]) for key in TAGS if context.get(key) is not None}
    )
    crumbs = event.get("breadcrumbs")
    if isinstance(crumbs, dict) and isinstance(crumbs.get("values"), list):
        crumbs["values"] = [c for c in crumbs["values"] if not _quiet(c)]
    if isinstance(event.get("spans"), list):
        event["spans"] = [s for s in event["spans"] if "redis" not in str(s.get("op", ""))]
    return event


def init(*, dsn: str, environment: str, release: str | None, traces_sample_rate: float) -> None:
    sentry_sdk.init(
        dsn=dsn,
        environment=environment,
        release=release or None,
        traces_sample_rate=traces_sample_rate,
        integrations=[DjangoIntegration(), CeleryIntegration(), RedisIntegration()],
        send_default_pii=False,
        include_local_variables=False,
        max_request_body_size="never",
        before_send=scrub,
        before_send_transaction=scrub,
    )
