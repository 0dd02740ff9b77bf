"""Settings. The environment is read here and nowhere else: every variable, its
meaning and its default is README.md's "Configuration" table (a test keeps the
two the same). The secrets' checks and a debug run's made secrets are
``config/secrets.py``."""

import os
import re
from base64 import b64encode
from hashlib import sha256
from pathlib import Path
from urllib.parse import urlsplit

from django.core.exceptions import ImproperlyConfigured

from config.database import database
from config.schedule import BEAT_SCHEDULE, TASK_ROUTES, WORKER_QUEUE_NAMES
from config.secrets import (
    local_secrets,
    secret_problem,
    vapid_pair,
    vapid_problem,
)
from kit.logs import logging_config

BASE_DIR = Path(__file__).resolve().parent.parent
env = os.environ


def env_flag(name: str, default: bool = False) -> bool:
    return env.get(name, "1" if default else "0").strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: str) -> list[str]:
    return [item.strip() for item in env.get(name, default).split(",") if item.strip()]


DEBUG = env_flag("DEBUG")
_SECRETS = ["SECRET_KEY", "DAILY_DEAL_SECRET"]
_missing = [name for name in _SECRETS if not env.get(name)]
if _missing and not DEBUG:
    # One line of advice (manage.py prints it alone, without a traceback).
    raise ImproperlyConfigured(f"Set {' and '.join(_missing)}, or DEBUG=1 for a local run.")
if not DEBUG:
    for _name in _SECRETS:
        if _problem := secret_problem(_name, env[_name]):
            raise ImproperlyConfigured(_problem)
_local = (
    local_secrets(Path(env.get("LOCAL_SECRETS") or BASE_DIR / ".local" / "secrets.env"), _missing)
    if _missing
    else {}
)
SECRET_KEY = env.get("SECRET_KEY") or _local["SECRET_KEY"]
# The daily deals' keys come from this secret alone (PRODUCT.md, "Fair daily
# deals"), not from SECRET_KEY: rotating or leaking one does not touch the other.
DAILY_DEAL_SECRET = env.get("DAILY_DEAL_SECRET") or _local["DAILY_DEAL_SECRET"]
# Rotating SECRET_KEY (issue 28, docs/operations.md "Rotating SECRET_KEY"): the
# former keys, still accepted when Django checks what it signed (sessions' auth
# hashes, password-reset tokens, signed cookies) and never used to sign. A former
# key was a production key, so it is held to the same bar: a weak one is refused.
SECRET_KEY_FALLBACKS = env_list("SECRET_KEY_FALLBACKS", "")
if not DEBUG:
    for _fallback in SECRET_KEY_FALLBACKS:
        if _problem := secret_problem("SECRET_KEY_FALLBACKS", _fallback):
            raise ImproperlyConfigured(_problem)
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "localhost,127.0.0.1,[::1]")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", "")
# The Django admin's path. Not a secret (the repository is public): off /admin/,
# the first path every scanner tries, and its name says who it is for; what
# guards it is its staff accounts and the login throttle it shares with the API.
ADMIN_PATH = env.get("ADMIN_PATH", "staff").strip("/") + "/"
if ADMIN_PATH == "/":
    raise ImproperlyConfigured("ADMIN_PATH must not be empty: the pages live at /.")
REDIS_URL = env.get("REDIS_URL", "")
REDIS_DB = (urlsplit(REDIS_URL).path.strip("/") or "0") if REDIS_URL else "0"

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "channels",
    "rest_framework",
    "drf_spectacular",
    "csp",
    "accounts",
    "games",
    "races",
    "leaderboard",
    "clubs",
    "frontend",
]

