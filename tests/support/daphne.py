"""A real daphne on the embedded default (SQLite, no Redis: what ``make run``
serves), for what only a real server shows."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from deploy.stack import free_port, migrate, server_env, start_daphne, stop, wait_until_up


@contextmanager
def sqlite_daphne(tmp_path: Path, **env: str) -> Iterator[tuple[int, Path]]:
    """A daphne on a fresh SQLite database in ``tmp_path``, migrated, with ``env``
    over the settings' defaults, up; yields its port and its log. Stopped on leaving."""
    settings = server_env(f"sqlite:///{tmp_path / 'db.sqlite3'}", None, **env)
    migrate(settings)
    port, log = free_port(), tmp_path / "daphne.log"
    daphne = start_daphne(port, settings, log)
    try:
        wait_until_up(port, daphne, log)
        yield port, log
    finally:
        stop([daphne])
