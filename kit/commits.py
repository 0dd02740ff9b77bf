"""What follows a commit: the one way every app runs work after its change is
committed — broadcasts, announcements, queued jobs and mails, the game cache."""

from __future__ import annotations

import logging
from collections.abc import Callable

from django.db import transaction

log = logging.getLogger(__name__)


def after_commit(work: Callable[[], None]) -> None:
    """Run ``work`` once the current transaction commits (at once outside one),
    never for a change rolled back. The change is committed and its answer due,
    so a failure of ``work`` (a channel layer, a broker or a mail server that
    does not answer, or a task run in process) is logged, never raised into the
    answer."""

    def run() -> None:
        try:
            work()
        except Exception:
            log.warning("after commit: %r failed", work, exc_info=True)

    transaction.on_commit(run)