MIDDLEWARE = [
    "config.middleware.RequestIdMiddleware",
    "config.middleware.ServerTimingMiddleware",
    "config.middleware.BodySizeLimitMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "config.middleware.StaticFilesMiddleware",
    # Content-Security-Policy on every response but static files (the policy: below).
    "csp.middleware.CSPMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # The language: the account's (a cookie set at sign-in and when the setting
    # changes), else the browser's Accept-Language (issue 6).
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    # Django's, the signed-in user's row kept per process while unchanged (issue 38).
    "accounts.backends.KeptUserMiddleware",
    "games.device.DeviceIdMiddleware",  # the fair-play device id cookie (issue 25)
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "config.urls"
ASGI_APPLICATION = "config.asgi.application"
TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# Every wait on the database bounded (issue 25), the pool, PgBouncer's transaction
# pooling, SQLite's writers: config/database.py.
DB_STATEMENT_TIMEOUT_MS = int(float(env.get("DB_STATEMENT_TIMEOUT", "5")) * 1000)
DB_LOCK_TIMEOUT_MS = int(float(env.get("DB_LOCK_TIMEOUT", "3")) * 1000)
DATABASES = {
    "default": database(
        env.get("DATABASE_URL", f"sqlite:///{BASE_DIR / 'db.sqlite3'}"),
        connect_timeout=int(env.get("DB_CONNECT_TIMEOUT", "3")),
        statement_timeout_ms=DB_STATEMENT_TIMEOUT_MS,
        lock_timeout_ms=DB_LOCK_TIMEOUT_MS,
        pool_size=int(env.get("DB_POOL_SIZE", "10")),
        pool_timeout=float(env.get("DB_POOL_TIMEOUT", "5")),
        pgbouncer=env_flag("PGBOUNCER"),
    )
}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
AUTH_USER_MODEL = "accounts.User"
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# Sessions are read on every request: from the cache, written through to the database.
SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"
AUTHENTICATION_BACKENDS = ["accounts.backends.KeptUserBackend"]
if REDIS_URL:
    # django-redis keeps one connection pool per process; Django's own Redis cache
    # makes one per thread context, i.e. per request under ASGI.
    # Timeouts: a Redis that is restarting fails a request fast (503, or the rate
    # limit uncounted) instead of holding a thread.
    CACHES = {
        "default": {
            "BACKEND": "django_redis.cache.RedisCache",
            "LOCATION": REDIS_URL,
            "OPTIONS": {"SOCKET_CONNECT_TIMEOUT": 2, "SOCKET_TIMEOUT": 2},
        }
    }
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

# Websocket groups span every daphne process through Redis; in-memory on the
# embedded default (one process). Both are Channels' layers but for a group
# event's `skip`, dropped before any consumer work (kit/layers.py).
if REDIS_URL:
    # Pub/sub: groups are Redis channels, so a broadcast is one PUBLISH and no
    # consumer polls. Delivery is at most once, which the versioned protocol
    # already assumes (games/websocket.md).
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "kit.layers.PubSubLayer",
            # Pub/sub channels ignore the database number of REDIS_URL: name them
            # by it, so two services on one Redis (each its own db) stay apart.
            "CONFIG": {"hosts": [REDIS_URL], "prefix": f"asgi.db{REDIS_DB}"},
        }
    }
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "kit.layers.InMemoryLayer"}}

