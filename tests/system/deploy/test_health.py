"""Liveness and readiness (config/health.py), as compose and Kubernetes ask them.

Ready on the migrated test database with the real PostgreSQL and Redis; not
ready, naming Redis, when Redis does not answer; and on a real daphne over a
scratch database migrated to one step before the last, not ready naming the
migrations until they are all applied. Live in every case: liveness asks
nothing of the database or Redis.
"""

from __future__ import annotations

import json
import secrets
import subprocess
from pathlib import Path

import pytest
from django.conf import settings

from deploy import processes
from deploy.client import Client
from tests.support.api import assert_error, requires_postgres, requires_redis

ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.django_db
def test_ready_and_live_on_a_migrated_database(anon):
    ready = anon.get("/readyz")
    assert ready.status_code == 200, ready.content
    assert ready.json() == {
        "status": "ok",
        "database": "ok",
        "redis": "ok" if settings.REDIS_URL else "embedded",
        "migrations": "ok",
    }
    assert anon.get("/livez").json() == {"status": "ok"}
    assert "no-cache" in ready["Cache-Control"]


@requires_redis
@pytest.mark.django_db
def test_not_ready_naming_redis_when_it_does_not_answer_but_live(anon, settings):
    settings.REDIS_URL = f"redis://127.0.0.1:{processes.free_port()}/0"  # nothing listens there
    error = assert_error(anon.get("/readyz"), 503, "unavailable")
    assert "redis" in error["message"] and "database" not in error["message"], error
    live = anon.get("/livez")
    assert live.status_code == 200 and live.json() == {"status": "ok"}


def one_before_the_last(app: str) -> str:
    names = sorted(p.stem for p in (ROOT / app / "migrations").glob("0*.py"))
    return names[-2]


@requires_postgres
@requires_redis
def test_not_ready_naming_the_migrations_until_they_are_applied(tmp_path: Path):
    database = f"patience_health_{secrets.token_hex(4)}"
    env = processes.server_env(
        f"postgres://postgres@127.0.0.1:5432/{database}", settings.REDIS_URL, LOG_LEVEL="INFO"
    )
    processes.create_database(database)
    process: subprocess.Popen[bytes] | None = None
    try:
        processes.migrate(env, "games", one_before_the_last("games"))
        port, log = processes.free_port(), tmp_path / "daphne.log"
        process = processes.start_daphne(port, env, log)
        processes.wait_until_up(port, process, log, path="/livez")
        client = Client(port, keep_alive=False)
        answer = client.request("GET", "/readyz")
        assert answer.status == 503, answer
        assert answer.body["error"]["code"] == "unavailable", answer.body
        message = answer.body["error"]["message"]
        assert "migrations" in message and "not applied" in message, message
        assert "redis" not in message and "database" not in message, message
        assert client.request("GET", "/livez").status == 200
        # Not ready is not remembered: once the migrations Job has run, ready.
        processes.migrate(env)
        answer = client.request("GET", "/readyz")
        assert answer.status == 200 and answer.body["migrations"] == "ok", answer
        assert client.request("GET", "/api/auth/me/").status == 200
    finally:
        if process is not None:
            processes.stop([process])
        processes.drop_database(database)
    # At the production level (INFO) the probes answered well, every few seconds
    # on every pod, write no access line (theirs are DEBUG); a failing one does.
    access = [
        (line["path"], line["status"])
        for line in map(json.loads, log.read_text().splitlines())
        if line["logger"] == "config.access"
    ]
    assert access == [("/readyz", 503), ("/api/auth/me/", 200)], access
