"""Real Celery workers for tests: ``celery -A config worker`` as a subprocess
(``deploy.processes.start_worker``) with the production settings
(``config.settings``), on pytest's test database and the tests' Redis
(``REDIS_URL``, the broker), which the test process queues tasks to — the
eager mode of the other tests is switched off around them.

A worker takes every queue unless told which (``queues``: one class of
worker's, ``deploy.stack.QUEUES``, as compose and the stack run them: issue 38).

Used by ``tests/system/worker/test_celery_worker.py``,
``tests/system/worker/test_queues.py`` and
``tests/system/faults/test_worker_killed.py``.
"""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Callable, Iterator
from pathlib import Path

import redis
from django.conf import settings
from django.db import connection

from config.celery import app
from deploy.processes import ALL_QUEUES, start_worker

WAIT = 60.0


@contextlib.contextmanager
def real_broker() -> Iterator[None]:
    """Tasks go to the real broker (the tests' Redis), not run in-process; its
    database starts empty (no message, taken or not, left from an earlier run)."""
    redis.Redis.from_url(settings.REDIS_URL).flushdb()
    app.conf.task_always_eager = False
    try:
        yield
    finally:
        app.conf.task_always_eager = True


def worker_env(**extra: str) -> dict[str, str]:
    """The worker's environment: this test run's database and Redis."""
    database = connection.settings_dict
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DATABASE_URL": f"postgres://{database['USER']}@{database['HOST']}:{database['PORT']}"
        f"/{database['NAME']}",
        "REDIS_URL": settings.REDIS_URL,
        "SECRET_KEY": settings.SECRET_KEY,
        "CELERY_EAGER": "0",
        **extra,
    }


class Worker:
    """One worker process, in a process group of its own (with its pool's
    children, so the whole worker can be killed at once), logging to a file,
    taking ``queues`` (comma-separated; every one by default)."""

    def __init__(
        self,
        log_path: Path,
        *options: str,
        queues: str = ALL_QUEUES,
        env: dict[str, str] | None = None,
    ) -> None:
        self.log_path = log_path
        self.process = start_worker(
            env or worker_env(), log_path, *options, queues=queues, own_group=True
        )

    @property
    def pid(self) -> int:
        return self.process.pid

    def alive(self) -> bool:
        return self.process.poll() is None

    def children(self) -> list[int]:
        """The pool's processes (prefork), from ``/proc``."""
        path = Path(f"/proc/{self.pid}/task/{self.pid}/children")
        return [int(pid) for pid in path.read_text().split()] if self.alive() else []

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def kill(self) -> None:
        """SIGKILL to the whole worker, its pool children with it, at once."""
        if self.process.returncode is None:  # not reaped: the group is still ours
            os.killpg(self.pid, signal.SIGKILL)
        self.process.wait()

    def stop(self) -> None:
        """At the end of a test: killed, as nothing is left for it to finish (a
        warm shutdown only adds seconds)."""
        self.kill()
        print(f"--- {self.log_path.name}\n{self.log()[-3000:]}")  # shown when a test fails


@contextlib.contextmanager
def workers(directory: Path) -> Iterator[Callable[..., Worker]]:
    """``start(*options, queues=ALL_QUEUES, env=None)`` starts a worker logging
    into ``directory``; all are stopped on leaving."""
    started: list[Worker] = []

    def start(*options: str, queues: str = ALL_QUEUES, env: dict[str, str] | None = None) -> Worker:
        worker = Worker(
            directory / f"worker{len(started) + 1}.log", *options, queues=queues, env=env
        )
        started.append(worker)
        return worker

    try:
        yield start
    finally:
        for worker in started:
            worker.stop()
