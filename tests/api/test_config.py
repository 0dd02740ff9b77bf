"""Settings from the environment, the admin, and the embedded defaults."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings

from games.models import Action
from tests.conftest import requires_postgres

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
