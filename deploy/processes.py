"""The processes of the production set, one at a time, on this machine: scratch
databases on the PostgreSQL at 127.0.0.1:5432 and their migrations, a server's
environment as production runs it, daphne, a ``redis-server``, ``pgbouncer``,
nginx and Celery workers of their own on free ports — started, waited for and
stopped. ``deploy/stack.py`` puts them together as the compose file does
(``Stack``); every test and bench that starts real servers starts them with
these, and there is no second way to start them.
"""

from __future__ import annotations

import contextlib
import http.client
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg

ROOT = Path(__file__).resolve().parents[1]
DAPHNE = str(Path(sys.executable).parent / "daphne")  # the venv running this
PG_ADMIN = "postgresql://postgres@127.0.0.1:5432/postgres"
PG_HOST, PG_PORT = "127.0.0.1", 5432
DAPHNE_QUIET = ["-v", "0", "--websocket_connect_timeout", "20"]
"""Daphne's own access log off (plain text on stdout): the service writes one
line per request itself, JSON like every other (``kit/logs.py``); and a
websocket's handshake given ``kit.sockets.HANDSHAKE_TIMEOUT_S``, as compose and
Kubernetes give it (issue 38: a connect storm answered late, not dropped)."""
CELERY = [sys.executable, "-m", "celery", "-A", "config", "--quiet"]
"""``--quiet``: no start-up banner on stdout, where every line is JSON."""
QUIET = ["--without-gossip", "--without-mingle", "--without-heartbeat"]
"""Worker-to-worker chatter this service does not use (and Celery's gossip
fails to restart after a broker outage)."""
QUEUES = {"interactive": "interactive,celery", "heavy": "heavy,fairplay"}
"""The queues each class of worker takes (``WORKER_QUEUES`` in ``config/settings.py``,
which routes every task to one of them: issue 38): what players wait for and the
periodic sweeps; the solver's searches. ``ALL_QUEUES``: a worker that takes them
all (a test's one worker)."""
ALL_QUEUES = ",".join(QUEUES.values())


# --- processes, ports and databases (also used by the benches and tests) ---------


def answers(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=0.5):
            return True
    except OSError:
        return False


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def admin_sql(sql: str) -> Any:
    with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
        cursor = conn.execute(sql)
        return cursor.fetchall() if cursor.description else None


def drop_database(name: str) -> None:
    # FORCE (PostgreSQL 13+) ends connections a killed server may have left open.
    admin_sql(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def postgres_version() -> str:
    return str(admin_sql("SELECT version()")[0][0])


def create_database(name: str) -> str:
    """A fresh, empty database ``name``; returns the server's version string."""
    drop_database(name)
    admin_sql(f"CREATE DATABASE {name}")
    return postgres_version()


def server_env(database_url: str, redis_url: str | None, **extra: str) -> dict[str, str]:
    """The environment of a server process (daphne, worker, beat) as production
    runs it (``config.settings``, no debug) on ``database_url`` and ``redis_url``
    (``None``: none, the in-process defaults), with secrets of its own (so that a
    test cannot know the server's daily deals) and the ``extra`` settings."""
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DATABASE_URL": database_url,
        "SECRET_KEY": secrets.token_urlsafe(40),
        "DAILY_DEAL_SECRET": secrets.token_urlsafe(40),
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "PYTHONUNBUFFERED": "1",
        **extra,
    }
    env.pop("DEBUG", None)
    if redis_url:
        env["REDIS_URL"] = redis_url
    else:
        env.pop("REDIS_URL", None)
    return env


def migrate(env: dict[str, str], *target: str) -> None:
    """Run the migrations with ``env`` (its DATABASE_URL names the database); all
    of them, or up to ``target`` (``"games", "0004_long_codes"``)."""
    subprocess.run(
        [sys.executable, "manage.py", "migrate", *target, "--noinput", "-v", "0"],
        cwd=ROOT,
        env=env,
        check=True,
        timeout=120,
    )


