"""What follows a commit: the one way every app runs work after its change is
committed — broadcasts, announcements, queued jobs and mails, the game cache —
each change's work gathered in one ``Followups``, registered with its
transaction once.

Some of that work waits on Redis or the broker (a task queued, a race's
progress noted, a dead-end proof's key): ``Followups.later``, ``queue``.
A door that answers a player (the game socket, issue 38) runs its work inside
``answers_first``: such work then waits in a list until the answer is sent,
and the door runs it after — the player's ack never waits for it. Anywhere
else (a job, a shell, a door that does not ask) it runs at the commit, as all
work always did."""

from __future__ import annotations

import contextlib
import contextvars
import functools
import logging
from collections.abc import Callable, Iterator
from typing import Any

from celery import current_app
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


class Followups:
    """What one change sets off once it is committed, gathered while the change is
    made and handed to its transaction in one registration (issue 40): work
    ``at_commit`` runs at the commit (a broadcast, a cache); work ``later`` and
    jobs (``queue``) once the answer of the door they run under is sent too
    (``answers_first``). Never for a change rolled back. The change is committed
    and its answer due, so a failure of any piece (a channel layer, a broker or a
    mail server that does not answer, a task run in process) is logged, never
    raised into the answer, and the pieces after it still run.

    Used as a block, registered when the block ends without an error::

        with Followups() as after:
            after.queue("games.tasks.verify_attempt", attempt.pk)
    """

    __slots__ = ("after_answer", "now")

    def __init__(self) -> None:
        self.now: list[Work] = []
        self.after_answer: list[Work] = []

    def at_commit(self, work: Work) -> None:
        self.now.append(work)

    def later(self, work: Work) -> None:
        self.after_answer.append(work)

    def queue(self, task: Any, *args: Any) -> None:
        """Queue the Celery ``task`` (the task, or its name: the code that asks for
        a job need not import the module that runs it) with ``args``."""
        self.after_answer.append(functools.partial(queue_now, task, *args))

    def register(self) -> None:
        now, later = self.now, self.after_answer
        if not (now or later):
            return

        def run() -> None:
            for work in now:
                _run(work)
            waiting = _AFTER_ANSWER.get()
            if waiting is not None:
                waiting.extend(later)
            else:
                run_all(later)

        transaction.on_commit(run)

    def __enter__(self) -> Followups:
        return self

    def __exit__(self, kind: type[BaseException] | None, *_: object) -> None:
        if kind is None:
            self.register()


def after_commit(work: Work, *, after_answer: bool = False) -> None:
    """Run ``work`` once the current transaction commits (at once outside one),
    never for a change rolled back; with ``after_answer``, once the answer of
    the door it runs under is sent too (``answers_first``). A change that sets
    off several things gathers them in one ``Followups``."""
    with Followups() as after:
        (after.later if after_answer else after.at_commit)(work)


def queue_now(task: Any, *args: Any) -> None:
    """Queue the Celery ``task`` (or the task of that name) with ``args`` now,
    robust: a broker that does not answer (Redis restarting) must not turn an
    answer into an error, so a failure to queue is a warning naming the task —
    each periodic job catches up what was lost (e.g. ``verify_pending_attempts``)."""
    name = task if isinstance(task, str) else task.name
    try:
        if isinstance(task, str):
            task = current_app.tasks[task]
        task.delay(*args)
    except Exception as exc:
        # Queued, the broker did not answer; run in process (CELERY_EAGER), the task
        # itself failed. Either way the periodic job catches up (see above).
        how = "failed in process" if settings.CELERY_TASK_ALWAYS_EAGER else "not queued"
        log.warning("%s%r %s: %s: %s", name, args, how, type(exc).__name__, exc)


def queue_on_commit(task: Any, *args: Any) -> None:
    """Queue the Celery ``task`` (or the task of that name) with ``args`` once the
    change is committed and its answer sent (a broker's round trip never delays
    an ack): ``queue_now`` then. The one way every app queues a job after its
    change (issue 40)."""
    with Followups() as after:
        after.queue(task, *args)


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
