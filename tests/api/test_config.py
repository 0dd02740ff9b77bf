"""Settings from the environment, the admin, and the embedded defaults."""

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from asgiref.sync import SyncToAsync
from asgiref.testing import ApplicationCommunicator
from django.conf import settings
from django.core.handlers.asgi import ASGIHandler

from config.asgi import OneCrossingHandler, application
from games.models import Action
from tests.conftest import assert_error, requires_postgres

ROOT = Path(__file__).resolve().parents[2]


def settings_in_subprocess(
    env: dict[str, str], expr: str, setup: str = ""
) -> subprocess.CompletedProcess[str]:
    secrets = ("SECRET_KEY", "DAILY_DEAL_SECRET", "DEBUG")
    clean = {k: v for k, v in os.environ.items() if k not in secrets}
    clean.pop("DATABASE_URL", None)
    clean.pop("REDIS_URL", None)
    code = f"import config.settings as s; {setup} print({expr})"
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={**clean, **env},
        capture_output=True,
        text=True,
        check=False,
    )


def test_secret_key_is_required_outside_debug():
    out = settings_in_subprocess({}, "s.DEBUG")
    assert out.returncode != 0
    assert "Set SECRET_KEY" in out.stderr


def test_daily_deal_secret_is_required_outside_debug_and_is_not_secret_key():
    """PRODUCT.md, fair daily deals: the daily keys' secret is a setting of its own."""
    out = settings_in_subprocess({"SECRET_KEY": "x"}, "s.DEBUG")
    assert out.returncode != 0
    assert "Set DAILY_DEAL_SECRET" in out.stderr
    both = settings_in_subprocess(
        {"SECRET_KEY": "x", "DAILY_DEAL_SECRET": "y"}, "s.SECRET_KEY, s.DAILY_DEAL_SECRET"
    )
    assert both.stdout.strip() == "x y", both.stderr
    debug = settings_in_subprocess({"DEBUG": "1"}, "s.DAILY_DEAL_SECRET != s.SECRET_KEY")
    assert debug.stdout.strip() == "True", debug.stderr