# Celery (config/celery.py): broker and results on Redis; on the embedded default
# there is no broker and every task runs in-process, at once (PRODUCT.md Shape).
CELERY_BROKER_URL = REDIS_URL or "memory://"
CELERY_RESULT_BACKEND = REDIS_URL or None
CELERY_TASK_ALWAYS_EAGER = env_flag("CELERY_EAGER", default=not REDIS_URL)
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_RESULT_EXPIRES = 3600
CELERY_TASK_IGNORE_RESULT = True  # tasks write their results to the database
# One result backend a process, not one a thread (issue 38): every task queued
# builds its AsyncResult, and Django runs each HTTP request's sync code on a
# thread of its own, so a queued job rebuilt the Redis backend and its pool each
# request (7.5 % of daphne's CPU an HTTP action). redis-py's client is thread-safe.
CELERY_RESULT_BACKEND_THREAD_SAFE = True
# Queues that cannot starve each other (issue 38): config/schedule.py.
CELERY_TASK_DEFAULT_QUEUE = "celery"
WORKER_QUEUES = WORKER_QUEUE_NAMES
CELERY_TASK_ROUTES = TASK_ROUTES
# Run that test at all: on with a broker; off when tasks run in-process (make run,
# the tests), where it would hold the answer of a win for seconds — then
# ``manage.py judge_knowledge`` runs it by hand (docs/operations.md).
FAIRPLAY_KNEW = env_flag("FAIRPLAY_KNEW", default=not CELERY_TASK_ALWAYS_EAGER)
# Decisions it judges per win (None: the engine's own, games/engine/knew.py DECISIONS):
# its CPU grows with them, and so does what it can see (docs/fairplay.md).
FAIRPLAY_KNEW_DECISIONS = (
    int(env["FAIRPLAY_KNEW_DECISIONS"]) if env.get("FAIRPLAY_KNEW_DECISIONS") else None
)
# Every task is short: a replay check, a review or a dead-end proof takes well
# under a second, a daily deal (one task a deal) at most about a minute of solver
# search (the games' declared effort: 60 s, then the last search's node budget).
# The limits leave twice that; the visibility timeout below sits just above them.
CELERY_TASK_SOFT_TIME_LIMIT = 120
CELERY_TASK_TIME_LIMIT = 150
# A task is acknowledged when it has run, not when it was received: a worker
# killed mid-task leaves it on the queue for the next one (every task is
# idempotent, so running one twice is harmless).
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# A task taken but never acknowledged is handed out again after this long: what
# brings back the task of a worker killed outright (a pool child's death requeues
# at once). Longer than the longest task (CELERY_TASK_TIME_LIMIT), or Redis hands
# a running task to a second worker; no longer, or a killed worker's replay check
# stays pending for nothing (issue 17). Every running worker looks for such tasks
# every 10 s (kombu's default looks every 100 s), a starting one at once: a task
# held by a killed worker runs again within CELERY_VISIBILITY_TIMEOUT + 10 s of
# being taken — 3 min 40 s — on any worker up by then.
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": int(env.get("CELERY_VISIBILITY_TIMEOUT", "210")),
    "unacked_restore_interval": 10,
    "unacked_restore_throttle": 1,
}
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# Queuing happens after a request's commit: with Redis away, give up within a
# second (logged; the beat jobs catch up) rather than hold the answer.
CELERY_TASK_PUBLISH_RETRY_POLICY = {
    "max_retries": 2,
    "interval_start": 0,
    "interval_step": 0.2,
    "interval_max": 0.5,
}
CELERY_BROKER_CONNECTION_TIMEOUT = 2
CELERY_TIMEZONE = "UTC"
# Loaded by the worker: its task runtimes and its metrics port (config/exporter.py).
CELERY_IMPORTS = ["config.exporter"]
CELERY_BEAT_SCHEDULE = BEAT_SCHEDULE
# Keeping an account (issue 28, accounts/recovery.py; docs/operations.md, "Mail").
# A session lives SESSION_DAYS from its last request that changed it (Django
# renews the cookie's expiry whenever the session is saved: every sign-in).
SESSION_DAYS = int(env.get("SESSION_DAYS", "90"))
SESSION_COOKIE_AGE = SESSION_DAYS * 86400
# A guest's session lives SESSION_COOKIE_AGE from its sign-in; a guest idle a day
# longer than that cannot be held by any browser, and is deleted.
GUEST_IDLE_DAYS = int(env.get("GUEST_IDLE_DAYS", str(SESSION_DAYS + 1)))
if GUEST_IDLE_DAYS <= SESSION_DAYS:
    raise ImproperlyConfigured("GUEST_IDLE_DAYS must be longer than SESSION_DAYS.")
