"""Browser tests: real headless Chromium (Debian's ``chromium``, driven by
Playwright's Python package with ``executable_path``; no browser download)
against a live daphne started here, on the real PostgreSQL and Redis.

The server is another process, so it gets a database of its own
(``patience_browser_<random>``, migrated here, dropped at the end) and Redis
db 11; tasks run in-process there (``CELERY_EAGER=1``: the replay check of a
finished game happens before the answer). Screenshots are kept in
``$BROWSER_ARTIFACTS`` (default ``.artifacts/browser/``) for a person to look at.
"""

from __future__ import annotations

import os
import secrets
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from django.conf import settings

from deploy.stack import (
    create_database,
    drop_database,
    free_port,
    migrate,
    start_daphne,
    stop,
    wait_until_up,
)

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
REDIS_URL = "redis://127.0.0.1:6379/11"
ARTIFACTS = Path(os.environ.get("BROWSER_ARTIFACTS", ROOT / ".artifacts" / "browser"))

if not Path(CHROMIUM).exists():
    if os.environ.get("REQUIRE_SERVICES") == "1":
        raise RuntimeError("REQUIRE_SERVICES=1 but there is no chromium for the browser tests")
    pytestmark = pytest.mark.skip(reason="no chromium (apt-get install chromium)")


@pytest.fixture(scope="session")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The service on a free port: ``config.settings`` (no debug), PostgreSQL, Redis."""
    if not settings.DATABASES["default"]["ENGINE"].endswith("postgresql") or not settings.REDIS_URL:
        pytest.skip("needs the real PostgreSQL and Redis (none answered)")
    name = f"patience_browser_{secrets.token_hex(4)}"
    create_database(name)
    redis.Redis.from_url(REDIS_URL).flushdb()
    port = free_port()
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DATABASE_URL": f"postgres://postgres@127.0.0.1:5432/{name}",
        "REDIS_URL": REDIS_URL,
        "SECRET_KEY": secrets.token_hex(24),
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "CELERY_EAGER": "1",
        "REGISTER_RATE": "10000/min",
        "LOGIN_RATE": "10000/min",
        "LOG_LEVEL": "WARNING",
    }
    env.pop("DEBUG", None)
    log = tmp_path_factory.mktemp("daphne") / "daphne.log"
    processes: list[subprocess.Popen[bytes]] = []
    try:
        migrate(env)
        processes.append(start_daphne(port, env, log))
        wait_until_up(port, processes[0], log)
        yield f"http://127.0.0.1:{port}"
    finally:
        stop(processes)
        drop_database(name)
        if log.exists():
            print(log.read_text(errors="replace")[-5000:])


@pytest.fixture(scope="module")
def chromium() -> Iterator[object]:
    """Playwright's sync API keeps an event loop running in this thread, which
    Django's guard against sync database calls from async code would take for
    one: allowed while the browser is open (these tests reach the server over
    HTTP only), and the guard is back once it closes."""
    from playwright.sync_api import sync_playwright

    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=CHROMIUM, headless=True, args=["--no-sandbox"]
            )
            yield browser
            browser.close()
    finally:
        del os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"]


@pytest.fixture
def new_page(chromium, site):
    """``new_page(width=1366, height=768)``: a page in a fresh browser context
    (its own cookies) on the live server; closed after the test."""
    contexts = []

    def make(width: int = 1366, height: int = 768, locale: str = "en-GB"):
        context = chromium.new_context(
            base_url=site, viewport={"width": width, "height": height}, locale=locale
        )
        context.set_default_timeout(10_000)
        contexts.append(context)
        return context.new_page()

    yield make
    for context in contexts:
        context.close()


def screenshot(page, name: str) -> Path:
    """Keep a screenshot as a test artifact (look at them: layout bugs are bugs)."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path
