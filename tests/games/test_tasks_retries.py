"""A job of one attempt that meets a database wait past its bound runs again
(issue 25, "Bounded database waits"): the review of a resigned daily is started
while another connection holds the review table locked longer than
``DB_LOCK_TIMEOUT``; the first run fails on the lock, Celery runs it again
(``games.tasks.DATABASE_RETRY``, eagerly here: no countdown) and the review is
stored once the lock is gone."""

from __future__ import annotations

import logging
import threading

import pytest

from games.models import Review
from games.tasks import review_attempt
from tests.support.api import requires_postgres
from tests.support.fairplay import play_a_little_and_resign
from tests.support.locks import hold_table, lock_timeout

pytestmark = [requires_postgres, pytest.mark.django_db(transaction=True)]


def test_a_review_that_meets_a_held_lock_runs_again_and_is_stored(make_player, clock, caplog):
    assert lock_timeout() == "3s"  # the bound the first run meets (DB_LOCK_TIMEOUT)
    attempt_id = play_a_little_and_resign(make_player(), clock)
    Review.objects.filter(attempt_id=attempt_id).delete()  # reviewed at once (eager): again

    locked = threading.Event()
    holder = threading.Thread(target=hold_table, args=(Review._meta.db_table, 4.5, locked))
    holder.start()
    assert locked.wait(10)
    caplog.set_level(logging.INFO, logger="celery")
    try:
        result = review_attempt.apply(args=[attempt_id], throw=False)
    finally:
        holder.join()
    assert result.successful(), result.traceback
    assert Review.objects.filter(attempt_id=attempt_id).count() == 1
    retried = [r for r in caplog.records if "Retry" in r.getMessage()]
    assert retried, "the first run did not meet the lock: nothing was retried"