# A guest's finished practice games are deleted this long after they ended (issue
# 38), the guest staying; its dailies wait to be claimed until the guest goes.
GUEST_GAMES_DAYS = int(env.get("GUEST_GAMES_DAYS", "7"))
if GUEST_GAMES_DAYS < 1:
    raise ImproperlyConfigured("GUEST_GAMES_DAYS must be at least 1.")
# A reset link works once, for this long; a verification link for EMAIL_VERIFY_TIMEOUT.
PASSWORD_RESET_TIMEOUT = int(env.get("PASSWORD_RESET_TIMEOUT", "3600"))
EMAIL_VERIFY_TIMEOUT = int(env.get("EMAIL_VERIFY_TIMEOUT", str(3 * 86400)))
# A change of the email or password mails the verified address a notice whose
# "this wasn't me" link works once, for this long (issue 37); so does a sign-in
# from a browser new to the account, unless SIGNIN_NOTICES=0.
ACCOUNT_SECURE_TIMEOUT = int(env.get("ACCOUNT_SECURE_TIMEOUT", str(14 * 86400)))
SIGNIN_NOTICES = env_flag("SIGNIN_NOTICES", default=True)
# A deleted account's name is held from sign-ups this long (accounts/privacy.py).
DELETED_NAME_HOLD_DAYS = int(env.get("DELETED_NAME_HOLD_DAYS", "365"))
# Where the mails' links point: the site as players reach it (never the request's Host).
SITE_URL = env.get("SITE_URL", "http://localhost:8000")
# Mail: printed to the console in a debug run (make run); SMTP otherwise.
EMAIL_BACKEND = env.get(
    "EMAIL_BACKEND",
    "django.core.mail.backends.console.EmailBackend"
    if DEBUG
    else "django.core.mail.backends.smtp.EmailBackend",
)
EMAIL_HOST = env.get("EMAIL_HOST", "localhost")
EMAIL_PORT = int(env.get("EMAIL_PORT", "25"))
EMAIL_HOST_USER = env.get("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = env.get("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_flag("EMAIL_USE_TLS")
EMAIL_TIMEOUT = int(env.get("EMAIL_TIMEOUT", "10"))
DEFAULT_FROM_EMAIL = env.get("DEFAULT_FROM_EMAIL", "Patience Daily <noreply@localhost>")

# Reminders when the new daily opens (issue 28, accounts/reminders.py; docs/operations.md,
# "Reminders"): Web Push signed with a VAPID key pair (P-256: the public key as a
# browser's applicationServerKey takes it, the private one as its 32 bytes, both
# base64url), or a mail. Outside debug the pair is optional: without it push is off
# (the API and the settings say so) and mail reminders still go. A debug run makes
# a pair once and keeps it beside SECRET_KEY.


VAPID_ADVICE = "python -c 'from config.secrets import vapid_pair; print(vapid_pair())'"
_VAPID = ["VAPID_PUBLIC_KEY", "VAPID_PRIVATE_KEY"]
if DEBUG and not any(env.get(name) for name in _VAPID):
    _vapid = local_secrets(
        Path(env.get("LOCAL_SECRETS") or BASE_DIR / ".local" / "secrets.env"), _VAPID, vapid_pair
    )
else:
    _vapid = {
        "VAPID_PUBLIC_KEY": env.get("VAPID_PUBLIC_KEY", "").strip(),
        "VAPID_PRIVATE_KEY": env.get("VAPID_PRIVATE_KEY", "").strip(),
    }
VAPID_PUBLIC_KEY = _vapid["VAPID_PUBLIC_KEY"]
VAPID_PRIVATE_KEY = _vapid["VAPID_PRIVATE_KEY"]
if bool(VAPID_PUBLIC_KEY) != bool(VAPID_PRIVATE_KEY):
    raise ImproperlyConfigured(f"Set both VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY ({VAPID_ADVICE}).")
if VAPID_PUBLIC_KEY and (_problem := vapid_problem(VAPID_PUBLIC_KEY, VAPID_PRIVATE_KEY)):
    raise ImproperlyConfigured(f"{_problem} Make a pair: {VAPID_ADVICE}")
# Who runs the push sender, for the push services to reach: mailto: or https:.
VAPID_SUBJECT = env.get("VAPID_SUBJECT", "mailto:noreply@localhost").strip()
if not VAPID_SUBJECT.startswith(("mailto:", "https:")):
    raise ImproperlyConfigured("VAPID_SUBJECT must start with mailto: or https:.")
# Tests only (never read from the environment): endpoint origins a subscription may
# name although they are not https on a public address — the tests' own push service.
PUSH_ENDPOINT_TEST_ORIGINS: list[str] = []

# How long an attempt keeps the client address and device id it was started from
# (issue 28): the fair-play review links accounts within FAIRPLAY_LINK_DAYS of a start,
# and staff decide in the weeks after; then they are purged (docs/operations.md).
ADDRESS_RETENTION_DAYS = int(env.get("ADDRESS_RETENTION_DAYS", "90"))

# Prometheus metrics (kit/metrics.py, games/metrics.py, config/exporter.py;
# docs/operations.md, "Metrics"). Not public: ``GET /metrics`` answers only with the
# bearer token (404 without one set),
# and the worker, which serves no HTTP, has a port of its own. prometheus-client
# reads PROMETHEUS_MULTIPROC_DIR itself, at import: it is read here to check it.
METRICS_DIR = env.get("PROMETHEUS_MULTIPROC_DIR", "")
METRICS_TOKEN = env.get("METRICS_TOKEN", "")
METRICS_PORT = int(env.get("METRICS_PORT", "0"))
if METRICS_TOKEN and not re.fullmatch(r"[A-Za-z0-9._~+/=-]{16,}", METRICS_TOKEN):
    raise ImproperlyConfigured("METRICS_TOKEN: at least 16 characters of A-Z a-z 0-9 . _ ~ + / = -")
if METRICS_PORT and not METRICS_DIR:
    # A prefork worker's tasks run in its pool's processes; only the files of a
    # shared directory bring their figures to the port the main process serves.
    raise ImproperlyConfigured("METRICS_PORT needs PROMETHEUS_MULTIPROC_DIR (an empty directory).")

# Fair-play review (games/fairplay.py, docs/operations.md, "Fair-play review"): what flags a
# ranked result for staff to look at. A flag removes nothing by itself.
FAIRPLAY_MIN_MEDIAN_MS = int(env.get("FAIRPLAY_MIN_MEDIAN_MS", "250"))
FAIRPLAY_MIN_GAP_MS = int(env.get("FAIRPLAY_MIN_GAP_MS", "50"))
FAIRPLAY_SAME_ADDRESS = int(env.get("FAIRPLAY_SAME_ADDRESS", "3"))
# Across accounts (the second-account cheat, issue 25).
FAIRPLAY_SCOUT_SEEN = float(env.get("FAIRPLAY_SCOUT_SEEN", "0.95"))
FAIRPLAY_SCOUT_UNDOS = int(env.get("FAIRPLAY_SCOUT_UNDOS", "10"))
FAIRPLAY_SCOUT_IDLE_MIN = int(env.get("FAIRPLAY_SCOUT_IDLE_MIN", "30"))
FAIRPLAY_SCOUT_SHARED = float(env.get("FAIRPLAY_SCOUT_SHARED", "0.5"))
FAIRPLAY_KNOWN_PAR = float(env.get("FAIRPLAY_KNOWN_PAR", "1.15"))
FAIRPLAY_KNOWN_UNDOS = int(env.get("FAIRPLAY_KNOWN_UNDOS", "10"))
FAIRPLAY_LINK_DAYS = int(env.get("FAIRPLAY_LINK_DAYS", "7"))
FAIRPLAY_DORMANT_DAYS = int(env.get("FAIRPLAY_DORMANT_DAYS", "2"))
FAIRPLAY_DORMANT_GAMES = int(env.get("FAIRPLAY_DORMANT_GAMES", "2"))
FAIRPLAY_DORMANT_PAR = float(env.get("FAIRPLAY_DORMANT_PAR", "1.1"))
# What the games of a daily saw, pooled per device id and address group (issue 36):
# the group is the client address's network of this prefix length.
FAIRPLAY_GROUP_V4 = int(env.get("FAIRPLAY_GROUP_V4", "24"))
FAIRPLAY_GROUP_V6 = int(env.get("FAIRPLAY_GROUP_V6", "64"))

LANGUAGE_CODE = "en"
# English, and the languages the original rule pages exist in (issue 6).
LANGUAGES = [("en", "English"), ("id", "Bahasa Indonesia"), ("bg", "Български"), ("tr", "Türkçe")]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = "UTC"  # daily deals follow the UTC day
USE_I18N = True
USE_TZ = True
STATIC_URL = "/static/"
STATIC_ROOT = Path(env.get("STATIC_ROOT") or BASE_DIR / "staticfiles")
# WhiteNoise (config.middleware.StaticFilesMiddleware) serves /static/: from
# STATIC_ROOT after collectstatic, else from the apps' static folders. After
# collectstatic the pages name the files by hashed names (config/storage.py),
# which WhiteNoise serves as immutable, cached for good (issue 24).
WHITENOISE_USE_FINDERS = True
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "config.storage.StaticStorage"},
}

