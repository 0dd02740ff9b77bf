"""Settings from the environment, the admin, and the embedded defaults."""

import os
import subprocess
import sys
from typing import Any

import pytest
from asgiref.sync import SyncToAsync
from asgiref.testing import ApplicationCommunicator
from django.conf import settings
from django.core.handlers.asgi import ASGIHandler

from config.asgi import OneCrossingHandler, application
from games.models import Action
from tests.support.api import assert_error, requires_postgres
from tests.support.env import ROOT, SECRETS, settings_in_subprocess


def test_secret_key_is_required_outside_debug():
    out = settings_in_subprocess({}, "s.DEBUG")
    assert out.returncode != 0
    assert "Set SECRET_KEY" in out.stderr


def test_daily_deal_secret_is_required_outside_debug_and_is_not_secret_key():
    """PRODUCT.md, fair daily deals: the daily keys' secret is a setting of its own."""
    out = settings_in_subprocess({"SECRET_KEY": SECRETS["SECRET_KEY"]}, "s.DEBUG")
    assert out.returncode != 0
    assert "Set DAILY_DEAL_SECRET" in out.stderr
    both = settings_in_subprocess(SECRETS, "s.SECRET_KEY, s.DAILY_DEAL_SECRET")
    assert both.stdout.split() == [SECRETS["SECRET_KEY"], SECRETS["DAILY_DEAL_SECRET"]], both.stderr
    debug = settings_in_subprocess({"DEBUG": "1"}, "s.DAILY_DEAL_SECRET != s.SECRET_KEY")
    assert debug.stdout.strip() == "True", debug.stderr


def test_debug_is_off_unless_asked_and_embedded_defaults_apply():
    out = settings_in_subprocess(
        SECRETS,
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
            **SECRETS,
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
def test_every_answer_carries_a_request_id(anon, settings):
    first, second = anon.get("/api/auth/me/"), anon.get("/api/auth/me/")
    assert first["X-Request-ID"] and first["X-Request-ID"] != second["X-Request-ID"]
    # Facing clients (no proxy: NUM_PROXIES=0) an id is the client's to choose: not believed
    # (issue 25).
    direct = anon.get("/api/auth/me/", HTTP_X_REQUEST_ID="nginx-abc123")
    assert direct["X-Request-ID"] != "nginx-abc123"
    assert len(direct["X-Request-ID"]) == 32
    # Behind the proxy, its id is the request's, when it is a sane token.
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 1}
    given = anon.get("/api/auth/me/", HTTP_X_REQUEST_ID="nginx-abc123")
    assert given["X-Request-ID"] == "nginx-abc123"
    for forged in ("bad id\nwith newline", "x" * 65, ""):
        answer = anon.get("/api/auth/me/", HTTP_X_REQUEST_ID=forged)
        assert answer["X-Request-ID"] != forged and len(answer["X-Request-ID"]) == 32


def test_behind_an_https_proxy_cookies_are_secure_and_hsts_is_on():
    expr = (
        "s.SESSION_COOKIE_SECURE, s.CSRF_COOKIE_SECURE, s.LANGUAGE_COOKIE_SECURE, "
        "s.SECURE_HSTS_SECONDS > 0, s.SECURE_PROXY_SSL_HEADER"
    )
    out = settings_in_subprocess({**SECRETS, "HTTPS": "1"}, expr)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "True True True True ('HTTP_X_FORWARDED_PROTO', 'https')"
    plain = settings_in_subprocess(SECRETS, "hasattr(s, 'SESSION_COOKIE_SECURE')")
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
        (
            {"SECRET_KEY": SECRETS["SECRET_KEY"]},
            "Set DAILY_DEAL_SECRET, or DEBUG=1 for a local run.",
        ),
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


def test_production_refuses_placeholder_short_and_plain_secrets():
    """Issue 25: the .env.example placeholders were accepted by the production settings."""
    example = dict(
        line.split("=", 1)
        for line in (ROOT / ".env.example").read_text().splitlines()
        if line.startswith(("SECRET_KEY=", "DAILY_DEAL_SECRET="))
    )
    assert set(example) == {"SECRET_KEY", "DAILY_DEAL_SECRET"}
    refused = [
        (example, "SECRET_KEY is a placeholder"),
        ({**SECRETS, "DAILY_DEAL_SECRET": example["DAILY_DEAL_SECRET"]}, "DAILY_DEAL_SECRET is a"),
        ({**SECRETS, "SECRET_KEY": "x"}, "SECRET_KEY is too short"),
        ({**SECRETS, "DAILY_DEAL_SECRET": SECRETS["DAILY_DEAL_SECRET"][:31]}, "too short"),
        ({**SECRETS, "SECRET_KEY": "ab" * 40}, "SECRET_KEY is too short or too plain"),
        ({**SECRETS, "SECRET_KEY": "django-insecure-" + SECRETS["SECRET_KEY"]}, "placeholder"),
    ]
    for env, message in refused:
        out = settings_in_subprocess(env, "s.DEBUG")
        assert out.returncode != 0 and message in out.stderr, (env, out.stderr[-300:])
        assert "ImproperlyConfigured" in out.stderr
    assert settings_in_subprocess(SECRETS, "s.DEBUG").stdout.split() == ["False"]


def test_a_debug_run_makes_its_secrets_once_per_install(tmp_path):
    """Issue 25: a constant debug DAILY_DEAL_SECRET let anyone compute a debug
    instance's dailies from their commitments. Now each install makes its own,
    random, kept 0600 in a git-ignored file and read again on later runs."""
    expr = "s.SECRET_KEY, s.DAILY_DEAL_SECRET"
    first, again, other = (
        settings_in_subprocess({"DEBUG": "1", "LOCAL_SECRETS": str(path)}, expr).stdout.split()
        for path in (tmp_path / "a" / "s.env", tmp_path / "a" / "s.env", tmp_path / "b.env")
    )
    assert first == again  # read on the later run
    assert first[0] != other[0] and first[1] != other[1]  # another install: its own
    assert first[0] != first[1] and all(len(value) >= 50 for value in first)
    assert ((tmp_path / "a" / "s.env").stat().st_mode & 0o777) == 0o600
    assert ((tmp_path / "a").stat().st_mode & 0o777) == 0o700
    # The default place is ignored by git and docker.
    assert "/.local/" in (ROOT / ".gitignore").read_text().split()
    assert ".local" in (ROOT / ".dockerignore").read_text().split()
    assert "development-only" not in (ROOT / "config" / "settings.py").read_text()


# What `manage.py check --deploy` may say with production settings: nothing but
# the silences of config/settings.py (SILENCED_SYSTEM_CHECKS, each with its reason).
DEPLOY_SILENCES = {"security.W005", "security.W008", "security.W021"}


def test_check_deploy_passes_with_production_settings(tmp_path):
    assert set(settings.SILENCED_SYSTEM_CHECKS) == DEPLOY_SILENCES
    secrets = ("SECRET_KEY", "DAILY_DEAL_SECRET", "DEBUG", "DJANGO_SETTINGS_MODULE")
    clean = {k: v for k, v in os.environ.items() if k not in secrets}
    clean.pop("DATABASE_URL", None)
    clean.pop("REDIS_URL", None)
    env = {**clean, **SECRETS, "HTTPS": "1", "ALLOWED_HOSTS": "patience.example"}
    out = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert "no issues (3 silenced)" in out.stdout, out.stdout
