"""Who a request is, read without the database on every request (issue 38).

Django reads the signed-in user's row on every request (``ModelBackend.get_user``,
then the session hash checked against it): 13 % of daphne's CPU an HTTP action
(py-spy, ``make bench-cost``). ``KeptUserBackend`` keeps each user's row in the
process and serves a copy of it while the user's *mark* in the shared cache is
the one it was read under. Every change of the row — a save (a password, an
email, ``session_generation`` by "sign out everywhere" or the "this wasn't me"
link), a queryset update (``accounts.models.UserQuerySet``), a deletion — sets a
new mark once committed, so every process reads the row again at its next
request: a session ended anywhere is refused at once everywhere, as before.
A cache that does not answer means the row is read, as Django always does."""

from __future__ import annotations

import copy
import time
from typing import Any

from django.contrib.auth import BACKEND_SESSION_KEY
from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.middleware import AuthenticationMiddleware, get_user
from django.core.cache import cache
from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver
from django.http import HttpRequest
from django.utils.functional import SimpleLazyObject

from .marks import KEEP_S, KEEP_USERS, KEPT, LOCK, MARK_KEEP_S, MARK_KEY, new_mark, user_changed
from .models import User


class KeptUserBackend(ModelBackend):
    """``ModelBackend``, the user's row kept per process while its mark holds."""

    def get_user(self, user_id: Any) -> User | None:
        try:
            pk = int(user_id)
            key = MARK_KEY.format(pk)
            mark = cache.get(key)
        except Exception:  # no cache (or an odd id): as Django does
            return super().get_user(user_id)  # type: ignore[no-any-return]
        kept = KEPT.get(pk)
        fresh = kept is not None and kept[0] == mark and time.monotonic() - kept[1] < KEEP_S
        if mark is not None and fresh:
            return copy.copy(kept[2])  # type: ignore[index]  # each request its own copy
        if mark is None:  # first read since the mark expired: one made, then the row
            mark = new_mark()
            if not cache.add(key, mark, timeout=MARK_KEEP_S):
                mark = cache.get(key)
        user: User | None = super().get_user(pk)
        if user is not None and mark is not None:
            with LOCK:
                if len(KEPT) >= KEEP_USERS:
                    KEPT.clear()
                KEPT[pk] = (mark, time.monotonic(), copy.copy(user))
        return user


LEGACY_BACKEND = "django.contrib.auth.backends.ModelBackend"
KEPT_BACKEND = f"{KeptUserBackend.__module__}.{KeptUserBackend.__qualname__}"


class KeptUserMiddleware(AuthenticationMiddleware):
    """Django's, but a session signed in before ``KeptUserBackend`` (naming
    Django's backend, which ``AUTHENTICATION_BACKENDS`` no longer lists) is
    moved to it on its first request, not signed out."""

    def process_request(self, request: HttpRequest) -> None:
        super().process_request(request)
        request.user = SimpleLazyObject(lambda: _user(request))  # type: ignore[assignment]


def _user(request: HttpRequest) -> Any:
    if request.session.get(BACKEND_SESSION_KEY) == LEGACY_BACKEND:
        request.session[BACKEND_SESSION_KEY] = KEPT_BACKEND
    return get_user(request)


@receiver(post_save, sender=User, dispatch_uid="accounts.backends.saved")
@receiver(post_delete, sender=User, dispatch_uid="accounts.backends.deleted")
def _row_changed(sender: type[User], instance: User, **kwargs: Any) -> None:
    user_changed(instance.pk)