# PRODUCT.md: a body over 64 KiB is refused with 413 — before it is read
# (config/asgi.py BodyLimit). The admin's forms and sign-in are far smaller.
MAX_BODY_BYTES = int(env.get("MAX_BODY_BYTES", str(64 * 1024)))
DATA_UPLOAD_MAX_MEMORY_SIZE = MAX_BODY_BYTES
CSRF_FAILURE_VIEW = "kit.http.csrf_failure"
# Every cookie we set: SameSite=Lax, Secure under HTTPS (below); HttpOnly unless
# the client reads it (csrftoken: api.js; django_language: settings.js).
SESSION_COOKIE_SAMESITE = "Lax"
CSRF_COOKIE_SAMESITE = "Lax"
LANGUAGE_COOKIE_SAMESITE = "Lax"

# The budgets per network (kit.api.client_network, issue 38) count an IPv4
# address's /THROTTLE_V4_PREFIX and an IPv6 address's /THROTTLE_V6_PREFIX as one
# client: an IPv6 host is given a whole /64, any address of which it may use.
THROTTLE_V4_PREFIX = int(env.get("THROTTLE_V4_PREFIX", "24"))
THROTTLE_V6_PREFIX = int(env.get("THROTTLE_V6_PREFIX", "64"))
if not (0 <= THROTTLE_V4_PREFIX <= 32 and 0 <= THROTTLE_V6_PREFIX <= 128):
    raise ImproperlyConfigured("THROTTLE_V4_PREFIX is 0 to 32, THROTTLE_V6_PREFIX 0 to 128.")
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": ["kit.http.CsrfSessionAuthentication"],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    # In debug runs the API is also browsable, so a newcomer can play from a browser.
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"]
    + (["kit.api.BrowsableAPIRenderer"] if DEBUG else []),
    "DEFAULT_PARSER_CLASSES": ["kit.api.JSONParser"],
    # ASCII-only JSON out: any text a client sent (even a lone surrogate) can be echoed.
    "UNICODE_JSON": False,
    # Client addresses for throttles: X-Forwarded-For is only believed from this
    # many proxies in front of daphne (0 = none: a client cannot forge its address).
    "NUM_PROXIES": int(env.get("NUM_PROXIES", "0")),
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "kit.http.exception_handler",
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
    "DEFAULT_THROTTLE_RATES": {
        "login": env.get("LOGIN_RATE", "10/min"),
        # Per account name tried, whatever the address (accounts/signin.py).
        "login-account": env.get("LOGIN_ACCOUNT_RATE", "30/hour"),
        # Sign-ups and guests made, per network (kit.api.RateThrottle.per_network).
        "register": env.get("REGISTER_RATE", "20/hour"),
        "guests": env.get("GUEST_RATE", "30/hour"),
        # Password resets asked for per address, and per account named (issue 28).
        "password-reset": env.get("PASSWORD_RESET_RATE", "10/hour"),
        "password-reset-target": env.get("PASSWORD_RESET_TARGET_RATE", "3/hour"),
        # Email changes (each mails a link) and password changes, per player.
        "account-changes": env.get("ACCOUNT_CHANGE_RATE", "20/hour"),
        # Verification links mailed again, per player (issue 28).
        "email-resend": env.get("EMAIL_RESEND_RATE", "3/hour"),
        # Per player, over HTTP and the websocket alike (kit.api.rate_limit).
        "actions": env.get("ACTION_RATE", "600/min"),
        "games": env.get("GAME_RATE", "60/min"),
        # … and games started by guests, per network, all its guests together (issue 38).
        "guest-games": env.get("GUEST_GAME_RATE", "600/hour"),
        # Post-mortems queued on demand per player (games/api.py AnalysisView, issue 38):
        # each is up to ANALYSIS_SECONDS of a heavy worker's search.
        "analyses": env.get("ANALYSIS_RATE", "20/hour"),
        # Race rooms opened, joined, invited to, rematches asked for, per player (issue 29).
        "races": env.get("RACE_RATE", "30/min"),
        # The quick race queue's asks per player (leaderboard/quick.py).
        "quick-races": env.get("QUICK_RACE_RATE", "120/min"),
        # Per address: the Content-Security-Policy reports a browser sends.
        "csp-reports": env.get("CSP_REPORT_RATE", "60/min"),
        # Joining a club by code, per player and per address (issue 29): no guessing.
        "club-joins": env.get("CLUB_JOIN_RATE", "20/hour"),
    },
}
# Clubs and following (issue 29, clubs/services.py): the caps.
CLUB_OWN_MAX = int(env.get("CLUB_OWN_MAX", "5"))
CLUB_JOIN_MAX = int(env.get("CLUB_JOIN_MAX", "20"))
CLUB_MEMBERS_MAX = int(env.get("CLUB_MEMBERS_MAX", "100"))
FOLLOW_MAX = int(env.get("FOLLOW_MAX", "500"))
# Sign-ins and sign-ups hash a password (~0.4 s of CPU) on threads of their own,
# off the one every other request runs on (accounts/signin.py).
PASSWORD_HASH_THREADS = int(env.get("PASSWORD_HASH_THREADS", "2"))
# … and at most this many more wait for them (a burst of sign-ups); beyond: 503.
PASSWORD_HASH_WAITING = int(env.get("PASSWORD_HASH_WAITING", "16"))
# Websockets (kit/sockets.py): every frame a player's sockets send takes a token
# of the player's bucket (one per daphne) of WS_FRAME_BURST refilled at
# WS_FRAME_RATE a second (over it: closed, 4429; the burst is ACTION_RATE's
# minute, so fast play meets its 429 first); a snapshot asked for takes one of
# WS_SNAPSHOT_BURST at WS_SNAPSHOT_RATE too (over it: refused, 429); sockets'
# opening reads run on WS_CONNECT_THREADS threads of their own (issue 38);
# sockets open at once per player and per address, counted in Redis
# across every daphne (over a cap: refused, 4429).
# Race rooms (issue 29): a race ends RACE_MINUTES after its start.
RACE_MINUTES = int(env.get("RACE_MINUTES", "30"))
# Quick race (issue 39, leaderboard/quick.py): fewer than 8 start after this wait.
QUICK_RACE_WAIT = float(env.get("QUICK_RACE_WAIT", "20"))
WS_FRAME_RATE = float(env.get("WS_FRAME_RATE", "30"))
WS_FRAME_BURST = int(env.get("WS_FRAME_BURST", "600"))
WS_SNAPSHOT_RATE = float(env.get("WS_SNAPSHOT_RATE", "2"))
WS_SNAPSHOT_BURST = int(env.get("WS_SNAPSHOT_BURST", "20"))
WS_CONNECT_THREADS = int(env.get("WS_CONNECT_THREADS", "4"))
WS_MAX_PER_PLAYER = int(env.get("WS_MAX_PER_PLAYER", "16"))
WS_MAX_PER_ADDRESS = int(env.get("WS_MAX_PER_ADDRESS", "300"))
SPECTACULAR_SETTINGS = {
    "TITLE": "Patience Daily API",
    "DESCRIPTION": "Daily deals of Easy Harp and Seahaven Towers; the server is the referee.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "config.schema.document_shared_errors",  # CSRF, sign-in, body, rate-limit errors
    ],
}

