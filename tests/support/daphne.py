"""Real daphnes, for what only a real server shows: one on the embedded default
(SQLite, no Redis: what ``make run`` serves), and two on one PostgreSQL
database and one Redis (the production shape: groups span them through
Redis), each a process that can be killed and started again."""

from __future__ import annotations

import secrets
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from deploy import processes
from tests.support.players import WAIT


@contextmanager
def sqlite_daphne(tmp_path: Path, **env: str) -> Iterator[tuple[int, Path]]:
    """A daphne on a fresh SQLite database in ``tmp_path``, migrated, with ``env``
    over the settings' defaults, up; yields its port and its log. Stopped on leaving."""
    settings = processes.server_env(f"sqlite:///{tmp_path / 'db.sqlite3'}", None, **env)
    processes.migrate(settings)
    port, log = processes.free_port(), tmp_path / "daphne.log"
    daphne = processes.start_daphne(port, settings, log)
    try:
        processes.wait_until_up(port, daphne, log)
        yield port, log
    finally:
        processes.stop([daphne])


@dataclass
class Daphne:
    """One daphne process on a fixed port, its output in a log file."""

    name: str
    port: int
    env: dict[str, str]
    log: Path
    process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.process = processes.start_daphne(self.port, self.env, self.log)

    def tail(self) -> str:
        return self.log.read_text(errors="replace")[-3000:] if self.log.exists() else ""

    def wait_until_up(self) -> None:
        assert self.process is not None
        processes.wait_until_up(self.port, self.process, self.log, timeout=WAIT)

    def kill(self) -> None:
        assert self.process is not None
        processes.kill(self.process)

    def stop(self) -> None:
        if self.process is not None:
            processes.stop([self.process])


@contextmanager
def two_daphnes(tmp_path: Path) -> Iterator[tuple[Daphne, Daphne]]:
    """Daphnes A and B up on a fresh database and a redis-server of their own
    (two runs at once never share a channel layer), dropped after."""
    db_name = f"patience_e2e_{secrets.token_hex(4)}"
    redis_port = processes.free_port()
    store_process = processes.start_redis(redis_port)
    # Secrets of the servers' own: their daily deals are keyed apart, never a test's code.
    env = processes.server_env(
        f"postgres://postgres@127.0.0.1:5432/{db_name}",
        f"redis://127.0.0.1:{redis_port}/0",
        REGISTER_RATE="1000/min",
        LOG_LEVEL="WARNING",
    )
    a = Daphne("A", processes.free_port(), env, tmp_path / "daphne-a.log")
    b = Daphne("B", processes.free_port(), env, tmp_path / "daphne-b.log")
    created = False
    try:
        processes.create_database(db_name)
        created = True
        processes.migrate(env)
        a.start()
        b.start()
        a.wait_until_up()
        b.wait_until_up()
        yield a, b
    finally:
        a.stop()
        b.stop()
        if created:
            processes.drop_database(db_name)  # FORCE: ends connections the killed daphne left open
        processes.stop([store_process])
