"""The production process set without Docker: what ``docker-compose.yml`` runs,
started as plain processes on this machine.

    python -m deploy.stack [--daphnes 2] [--port 8000] [--database patience_stack]
                           [--fresh] [--drop] [--pgbouncer] [--nginx 8080]   # or: make stack

- **PostgreSQL**: the server at ``postgres@127.0.0.1:5432`` (started with Debian's
  ``pg_ctlcluster`` if it does not answer); the service gets a database of its own,
  created if missing (``--fresh``: dropped and created anew).
- **Redis**: a ``redis-server`` of the stack's own on a free port, with an
  append-only file as in the compose file, so it can be restarted without
  touching anyone else's Redis.
- ``manage.py migrate``, then **N daphnes** on consecutive ports from ``--port``,
  **two Celery workers** — one for the interactive and default queues, one for
  the heavy ones (``QUEUES``) — and **Celery beat**, all with the production
  settings (``config.settings``: no debug, connection pool, Redis for cache,
  sessions, channel layer and broker). Beside the daphnes' start,
  ``manage.py prepare_dailies --queue`` queues the days' deals for the heavy
  worker and marks them being dealt: the service answers in seconds, and the
  lobby shows today's deals as soon as they are dealt (issue 38).

``--pgbouncer``: daphnes, worker and beat reach the database through a
``pgbouncer`` of the stack's own in transaction pooling (``PGBOUNCER=1``), as
compose and Kubernetes run them; the migrations go straight to PostgreSQL.

``--nginx PORT``: **nginx** in front of the daphnes on that port, as compose
runs it — its server block is ``deploy/nginx.conf``'s (the masked access log, the
body limit, the proxying), its error log read through ``deploy/nginx-mask.sed``
(no full client address, docs/operations.md "Log retention"), and the daphnes
believe its ``X-Forwarded-For`` (``--proxy-headers``, ``NUM_PROXIES=1``). Without
it there is no proxy in front: each daphne is a whole server, and clients may
use any of them (websocket groups span the processes through Redis); with it
they still may. As compose's
``restart: unless-stopped``, a process that exits is started again (same port,
same arguments) after a back-off — 1 s, doubling up to 30 s, back to 1 s once it
has stayed up 30 s — and each exit and restart is printed. It runs until Ctrl-C
or SIGTERM, then stops every process it started (``--drop`` also drops the
database). Logs are in a temporary directory printed at start; what the stack
prints itself passes ``kit.logs.mask_text`` as every process's lines do.

The fault tests and ``bench/ws_load.py`` use :class:`Stack` directly — without
the restarts, which only ``main`` does (``Stack.supervise``), so a test that
kills a process decides itself when it comes back. Each process is started by
``deploy/processes.py``, as every other test and bench that starts real servers
starts it; ``deploy/client.py`` is the HTTP client that talks to them.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

import redis

from deploy.processes import (
    CELERY,
    PG_HOST,
    PG_PORT,
    QUEUES,
    ROOT,
    admin_sql,
    create_database,
    drop_database,
    ensure_postgres,
    free_port,
    kill,
    migrate,
    server_env,
    start_daphne,
    start_nginx,
    start_pgbouncer,
    start_redis,
    start_worker,
    stop,
    wait_until_up,
)
from kit.logs import mask_text

RESTART_FIRST_S = 1.0
RESTART_MAX_S = 30.0
STAYED_UP_S = 30.0
"""The restart back-off: 1 s after a first exit, doubling with each exit up to
30 s (a process that cannot start is not restarted in a tight loop), back to
1 s once the process has stayed up 30 s (as Docker's restart policy does)."""


@dataclass
class Restarts:
    """One supervised process's back-off."""

    started: float
    delay: float = RESTART_FIRST_S
    due: float | None = None
    """When it is to be started again; ``None`` while it runs."""


class Stack:
    """PostgreSQL database, own Redis, N daphnes, two Celery workers (``worker``:
    the interactive and default queues; ``heavy_worker``: the heavy ones) and
    beat; nginx in front if ``nginx`` (on ``nginx_port``, else a free one).
    ``prepare``: the days' deals queued at start (``prepare_dailies --queue``).

    Use as a context manager (everything is stopped on exit, the database
    dropped if ``drop``). ``env`` is the environment every process got; pass
    ``extra`` to add settings (e.g. ``{"ACTION_RATE": "100000/min"}``)."""

    def __init__(
        self,
        *,
        database: str,
        daphnes: int = 2,
        port: int | None = None,
        worker: bool = True,
        beat: bool = True,
        prepare: bool = True,
        fresh: bool = True,
        drop: bool = True,
        extra: dict[str, str] | None = None,
        logs: Path | None = None,
        pgbouncer: bool = False,
        nginx: bool = False,
        nginx_port: int | None = None,
    ) -> None:
        self.database = database
        self.fresh, self.drop, self.prepare = fresh, drop, prepare
        self.with_worker, self.with_beat = worker, beat
        self.logs = logs or Path(tempfile.mkdtemp(prefix="stack-"))
        self.logs.mkdir(parents=True, exist_ok=True)
        first = port or free_port()
        self.ports = [first + n for n in range(daphnes)] if port else [first]
        while len(self.ports) < daphnes:
            self.ports.append(free_port())
        self.redis_port = free_port()
        self.database_url = f"postgres://postgres@{PG_HOST}:{PG_PORT}/{database}"
        self.redis_url = f"redis://127.0.0.1:{self.redis_port}/0"
        # The environment's secrets when it has them: ``make stack`` keeps its
        # sessions and daily deals across restarts.
        kept = {k: os.environ[k] for k in ("SECRET_KEY", "DAILY_DEAL_SECRET") if os.environ.get(k)}
        # Behind nginx, its X-Forwarded-For (and request id) are believed, as in compose.
        proxies = {"NUM_PROXIES": "1"} if nginx else {}
        self.env = server_env(
            self.database_url,
            self.redis_url,
            **kept,
            CELERY_EAGER="0",
            **{**proxies, **(extra or {})},
        )
        # ``pgbouncer``: the servers reach the database through a PgBouncer of the
        # stack's own, as compose and Kubernetes run them; migrations go straight.
        self.migrate_env = self.env
        self.pgbouncer_port = free_port() if pgbouncer else None
        if self.pgbouncer_port is not None:
            bounced = f"postgres://postgres@127.0.0.1:{self.pgbouncer_port}/{database}"
            self.env = {**self.env, "DATABASE_URL": bounced, "PGBOUNCER": "1"}
        self.nginx_port = (nginx_port or free_port()) if nginx else None
        self.pgbouncer: subprocess.Popen[bytes] | None = None
        self.nginx: subprocess.Popen[bytes] | None = None
        self.nginx_mask: subprocess.Popen[bytes] | None = None
        self.redis: subprocess.Popen[bytes] | None = None
        self.daphnes: list[subprocess.Popen[bytes] | None] = [None] * daphnes
        self.worker: subprocess.Popen[bytes] | None = None
        self.heavy_worker: subprocess.Popen[bytes] | None = None
        self.beat: subprocess.Popen[bytes] | None = None
        self.created = False
        self.restarts: dict[str, Restarts] = {}

    # --- whole stack ------------------------------------------------------------------

    def start(self) -> Stack:
        try:
            ensure_postgres()
            exists = admin_sql(f"SELECT 1 FROM pg_database WHERE datname = '{self.database}'")
            if self.fresh or not exists:
                create_database(self.database)
            self.created = True
            self.start_redis()
            if self.pgbouncer_port is not None:
                self.start_pgbouncer()
            migrate(self.migrate_env)
            # Nothing heavy before the service answers (issue 38): the days' deals are
            # queued for the heavy worker and marked being dealt, beside the daphnes'
            # start, and waited for (a second or two) before the stack is said up.
            preparing = self.queue_dailies() if self.prepare else None
            for n in range(len(self.daphnes)):
                self.start_daphne(n)
            if preparing is not None and preparing.wait(timeout=120) != 0:
                raise RuntimeError(f"prepare_dailies --queue exited {preparing.returncode}")
            if self.with_worker:
                self.start_worker()
                self.start_heavy_worker()
            if self.with_beat:
                self.start_beat()
            if self.nginx_port is not None:
                self.start_nginx()
        except BaseException:
            self.close()
            raise
        return self

    def close(self) -> None:
        processes = [self.nginx, self.worker, self.heavy_worker, self.beat, *self.daphnes]
        stop([p for p in processes if p is not None])
        self.stop_nginx_mask()
        for service in (self.pgbouncer, self.redis):
            if service is not None:
                stop([service])
        if self.created and self.drop:
            drop_database(self.database)

    def __enter__(self) -> Stack:
        return self.start()

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    # --- processes --------------------------------------------------------------------

    def _spawn(self, name: str, command: list[str]) -> subprocess.Popen[bytes]:
        with (self.logs / f"{name}.log").open("ab") as out:
            return subprocess.Popen(
                command, cwd=ROOT, env=self.env, stdout=out, stderr=subprocess.STDOUT
            )

    def manage(self, *args: str) -> None:
        subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=ROOT,
            env=self.env,
            check=True,
            timeout=300,
            stdout=subprocess.DEVNULL,
        )

    def queue_dailies(self) -> subprocess.Popen[bytes]:
        """``manage.py prepare_dailies --queue``, started: today's and the next days'
        deals queued for the heavy worker, each marked being dealt until it is."""
        with (self.logs / "prepare.log").open("ab") as out:
            return subprocess.Popen(
                [sys.executable, "manage.py", "prepare_dailies", "--queue"],
                cwd=ROOT,
                env=self.env,
                stdout=out,
                stderr=subprocess.STDOUT,
            )

    def log(self, name: str) -> str:
        path = self.logs / f"{name}.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def start_redis(self) -> None:
        """Redis with an append-only file in the log directory: a restart keeps
        what was written."""
        self.redis = start_redis(self.redis_port, files=self.logs, log=self.logs / "redis.log")

    def start_pgbouncer(self) -> None:
        assert self.pgbouncer_port is not None
        self.pgbouncer = start_pgbouncer(
            self.pgbouncer_port, self.logs / "pgbouncer", log=self.logs / "pgbouncer.log"
        )

    def stop_redis(self) -> None:
        """A clean shutdown (SIGTERM: Redis writes its file and exits)."""
        if self.redis is not None:
            stop([self.redis])
            self.redis = None

    def restart_redis(self) -> None:
        self.stop_redis()
        self.start_redis()

    def start_daphne(self, n: int, *, wait: bool = True) -> None:
        """Daphne ``n`` (from 0) on its port; ``wait``: until it answers."""
        log = self.logs / f"daphne{n + 1}.log"
        process = start_daphne(self.ports[n], self.env, log, proxied=self.nginx_port is not None)
        self.daphnes[n] = process
        if wait:
            wait_until_up(self.ports[n], process, log)

    def kill_daphne(self, n: int) -> None:
        """SIGKILL: no goodbye to the sockets, no clean shutdown."""
        process = self.daphnes[n]
        if process is not None:
            kill(process)
            self.daphnes[n] = None

    def start_nginx(self) -> None:
        """nginx in front of every daphne: access lines to ``nginx-access.log``, its
        error log, masked, to ``nginx-error.log``."""
        assert self.nginx_port is not None
        self.stop_nginx_mask()
        self.nginx, self.nginx_mask = start_nginx(
            self.nginx_port,
            self.ports,
            self.logs / "nginx",
            access_log=self.logs / "nginx-access.log",
            error_log=self.logs / "nginx-error.log",
        )

    def stop_nginx_mask(self) -> None:
        """Once nginx has stopped: its sed writes the last lines and ends (killed
        if a worker of a killed nginx still holds the pipe)."""
        if self.nginx_mask is not None:
            try:
                self.nginx_mask.wait(timeout=10)
            except subprocess.TimeoutExpired:
                kill(self.nginx_mask)
            self.nginx_mask = None

    def start_worker(self) -> None:
        """The interactive worker: mail, replay checks, reviews, races, the sweeps."""
        self.worker = start_worker(
            self.env, self.logs / "worker.log", "--concurrency", "1", queues=QUEUES["interactive"]
        )

    def start_heavy_worker(self) -> None:
        """The heavy worker: the solver's searches, which never hold the other back."""
        self.heavy_worker = start_worker(
            self.env, self.logs / "worker-heavy.log", "--concurrency", "1", queues=QUEUES["heavy"]
        )

    def start_beat(self) -> None:
        schedule = str(self.logs / "beat-schedule")
        self.beat = self._spawn("beat", [*CELERY, "beat", "--loglevel", "INFO", "-s", schedule])

    # --- restarts (``main``; the tests that kill processes restart them themselves) ---

    def _supervised(
        self,
    ) -> list[tuple[str, subprocess.Popen[bytes] | None, Callable[[], None]]]:
        """(name, process, how to start it again) of every process the stack runs."""
        supervised = [("redis", self.redis, self.start_redis)]
        if self.pgbouncer_port is not None:
            supervised.append(("pgbouncer", self.pgbouncer, self.start_pgbouncer))
        supervised += [
            (f"daphne {n + 1}", process, lambda n=n: self.start_daphne(n, wait=False))
            for n, process in enumerate(self.daphnes)
        ]
        if self.with_worker:
            supervised.append(("worker", self.worker, self.start_worker))
            supervised.append(("heavy worker", self.heavy_worker, self.start_heavy_worker))
        if self.with_beat:
            supervised.append(("beat", self.beat, self.start_beat))
        if self.nginx_port is not None:
            supervised.append(("nginx", self.nginx, self.start_nginx))
        return supervised

    def supervise(self) -> list[str]:
        """One look at every process, as compose's ``restart: unless-stopped``: one
        that has exited is started again once its back-off (``RESTART_*``) is
        over. Returns what happened, a line per exit or restart, for the log."""
        events = []
        now = time.monotonic()
        for name, process, start in self._supervised():
            state = self.restarts.setdefault(name, Restarts(started=now))
            if process is not None and process.poll() is None:
                if now - state.started >= STAYED_UP_S:
                    state.delay = RESTART_FIRST_S
                continue
            if state.due is None:
                code = "never started" if process is None else process.returncode
                events.append(f"{name} exited ({code}); starting it again in {state.delay:g} s")
                state.due = now + state.delay
                state.delay = min(state.delay * 2, RESTART_MAX_S)
            elif now >= state.due:
                state.due, state.started = None, now
                try:
                    start()
                except RuntimeError as error:  # Redis did not listen: the next look retries
                    events.append(f"{name} did not start: {error}")
                    continue
                new = {n: p for n, p, _ in self._supervised()}[name]
                events.append(f"{name} started again (pid {new.pid if new else '?'})")
        return events

    def redis_client(self) -> redis.Redis:
        return redis.Redis.from_url(self.redis_url, socket_timeout=5)

    def describe(self) -> str:
        def pid(process: subprocess.Popen[bytes] | None) -> str:
            return f"pid {process.pid}" if process is not None else "not running"

        lines = [f"PostgreSQL: {self.database_url}"]
        lines.append(f"Redis:      {self.redis_url} ({pid(self.redis)})")
        if self.pgbouncer_port is not None:
            lines.append(f"PgBouncer:  {self.env['DATABASE_URL']} (transaction pooling)")
        lines += [
            f"daphne {n + 1}:   http://127.0.0.1:{port}/ ({pid(self.daphnes[n])})"
            for n, port in enumerate(self.ports)
        ]
        workers = (("worker", self.worker), ("heavy worker", self.heavy_worker))
        for name, process in (*workers, ("beat", self.beat)):
            if process is not None:
                lines.append(f"{name + ':':<11} {pid(process)}")
        if self.nginx_port is not None:
            lines.append(f"nginx:      http://127.0.0.1:{self.nginx_port}/ ({pid(self.nginx)})")
        lines.append(f"logs:       {self.logs}")
        return "\n".join(lines)