# Behind a reverse proxy that terminates TLS (docker-compose.yml's nginx, or the
# operator's): secure cookies, HSTS, and the proxy's word that a request is HTTPS.
if env_flag("HTTPS"):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    LANGUAGE_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = int(env.get("HSTS_SECONDS", str(365 * 24 * 3600)))
# Every page runs only our own scripts and styles, from files: no inline script,
# style element or style attribute, no event handler attribute, no eval (the
# templates and the client are written so; tests/system/browser/test_csp.py checks every
# page). 'self' covers the same origin's websockets (ws:/wss:) too. What a browser
# blocks, it reports to config.csp.csp_report, which logs it.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "img-src": ["'self'", "data:"],
        "font-src": ["'self'"],
        "connect-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'none'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
        "report-uri": ["/csp-report/"],
    }
}
if DEBUG:
    # The browsable API (debug runs only) is DRF's templates, which carry a few
    # style attributes: these exact ones are allowed by their hashes, nothing else.
    CONTENT_SECURITY_POLICY["DIRECTIVES"]["style-src"] += ["'unsafe-hashes'"] + [
        f"'sha256-{b64encode(sha256(style.encode()).digest()).decode()}'"
        for style in (
            "border-bottom: 0",
            "border-bottom: 1px solid #e5e5e5",
            "border: none",
            "clear: both",
            "float: right",
            "float: right; margin-right: 10px",
            "float:left",
            "margin-top: 30px",
            "margin: 0 0 20px;",
            "width: 320px; margin-left: auto; margin-right: auto",
            "width: 350px",
        )
    ]
