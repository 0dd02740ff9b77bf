"""Test settings: the real PostgreSQL and Redis when they answer, else the
embedded defaults (SQLite, in-process) — tests that are about those servers
then skip, saying why. ``REQUIRE_SERVICES=1`` (set by ``.ci/run``) turns a
missing server into an error instead.

The choice is made here, before ``config.settings`` reads the environment, so
settings still read the environment in one place.
"""

import os

from django.core.exceptions import ImproperlyConfigured

from deploy.processes import answers

POSTGRES_URL = "postgres://postgres@127.0.0.1:5432/patience"
# One Redis database per pytest-xdist worker (gw0 takes 15, gw1 14, …), as
# pytest-django gives each its own test database: the tests clear the cache
# around each test, and the channel layer's groups are named by attempt ids that
# every worker's database numbers from 1.
# (The workers inherit the controller's environment, where this module has
# already set gw0's URL: theirs replaces it.)
REDIS_TEST_URL = "redis://127.0.0.1:6379/15"
_WORKER = int(os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw"))
if _WORKER > 3:
    raise ImproperlyConfigured("The tests run on at most 4 xdist workers (Redis dbs 15 to 12).")
if os.environ.get("REDIS_URL") == REDIS_TEST_URL:
    del os.environ["REDIS_URL"]

if "DATABASE_URL" not in os.environ and answers("127.0.0.1", 5432):
    os.environ["DATABASE_URL"] = POSTGRES_URL
if "REDIS_URL" not in os.environ and answers("127.0.0.1", 6379):
    os.environ["REDIS_URL"] = REDIS_TEST_URL.replace("/15", f"/{15 - _WORKER}")
os.environ.setdefault("SECRET_KEY", "tests-only-Qx7vN2pL9kR4mT8wZ3yB6cF1hJ5dG0sAe4uK7iO2")
os.environ.setdefault("DAILY_DEAL_SECRET", "tests-only-daily-Vb3Nq8Wz1Xk6Ry4Tp9")
# Tasks run in-process, at once; the tests about a real Celery worker start one
# (tests/system/worker/test_celery_worker.py) and switch this off around it.
os.environ.setdefault("CELERY_EAGER", "1")
# Tests sign up many players from one address; the login throttle keeps its real rate.
os.environ.setdefault("REGISTER_RATE", "10000/min")
os.environ.setdefault("GUEST_RATE", "10000/min")
os.environ.setdefault("ACTION_RATE", "100000/min")
os.environ.setdefault("GAME_RATE", "100000/min")

if os.environ.get("REQUIRE_SERVICES") == "1":
    for name in ("DATABASE_URL", "REDIS_URL"):
        if name not in os.environ:
            raise ImproperlyConfigured(f"REQUIRE_SERVICES=1 but {name} has no server answering.")

from config.settings import *  # noqa: E402, F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # fast sign-ups in tests

# Test databases are made and dropped around the run; a process-wide pool would
# keep connections to them open across that (and across tests' event loops).
# Daphne-level tests (two daphnes, benchmarks) run config.settings, pool and all.
DATABASES["default"].get("OPTIONS", {}).pop("pool", None)  # noqa: F405