def _terminated(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--daphnes", type=int, default=2, help="daphne processes (2)")
    parser.add_argument("--port", type=int, default=8000, help="first daphne's port (8000)")
    parser.add_argument("--database", default="patience_stack", help="database name")
    parser.add_argument("--fresh", action="store_true", help="drop and create the database")
    parser.add_argument("--drop", action="store_true", help="drop the database at the end")
    parser.add_argument(
        "--pgbouncer", action="store_true", help="the servers through a PgBouncer of its own"
    )
    parser.add_argument("--nginx", type=int, metavar="PORT", help="nginx in front, on PORT")
    args = parser.parse_args()
    if not 1 <= args.daphnes <= 8:
        parser.error("--daphnes must be 1 to 8")
    if not args.database.isidentifier():
        parser.error("--database must be a plain name (letters, digits, _)")
    signal.signal(signal.SIGTERM, _terminated)
    stack = Stack(
        database=args.database,
        daphnes=args.daphnes,
        port=args.port,
        fresh=args.fresh,
        drop=args.drop,
        pgbouncer=args.pgbouncer,
        nginx=args.nginx is not None,
        nginx_port=args.nginx,
    )
    with contextlib.suppress(KeyboardInterrupt), stack:
        print(mask_text(stack.describe()), "\nCtrl-C stops them all.", flush=True)
        while True:
            for event in stack.supervise():
                print(mask_text(f"{time.strftime('%H:%M:%S')} {event}"), flush=True)
            time.sleep(0.5)
    return 0


if __name__ == "__main__":
    sys.exit(main())
