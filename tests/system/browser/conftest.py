"""Browser tests: real headless Chromium (Debian's ``chromium``, driven by
Playwright's Python package with ``executable_path``; no browser download)
against a live daphne started here, on the real PostgreSQL and Redis.

The server is another process, so it gets a database of its own
(``patience_browser_<random>``, migrated here, dropped at the end) and a
redis-server of its own (``private_redis``); tasks run in-process there
(``CELERY_EAGER=1``: the replay check of a finished game happens before the
answer). Screenshots are kept in
``$BROWSER_ARTIFACTS`` (default ``.artifacts/browser/``) for a person to look at.

The server keys its daily deals with a ``DAILY_DEAL_SECRET`` of its own, made
here, so a test cannot know a daily's code but from the server: ``server.python``
runs code in the server's settings and database — how tests read what the server
stored (a daily's secret code) and prepare days the pages then show (yesterday's
deals, revealed; today's, proven so that they have a par).
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

from deploy.processes import collect_static, free_port, one_daphne, server_env, start_redis, stop
from tests.support.browser import Server

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
SHARED_REDIS_URL = "redis://127.0.0.1:6379/11"

if not Path(CHROMIUM).exists() and os.environ.get("REQUIRE_SERVICES") == "1":
    raise RuntimeError("REQUIRE_SERVICES=1 but there is no chromium for the browser tests")


# Prepared as the server starts, before any page makes today's deals on demand
# (unproven, without par): yesterday, over, with a proven deal and one that could
# not be proven; today's Seahaven 4-cell deal proven. Small budgets: a few seconds.
PREPARE_DAYS = """
import datetime as dt
from games.dailies import Effort, daily_deal_prepare, utc_today
today = utc_today()
easy = Effort(nodes=100_000, candidates=20, seconds=60)
daily_deal_prepare(date=today - dt.timedelta(days=1), variant="SH1-C4", effort=easy)
# One position proves no deal: left unproven. (50 proved 5 of 300 random Seahaven
# 1-cell deals, and the server's secret is new each run: the day was proven now and then.)
daily_deal_prepare(date=today - dt.timedelta(days=1), variant="SH1-C1",
                   effort=Effort(nodes=1, candidates=1, seconds=5))
daily_deal_prepare(date=today, variant="SH1-C4", effort=easy)
"""


def private_redis(processes: list[subprocess.Popen[bytes]]) -> str:
    """A redis-server of this run's own, without files, when the machine has one:
    two runs of these tests at once (two sessions on one machine) would otherwise
    share one Redis database — sessions, throttles, and the channel layer's game
    groups, whose attempt ids start at 1 in every run's database, so one run's
    page would receive the other's moves. Else db 11 of the machine's Redis, flushed."""
    if not shutil.which("redis-server"):
        redis.Redis.from_url(SHARED_REDIS_URL).flushdb()
        return SHARED_REDIS_URL
    port = free_port()
    processes.append(start_redis(port))
    return f"redis://127.0.0.1:{port}/0"


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """The service on a free port: ``config.settings`` (no debug), PostgreSQL, Redis,
    the static files collected (hashed names, as in production)."""
    if not settings.DATABASES["default"]["ENGINE"].endswith("postgresql") or not settings.REDIS_URL:
        pytest.skip("needs the real PostgreSQL and Redis (none answered)")
    name = f"patience_browser_{secrets.token_hex(4)}"
    processes: list[subprocess.Popen[bytes]] = []
    log = tmp_path_factory.mktemp("daphne") / "daphne.log"
    try:
        env = server_env(
            f"postgres://postgres@127.0.0.1:5432/{name}",
            private_redis(processes),
            CELERY_EAGER="1",
            REGISTER_RATE="10000/min",
            GUEST_RATE="10000/min",
            LOGIN_RATE="10000/min",
            # A quick race of fewer than 8 starts in seconds; five pages tap within it.
            QUICK_RACE_WAIT="10",
            LOG_LEVEL="WARNING",
            # Static files as the image serves them: collected, hashed, gzipped.
            STATIC_ROOT=str(tmp_path_factory.mktemp("static")),
        )
        collect_static(env)
        with one_daphne(name, env, log) as port:
            running = Server(f"http://127.0.0.1:{port}", env)
            running.python(PREPARE_DAYS)
            yield running
    finally:
        stop(processes)
        if log.exists():
            print(log.read_text(errors="replace")[-5000:])


@pytest.fixture(scope="session")
def site(server: Server) -> str:
    """The live server's base URL."""
    return server.url


@pytest.fixture(scope="module")
def chromium() -> Iterator[object]:
    """Playwright's sync API keeps an event loop running in this thread, which
    Django's guard against sync database calls from async code would take for
    one: allowed while the browser is open (these tests reach the server over
    HTTP only), and the guard is back once it closes."""
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).exists():  # (a pytestmark in a conftest would mark nothing)
        pytest.skip("no chromium (apt-get install chromium)")
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
    (its own cookies) on the live server; closed after the test. A test about
    the network itself can block the app's service worker (``service_workers="block"``)."""
    contexts = []

    def make(
        width: int = 1366, height: int = 768, locale: str = "en-GB", service_workers: str = "allow"
    ):
        context = chromium.new_context(
            base_url=site,
            viewport={"width": width, "height": height},
            locale=locale,
            service_workers=service_workers,
        )
        context.set_default_timeout(10_000)
        contexts.append(context)
        return context.new_page()

    yield make
    for context in contexts:
        context.close()
