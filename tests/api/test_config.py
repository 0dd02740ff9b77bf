"""Settings from the environment, the admin, and the embedded defaults."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings

from games.models import Action
from tests.conftest import assert_error, requires_postgres

ROOT = Path(__file__).resolve().parents[2]


def settings_in_subprocess(env: dict[str, str], expr: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if k not in ("SECRET_KEY", "DEBUG")}
    clean.pop("DATABASE_URL", None)
    clean.pop("REDIS_URL", None)
    code = f"import config.settings as s; print({expr})"
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


def test_debug_is_off_unless_asked_and_embedded_defaults_apply():
    out = settings_in_subprocess(
        {"SECRET_KEY": "x"},
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
        "/admin/games/attempt/",
        f"/admin/games/attempt/{started['id']}/change/",
        "/admin/games/deal/",
        "/admin/games/dailydeal/",
        "/admin/accounts/user/",
    ):
        assert admin.get(path).status_code == 200, path
    page = admin.get(f"/admin/games/attempt/{started['id']}/change/").content.decode()
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
    out = settings_in_subprocess({"SECRET_KEY": "x", "HTTPS": "1"}, expr)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "True True True ('HTTP_X_FORWARDED_PROTO', 'https')"
    plain = settings_in_subprocess({"SECRET_KEY": "x"}, "hasattr(s, 'SESSION_COOKIE_SECURE')")
    assert plain.stdout.strip() == "False"  # plain HTTP (the embedded run, the tests)