def test_debug_is_off_unless_asked_and_embedded_defaults_apply():
    out = settings_in_subprocess(
        {"SECRET_KEY": "x", "DAILY_DEAL_SECRET": "y"},
        "s.DEBUG, s.DATABASES['default']['ENGINE'], s.CACHES['default']['BACKEND']",
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == (
        "False django.db.backends.sqlite3 django.core.cache.backends.locmem.LocMemCache"
    )
    debug = settings_in_subprocess({"DEBUG": "1"}, "s.DEBUG, bool(s.SECRET_KEY)")
    assert debug.stdout.strip() == "True True"


def test_database_and_redis_urls_are_read():
    out = settings_in_subprocess(
        {
            "SECRET_KEY": "x",
            "DAILY_DEAL_SECRET": "y",
            "DATABASE_URL": "postgres://u@db.example:5433/name",
            "REDIS_URL": "redis://cache.example:6379/1",
            "ALLOWED_HOSTS": "a.example, b.example",
        },
        "s.DATABASES['default']['HOST'], s.DATABASES['default']['PORT'], "
        "s.CACHES['default']['LOCATION'], s.ALLOWED_HOSTS",
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == (
        "db.example 5433 redis://cache.example:6379/1 ['a.example', 'b.example']"
    )


@requires_postgres
def test_tests_run_on_postgres_when_it_answers():
    assert settings.DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql"


@pytest.mark.django_db
def test_admin_shows_attempts_with_a_read_only_action_log(player, django_user_model):
    started = player.send("/api/games/", {"code": "SH1-C4-AAAAAJ2"}).json()
    player.send(
        f"/api/games/{started['id']}/actions/",
        {"seq": 0, "action": {"type": "move", "from": "t1", "to": "c3"}},
    )
    assert Action.objects.filter(attempt_id=started["id"]).count() == 1
    django_user_model.objects.create_superuser("boss", password="boss-password-1")
    from django.test import Client

    admin = Client()
    admin.login(username="boss", password="boss-password-1")
    for path in (
        "games/attempt/",
        f"games/attempt/{started['id']}/change/",
        "games/deal/",
        "games/dailydeal/",
        "accounts/user/",
    ):
        assert admin.get(f"/{settings.ADMIN_PATH}{path}").status_code == 200, path
    page = admin.get(f"/{settings.ADMIN_PATH}games/attempt/{started['id']}/change/")
    page = page.content.decode()
    assert "&quot;from&quot;: &quot;t1&quot;" in page  # the logged action, HTML-escaped
    assert "actions-0-sent" not in page  # the log is shown, not editable


@pytest.mark.django_db
def test_healthz_says_the_database_and_redis_answer(anon):
    response = anon.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {
        "status": "ok",
        "database": "ok",
        "redis": "ok" if settings.REDIS_URL else "embedded",
    }


@pytest.mark.django_db
def test_healthz_is_503_naming_what_is_unreachable(anon, settings):
    settings.REDIS_URL = "redis://127.0.0.1:1/0"  # nothing listens there
    error = assert_error(anon.get("/healthz"), 503, "unavailable")
    assert "redis" in error["message"]


@pytest.mark.django_db
def test_every_answer_carries_a_request_id(anon):
    first, second = anon.get("/api/auth/me/"), anon.get("/api/auth/me/")
    assert first["X-Request-ID"] and first["X-Request-ID"] != second["X-Request-ID"]
    given = anon.get("/api/auth/me/", HTTP_X_REQUEST_ID="nginx-abc123")
    assert given["X-Request-ID"] == "nginx-abc123"
    forged = anon.get("/api/auth/me/", HTTP_X_REQUEST_ID="bad id\nwith newline")
    assert forged["X-Request-ID"] != "bad id\nwith newline" and "\n" not in forged["X-Request-ID"]


def test_behind_an_https_proxy_cookies_are_secure_and_hsts_is_on():
    expr = (
        "s.SESSION_COOKIE_SECURE, s.CSRF_COOKIE_SECURE, s.SECURE_HSTS_SECONDS > 0, "
        "s.SECURE_PROXY_SSL_HEADER"
    )
    out = settings_in_subprocess({"SECRET_KEY": "x", "DAILY_DEAL_SECRET": "y", "HTTPS": "1"}, expr)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "True True True ('HTTP_X_FORWARDED_PROTO', 'https')"
    plain = settings_in_subprocess(
        {"SECRET_KEY": "x", "DAILY_DEAL_SECRET": "y"}, "hasattr(s, 'SESSION_COOKIE_SECURE')"
    )
    assert plain.stdout.strip() == "False"  # plain HTTP (the embedded run, the tests)


class HopCounter:
    """Counts crossings from the event loop to a thread (asgiref's SyncToAsync)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.count = 0
        original = SyncToAsync.__call__

        async def counting(this: SyncToAsync, *args: object, **kwargs: object) -> object:
            self.count += 1
            return await original(this, *args, **kwargs)

        monkeypatch.setattr(SyncToAsync, "__call__", counting)


async def http_get(app: Any, path: str) -> int:
    """One GET through an ASGI ``app``, as daphne hands it over; the status."""
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [(b"host", b"localhost")],
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8000),
    }
    app = ApplicationCommunicator(app, scope)
    await app.send_input({"type": "http.request", "body": b"", "more_body": False})
    start = await app.receive_output(timeout=10)
    while (await app.receive_output(timeout=10)).get("more_body"):
        pass
    await app.wait(timeout=10)
    return start["status"]


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_an_api_request_crosses_to_a_thread_once_not_once_per_middleware_hook(monkeypatch):
    """Issue 14: under daphne, Django's own ASGI handler crosses from the event
    loop to the worker thread once per hook of its (async capable) middleware
    and once for the view; ours (``config/asgi.py``) runs them in one crossing.
    Besides it, Django's handler sends ``request_started`` and closes the
    response through one crossing each."""
    hops = HopCounter(monkeypatch)
    ours = OneCrossingHandler()
    assert await http_get(ours, "/api/daily/") == 200  # today's deals made
    hops.count = 0
    assert await http_get(ours, "/api/daily/") == 200
    assert hops.count == 3, hops.count
    # The production app routes HTTP to it.
    assert application.application_mapping["http"].app.__class__ is OneCrossingHandler

    djangos = ASGIHandler()
    hops.count = 0
    assert await http_get(djangos, "/api/daily/") == 200
    assert hops.count >= 15, hops.count


def test_manage_py_without_its_secrets_says_what_to_set_in_one_line():
    """Issue 24: not a 40-line traceback, one line of advice, and a failing exit."""
    secrets = ("SECRET_KEY", "DAILY_DEAL_SECRET", "DEBUG", "DJANGO_SETTINGS_MODULE")
    clean = {k: v for k, v in os.environ.items() if k not in secrets}
    for env, advice in (
        ({}, "Set SECRET_KEY and DAILY_DEAL_SECRET, or DEBUG=1 for a local run."),
        ({"SECRET_KEY": "x"}, "Set DAILY_DEAL_SECRET, or DEBUG=1 for a local run."),
    ):
        out = subprocess.run(
            [sys.executable, "manage.py", "check"],
            cwd=ROOT,
            env={**clean, **env},
            capture_output=True,
            text=True,
            check=False,
        )
        assert out.returncode == 1
        assert out.stderr.strip().splitlines() == [f"manage.py: {advice}"], out.stderr
        assert "Traceback" not in out.stderr and not out.stdout
