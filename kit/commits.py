"""What follows a commit: the one way every app runs work after its change is
committed — broadcasts, announcements, queued jobs and mails (``queue_on_commit``),
the game cache.

Some of that work waits on Redis or the broker (a task queued, a race's
progress noted, a dead-end proof's key): ``after_commit(..., after_answer=True)``.
A door that answers a player (the game socket, issue 38) runs its work inside
``answers_first``: such work then waits in a list until the answer is sent,
and the door runs it after — the player's ack never waits for it. Anywhere
else (a job, a shell, a door that does not ask) it runs at the commit, as all
work always did."""

from __future__ import annotations

import contextlib
import contextvars
import logging
from collections.abc import Callable, Iterator
from typing import Any

from django.conf import settings
from django.db import transaction

log = logging.getLogger(__name__)

Work = Callable[[], None]

_AFTER_ANSWER: contextvars.ContextVar[list[Work] | None] = contextvars.ContextVar(
    "after_answer", default=None
)


def _run(work: Work) -> None:
    try:
        work()
    except Exception:
        log.warning("after commit: %r failed", work, exc_info=True)


def after_commit(work: Work, *, after_answer: bool = False) -> None:
    """Run ``work`` once the current transaction commits (at once outside one),
    never for a change rolled back; with ``after_answer``, once the answer of
    the door it runs under is sent too (``answers_first``). The change is
    committed and its answer due, so a failure of ``work`` (a channel layer, a
    broker or a mail server that does not answer, or a task run in process) is
    logged, never raised into the answer."""

    def run() -> None:
        waiting = _AFTER_ANSWER.get() if after_answer else None
        if waiting is not None:
            waiting.append(work)
        else:
            _run(work)

    transaction.on_commit(run)


def queue_on_commit(task: Any, *args: Any) -> None:
    """Queue the Celery ``task`` with ``args`` once the change is committed (and
    its answer sent: a broker's round trip never delays an ack), robust: a
    broker that does not answer (Redis restarting) must not turn the answer into
    an error, so a failure to queue is a warning naming the task — each periodic
    job catches up what was lost (e.g. ``verify_pending_attempts``). The one way
    every app queues a job after its change (issue 40)."""

    def send() -> None:
        try:
            task.delay(*args)
        except Exception as exc:
            # Queued, the broker did not answer; run in process (CELERY_EAGER), the task
            # itself failed. Either way the periodic job catches up (see above).
            how = "failed in process" if settings.CELERY_TASK_ALWAYS_EAGER else "not queued"
            log.warning("%s%r %s: %s: %s", task.name, args, how, type(exc).__name__, exc)

    after_commit(send, after_answer=True)


@contextlib.contextmanager
def answers_first() -> Iterator[list[Work]]:
    """Around a door's work: the ``after_answer`` work it commits waits in the
    list yielded, for the door to ``run_all`` once its answer is out."""
    waiting: list[Work] = []
    token = _AFTER_ANSWER.set(waiting)
    try:
        yield waiting
    finally:
        _AFTER_ANSWER.reset(token)


def run_all(works: list[Work]) -> None:
    """Run the work ``answers_first`` kept, in order, each failure logged."""
    for work in works:
        _run(work)
