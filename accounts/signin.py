"""Guarding the password hash (issue 25): a sign-in is limited per account as well
as per address, the limit is checked before the hash runs, and the hashing runs
on a few threads of its own, off the one thread every other request shares.

Why each piece:

- **Per account.** The per-address budget (``LOGIN_RATE``) does nothing against
  guesses at one account spread over many addresses (128 guesses from 250
  addresses got no 429). ``LOGIN_ACCOUNT_RATE`` counts the attempts at one
  name — its confusables skeleton (accounts/names.py), so ``Ada``, ``ADA`` and a
  Cyrillic ``Аda`` are one budget — whether or not an account has it: the answer
  is the same 429 either way, so the limit reveals no account.
- **Before the hash.** A refused attempt costs a Redis ``INCR``, not ~0.4 s of CPU.
- **The trade-off**: anyone can spend an account's budget and keep its owner out
  for up to the window. So a browser that has signed in to the account before
  (``known_device`` cookie, signed, naming the account) is not counted against
  the account's budget, only against its address's: the owner signs in from
  their usual device through an attack; elsewhere the 429 says whose budget it
  is ("Too many sign-in attempts at this account") and how long to wait.
- **Off the shared thread.** Under daphne every request's Django code runs on one
  thread per process (config/asgi.py), so a 0.4 s hash there stalled every other
  player. A request that may hash a password (``hashes_password``) runs instead
  on ``PASSWORD_HASH_THREADS`` threads of its own; when they are all busy and
  ``PASSWORD_HASH_WAITING`` more wait for them, the next is answered 503 at
  once with ``Retry-After``, so a flood of sign-ins cannot pile up behind them.
"""

from __future__ import annotations

import asyncio
import contextvars
import hashlib
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from django.conf import settings
from django.core import signing
from django.db import close_old_connections
from django.http import HttpRequest, HttpResponse, JsonResponse

from kit.api import rate_limit
from kit.http import error_body

from .names import username_skeleton

KNOWN_DEVICE_COOKIE = "known_device"
_KNOWN_DEVICE_SALT = "accounts.signin.known_device"
KNOWN_DEVICE_DAYS = 365
BUSY_RETRY_S = 2


def account_key(username: str) -> str:
    """The per-account budget's key for a name as typed: its skeleton, hashed
    (a bounded key that does not spell the name in Redis)."""
    return hashlib.sha256(username_skeleton(username.casefold()).encode()).hexdigest()[:32]


def known_device(request: HttpRequest, username: str) -> bool:
    """The browser signed in to the account named ``username`` before (its
    ``known_device`` cookie, signed by us, names that account)."""
    raw = request.COOKIES.get(KNOWN_DEVICE_COOKIE, "")
    if not raw:
        return False
    try:
        value = signing.loads(raw, salt=_KNOWN_DEVICE_SALT, max_age=KNOWN_DEVICE_DAYS * 86400)
    except signing.BadSignature:
        return False
    return bool(value == account_key(username))


def remember_device(response: HttpResponse, username: str) -> None:
    """After a good sign-in: this browser may sign in to the account even while
    its budget is spent by someone else (see the module's docstring)."""
    response.set_cookie(
        KNOWN_DEVICE_COOKIE,
        signing.dumps(account_key(username), salt=_KNOWN_DEVICE_SALT),
        max_age=KNOWN_DEVICE_DAYS * 86400,
        httponly=True,
        secure=settings.SESSION_COOKIE_SECURE,
        samesite="Lax",
    )


def count_attempt(request: HttpRequest, username: str) -> None:
    """Count a sign-in attempt at ``username`` against its account's budget (not
    from a device known to it); over it, ``RateLimited`` (429) — before any hash."""
    if not known_device(request, username):
        rate_limit("login-account", account_key(username))


def hashes_password(request: HttpRequest) -> bool:
    """A request that may compute a password hash: a POST to a sign-in or
    sign-up form (the API's and the admin's), a password changed or reset; the
    email changed (issue 37) and the account deleted, each with the password."""
    if request.method == "PUT":
        return request.path_info == "/api/auth/email/"
    if request.method == "DELETE":
        return request.path_info == "/api/auth/account/"
    if request.method != "POST":
        return False
    return request.path_info in (
        "/api/auth/login/",
        "/api/auth/register/",
        "/api/auth/password/",
        "/api/auth/password/reset/confirm/",
        f"/{settings.ADMIN_PATH}login/",
    )


class _HashingThreads:
    """The process's password-hashing threads, made on first use (the setting
    is read then), and how many requests are on them."""

    def __init__(self) -> None:
        self.executor: ThreadPoolExecutor | None = None
        self.lock = threading.Lock()
        self.in_flight = 0  # changed on the event loop's thread only

    def get(self) -> ThreadPoolExecutor:
        with self.lock:
            if self.executor is None:
                self.executor = ThreadPoolExecutor(
                    max_workers=settings.PASSWORD_HASH_THREADS, thread_name_prefix="password-hash"
                )
            return self.executor


_threads = _HashingThreads()


def busy_response() -> HttpResponse:
    return JsonResponse(
        error_body(
            "unavailable",
            "Too many sign-ins at once right now; nothing was changed. "
            f"Try again in {BUSY_RETRY_S} seconds.",
        ),
        status=503,
        headers={"Retry-After": str(BUSY_RETRY_S)},
    )


async def run_hashing(
    get_response: Callable[[HttpRequest], Any], request: HttpRequest
) -> HttpResponse:
    """Run ``get_response(request)`` (the whole middleware chain and view) on the
    password-hashing threads; all busy and ``PASSWORD_HASH_WAITING`` more waiting
    for them (a burst of honest sign-ups): 503 at once, not a longer queue."""
    if _threads.in_flight >= settings.PASSWORD_HASH_THREADS + settings.PASSWORD_HASH_WAITING:
        return busy_response()
    _threads.in_flight += 1

    def respond() -> Any:
        try:
            return get_response(request)
        finally:
            # This thread's database connection goes back now: the request's
            # end (request_finished) is signalled on the shared thread.
            close_old_connections()

    try:
        loop = asyncio.get_running_loop()
        context = contextvars.copy_context()  # as sync_to_async does
        response: HttpResponse = await loop.run_in_executor(_threads.get(), context.run, respond)
        return response
    finally:
        _threads.in_flight -= 1