# ``manage.py check --deploy`` runs in the tests with production settings
# (tests/config/test_settings.py); what it warns of that we leave on purpose:
SILENCED_SYSTEM_CHECKS = [
    # SECURE_SSL_REDIRECT: TLS ends at the operator's proxy, which redirects; here it
    # would redirect the probes (/livez, /readyz), which come over plain HTTP.
    "security.W008",
    # HSTS includeSubDomains and preload: commitments about the operator's whole
    # domain that this service cannot make for them.
    "security.W005",
    "security.W021",
]
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"

# Logs go to stdout (the container's log), one line per record: JSON with the
# request's, the socket message's or the task's context (kit/logs.py).
LOG_FORMAT = env.get("LOG_FORMAT", "console" if DEBUG else "json")
if LOG_FORMAT not in ("json", "console"):
    raise ImproperlyConfigured("LOG_FORMAT is 'json' or 'console'.")
LOGGING = logging_config(level=env.get("LOG_LEVEL", "INFO"), fmt=LOG_FORMAT)

# Error reports, only when a DSN is given; personal data off (config/sentry.py).
SENTRY_DSN = env.get("SENTRY_DSN", "")
if SENTRY_DSN:
    from config import sentry  # only then: sentry-sdk's import costs every process start

    sentry.init(
        dsn=SENTRY_DSN,
        environment=env.get("SENTRY_ENVIRONMENT", "production"),
        release=env.get("SENTRY_RELEASE"),
        traces_sample_rate=float(env.get("SENTRY_TRACES_SAMPLE_RATE", "0")),
    )