def collect_static(env: dict[str, str]) -> None:
    """``collectstatic`` with ``env`` (its STATIC_ROOT), as the image runs it: each
    file also under its hashed name, gzipped (docs/architecture.md, "The load path")."""
    subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--noinput", "-v", "0"],
        cwd=ROOT,
        env=env,
        check=True,
        timeout=300,
    )


def start_daphne(
    port: int,
    env: dict[str, str],
    log: Path,
    app: str = "config.asgi:application",
    *,
    proxied: bool = False,
) -> subprocess.Popen[bytes]:
    """One daphne serving ``app`` on 127.0.0.1:``port`` with ``env``, its output
    appended to ``log``. ``proxied``: behind nginx, whose ``X-Forwarded-For`` names
    the client (``--proxy-headers``, as compose runs it)."""
    proxy = ["--proxy-headers"] if proxied else []
    with log.open("ab") as out:
        return subprocess.Popen(
            [DAPHNE, *DAPHNE_QUIET, *proxy, "-b", "127.0.0.1", "-p", str(port), app],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )


def wait_until_up(
    port: int,
    process: subprocess.Popen[bytes],
    log: Path,
    timeout: float = 30,
    path: str = "/api/auth/me/",
) -> None:
    """Until the daphne answers ``GET path`` with 200 (``RuntimeError`` with its
    log's tail if it exits or does not within ``timeout`` seconds)."""
    limit = time.monotonic() + timeout
    while time.monotonic() < limit:
        if process.poll() is not None:
            raise RuntimeError(f"daphne exited ({process.returncode}):\n{log.read_text()[-3000:]}")
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            conn.request("GET", path)
            if conn.getresponse().status == 200:
                conn.close()
                return
            conn.close()
        except OSError:
            pass
        time.sleep(0.1)
    raise RuntimeError(f"daphne did not answer within {timeout:g} s:\n{log.read_text()[-3000:]}")


@contextlib.contextmanager
def one_daphne(
    database: str, env: dict[str, str], log: Path, app: str = "config.asgi:application"
) -> Iterator[int]:
    """A fresh database ``database`` on the server at 127.0.0.1:5432, migrated
    with ``env`` (whose ``DATABASE_URL`` reaches it), and one daphne serving
    ``app`` on it on a free port, up; yields the port. On leaving, the daphne is
    stopped and the database dropped."""
    create_database(database)
    process: subprocess.Popen[bytes] | None = None
    try:
        migrate(env)
        port = free_port()
        process = start_daphne(port, env, log, app)
        wait_until_up(port, process, log)
        yield port
    finally:
        if process is not None:
            stop([process])
        drop_database(database)


def start_redis(
    port: int, *, files: Path | None = None, log: Path | None = None
) -> subprocess.Popen[bytes]:
    """A ``redis-server`` of its own on 127.0.0.1:``port``, listening when this
    returns. With ``files``, an append-only file there (as in the compose file: a
    restart keeps what was written); else nothing on disk. Output to ``log``."""
    persist = ["--appendonly", "yes", "--appendfsync", "always", "--dir", str(files)]
    command = [
        "redis-server", "--bind", "127.0.0.1", "--port", str(port), "--save", "",
        *(persist if files is not None else ["--appendonly", "no"]),
    ]  # fmt: skip
    with open(log or os.devnull, "ab") as out:
        process = subprocess.Popen(command, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT)
    try:
        wait_for_port("127.0.0.1", port, process, "redis-server")
    except BaseException:  # Ctrl-C or no answer: leave no redis-server behind
        kill(process)
        raise
    return process


PGBOUNCER = shutil.which("pgbouncer") or "/usr/sbin/pgbouncer"
PGBOUNCER_QUERY_WAIT_TIMEOUT = 3
"""Seconds a query may wait in PgBouncer for a server connection (a paused or
stalled database, a full pool) before its client is disconnected, which the
service answers 503 + Retry-After. PostgreSQL's own timeouts cannot fire on a
query that never reached it (issue 25). Under daphne's 5 s limit on a websocket
handshake, so that a socket opened in a stall is told 4503, not dropped. The
compose file and Kubernetes set the same."""
PGBOUNCER_QUERY_TIMEOUT = 15
"""Seconds a query may run through PgBouncer (its statement timeout: PgBouncer
refuses the ``options`` start-up parameter that carries PostgreSQL's)."""


