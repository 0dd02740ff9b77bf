"""The users' rows kept per process, and their marks in the shared cache
(``accounts.backends``, issue 38): a row is served from here only while its
user's mark is the one it was read under; every change of a user's row sets a
new mark once committed (``user_changed``: from a save, a deletion, a queryset
update — ``accounts.models.UserQuerySet``)."""

from __future__ import annotations

import logging
import threading
import uuid
from typing import Any

from django.core.cache import cache
from django.db import transaction

log = logging.getLogger(__name__)

MARK_KEY = "user-mark:{}"
MARK_KEEP_S = 24 * 3600
KEEP_USERS = 5000
"""Users kept at most in a process; beyond, all are forgotten (read again)."""
KEEP_S = 60.0
"""A kept row is read again after this long whatever its mark: the bound on
serving a row changed while the cache did not answer (``user_changed``)."""

KEPT: dict[int, tuple[str, float, Any]] = {}  # user id -> (its mark, when read, its row)
LOCK = threading.Lock()


def new_mark() -> str:
    return uuid.uuid4().hex


def user_changed(user_id: int) -> None:
    """The user's row changed (or will, with the current transaction): forget it
    here now, and everywhere once committed (a new mark)."""
    KEPT.pop(user_id, None)

    def remark() -> None:
        KEPT.pop(user_id, None)
        try:
            cache.set(MARK_KEY.format(user_id), new_mark(), timeout=MARK_KEEP_S)
        except Exception:  # left as it was, the kept rows would be served: say so
            log.error("user %s changed but the cache did not answer", user_id)

    transaction.on_commit(remark)