def start_pgbouncer(
    port: int, files: Path, *, pool_size: int = 10, log: Path | None = None
) -> subprocess.Popen[bytes]:
    """A ``pgbouncer`` of its own on 127.0.0.1:``port`` in transaction pooling,
    in front of every database of the PostgreSQL at 127.0.0.1:5432, as the
    compose file and Kubernetes run it (docs/operations.md, "PgBouncer"); listening when this
    returns. Its ini and user list are written to ``files``; its admin console is
    the database ``pgbouncer`` (user ``postgres``: ``SHOW STATS``, ``SHOW POOLS``).
    Run as root, it runs as ``postgres`` (PgBouncer refuses root)."""
    files.mkdir(parents=True, exist_ok=True)
    (files / "userlist.txt").write_text('"postgres" ""\n')
    (files / "pgbouncer.ini").write_text(
        "[databases]\n"
        f"* = host={PG_HOST} port={PG_PORT}\n"
        "[pgbouncer]\n"
        f"listen_addr = 127.0.0.1\nlisten_port = {port}\nunix_socket_dir =\n"
        f"auth_type = trust\nauth_file = {files / 'userlist.txt'}\n"
        "admin_users = postgres\nstats_users = postgres\n"
        f"pool_mode = transaction\ndefault_pool_size = {pool_size}\n"
        "max_client_conn = 500\nserver_reset_query =\n"
        f"query_wait_timeout = {PGBOUNCER_QUERY_WAIT_TIMEOUT}\n"
        f"query_timeout = {PGBOUNCER_QUERY_TIMEOUT}\n"
    )
    as_user: list[str] = []
    if os.geteuid() == 0:
        as_user = ["-u", "postgres"]
        files.chmod(0o755)
    with open(log or os.devnull, "ab") as out:
        process = subprocess.Popen(
            [PGBOUNCER, *as_user, str(files / "pgbouncer.ini")],
            cwd=ROOT,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    wait_for_port("127.0.0.1", port, process, "pgbouncer")
    return process


NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
NGINX_SITE = ROOT / "deploy" / "nginx.conf"
NGINX_MASK = ROOT / "deploy" / "nginx-mask.sed"
NGINX_SITE_EDITS = (
    # Docker's DNS, which re-resolves ``web`` as it scales: here the ports are known.
    (r"^resolver .*;\n", None),
    (r"^upstream web \{[^}]*\}\n", "upstream"),
    (r"\blisten 80;", "listen"),
    (r"\baccess_log /var/log/nginx/access\.log masked;", "access_log"),
)
"""What of ``deploy/nginx.conf`` is compose's own: each found exactly once, or the
stack refuses to start rather than run a proxy unlike compose's."""


def nginx_config(port: int, upstreams: list[int], files: Path, access_log: Path) -> str:
    """A whole ``nginx.conf`` for nginx on 127.0.0.1:``port`` in front of the daphnes
    on ``upstreams``: ``deploy/nginx.conf``'s server (one source of its masked
    access log format, written to ``access_log``) in the main context the compose
    image gives it (error log to stderr at ``notice``), with its files in ``files``."""
    given = {
        "upstream": "upstream web {\n"
        + "".join(f"    server 127.0.0.1:{p};\n" for p in upstreams)
        + "}\n",
        "listen": f"listen 127.0.0.1:{port};",
        "access_log": f"access_log {access_log} masked;",
    }
    site = NGINX_SITE.read_text()
    for pattern, name in NGINX_SITE_EDITS:
        site, found = re.subn(pattern, given.get(name or "", ""), site, flags=re.MULTILINE)
        if found != 1:
            raise RuntimeError(f"{NGINX_SITE} has {found} of {pattern!r}, not one")
    temp = "\n".join(
        f"    {kind}_temp_path {files / kind};"
        for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    # Run as root, nginx's workers would be ``nobody``, who cannot enter ``files``.
    user = "user root;\n" if os.geteuid() == 0 else ""
    return (
        f"daemon off;\nworker_processes 1;\npid {files / 'nginx.pid'};\n{user}"
        "error_log stderr notice;\n"
        "events {\n    worker_connections 1024;\n}\n"
        f"http {{\n{temp}\n{site}}}\n"
    )


def start_nginx(
    port: int, upstreams: list[int], files: Path, *, access_log: Path, error_log: Path
) -> tuple[subprocess.Popen[bytes], subprocess.Popen[bytes]]:
    """nginx on 127.0.0.1:``port`` in front of the daphnes on ``upstreams``
    (``nginx_config``), listening when this returns; its stderr — the error log,
    which names clients — through ``deploy/nginx-mask.sed`` into ``error_log``, as
    compose runs it. Returns nginx and the sed reading it (which ends when nginx does)."""
    files.mkdir(parents=True, exist_ok=True)
    conf = files / "nginx.conf"
    conf.write_text(nginx_config(port, upstreams, files, access_log))
    with error_log.open("ab") as out:
        mask = subprocess.Popen(
            ["sed", "-u", "-E", "-f", str(NGINX_MASK)],
            stdin=subprocess.PIPE,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    assert mask.stdin is not None
    try:
        nginx = subprocess.Popen(
            [NGINX, "-e", "stderr", "-p", str(files), "-c", str(conf)],
            cwd=ROOT,
            stdout=mask.stdin,
            stderr=mask.stdin,
        )
    finally:
        mask.stdin.close()  # nginx holds the pipe: sed ends when nginx does
    try:
        wait_for_port("127.0.0.1", port, nginx, "nginx")
    except BaseException:
        kill(nginx)
        mask.wait(timeout=10)
        raise
    return nginx, mask


def start_worker(
    env: dict[str, str],
    log: Path,
    *options: str,
    queues: str = ALL_QUEUES,
    own_group: bool = False,
) -> subprocess.Popen[bytes]:
    """``celery -A config worker`` with ``env`` and ``options`` taking ``queues``
    (comma-separated: ``QUEUES["heavy"]``; all of them by default), its output
    appended to ``log``. ``own_group``: in a process group of its own, with its
    pool's children, so that ``os.killpg`` kills the whole worker at once."""
    with log.open("ab") as out:
        return subprocess.Popen(
            [*CELERY, "worker", "--loglevel", "INFO", "-Q", queues, *QUIET, *options],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=own_group,
        )


def kill(process: subprocess.Popen[bytes]) -> None:
    """SIGKILL: no goodbye to the sockets, no clean shutdown."""
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=10)


def stop(processes: list[subprocess.Popen[bytes]]) -> None:
    """SIGTERM to all at once (daphne may wait up to 10 s for its sockets), then kill."""
    for process in processes:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
    limit = time.monotonic() + 15
    for process in processes:
        try:
            process.wait(timeout=max(0.1, limit - time.monotonic()))
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


def ensure_postgres() -> None:
    """Start the machine's PostgreSQL cluster if it does not answer (as ``.ci/run``)."""
    if answers(PG_HOST, PG_PORT):
        return
    clusters = sorted(os.listdir("/etc/postgresql")) if os.path.isdir("/etc/postgresql") else []
    if clusters and shutil.which("pg_ctlcluster"):
        subprocess.run(
            ["pg_ctlcluster", "--skip-systemctl-redirect", clusters[-1], "main", "start"],
            check=False,
            timeout=60,
        )
    limit = time.monotonic() + 30
    while not answers(PG_HOST, PG_PORT):
        if time.monotonic() > limit:
            raise RuntimeError(f"PostgreSQL does not answer on {PG_HOST}:{PG_PORT}")
        time.sleep(0.5)


def wait_for_port(host: str, port: int, process: subprocess.Popen[bytes], what: str) -> None:
    limit = time.monotonic() + 20
    while not answers(host, port):
        if process.poll() is not None:
            raise RuntimeError(f"{what} exited ({process.returncode})")
        if time.monotonic() > limit:
            raise RuntimeError(f"{what} did not listen on {host}:{port} within 20 s")
        time.sleep(0.05)
