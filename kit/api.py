"""Small pieces every API view shares: strict input parsing and rate limits.

Input is untrusted JSON: a field of the wrong JSON type is an error, never
coerced (``"2"`` is not 2, ``true`` is not 1), and unknown fields are refused.
"""

from __future__ import annotations

import datetime as dt
import functools
import ipaddress
import json
import logging
import os
import re
import threading
import time
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.urls import register_converter
from drf_spectacular.utils import inline_serializer
from rest_framework import parsers, renderers, serializers
from rest_framework.exceptions import ParseError, Throttled
from rest_framework.request import Request
from rest_framework.settings import api_settings
from rest_framework.throttling import BaseThrottle, SimpleRateThrottle

from kit.http import ApiError, describe_error, unavailable

log = logging.getLogger(__name__)


class JSONParser(parsers.JSONParser):
    """DRF's JSON parser, but JSON nested too deep for Python is a 400, not a 500."""

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        try:
            return super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError("JSON nested too deeply.") from None


class BrowsableAPIRenderer(renderers.BrowsableAPIRenderer):
    """DRF's browsable API (debug runs) without its ``<style>`` element of code
    colours, which the Content-Security-Policy refuses (its style attributes are
    allowed by hash in the settings)."""

    def get_context(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        context: dict[str, Any] = super().get_context(*args, **kwargs)
        context["code_style"] = None
        return context


class StrictSerializer(serializers.Serializer):  # type: ignore[type-arg]
    """A serializer that refuses unknown fields and non-object bodies."""

    def to_internal_value(self, data: Any) -> Any:
        if not isinstance(data, dict):
            raise serializers.ValidationError({"body": ["Expected a JSON object."]})
        unknown = sorted(set(data) - set(self.fields))
        if unknown:
            raise serializers.ValidationError({key: ["Unknown field."] for key in unknown})
        return super().to_internal_value(data)


class StrictIntegerField(serializers.IntegerField):
    """A JSON integer and nothing else (not a bool, a float or a string)."""

    def to_internal_value(self, data: Any) -> int:
        if type(data) is not int:
            self.fail("invalid")
        return int(super().to_internal_value(data))


class StrictCharField(serializers.CharField):
    """A JSON string and nothing else."""

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        return str(super().to_internal_value(data))


class StrictBooleanField(serializers.BooleanField):
    """A JSON boolean and nothing else (not 0/1, not "true")."""

    default_error_messages = {
        "invalid": "Expected true or false.",
        "null": "Expected true or false.",
    }

    def to_internal_value(self, data: Any) -> bool:
        if type(data) is not bool:
            self.fail("invalid")
        return data


class StrictChoiceField(serializers.ChoiceField):
    """One of ``choices``, as a JSON string; a refusal lists them."""

    def __init__(self, choices: Any, **kwargs: Any) -> None:
        super().__init__(choices, **kwargs)
        allowed = ", ".join(json.dumps(choice) for choice in self.choices)
        message = f"Expected one of {allowed}."
        self.error_messages = {**self.error_messages, "invalid_choice": message, "null": message}

    def to_internal_value(self, data: Any) -> Any:
        if not isinstance(data, str):
            self.fail("invalid_choice", input=data)
        return super().to_internal_value(data)


class StrictObjectField(serializers.JSONField):
    """A JSON object (its content is checked by whoever reads it)."""

    default_error_messages = {"invalid": "Expected a JSON object."}

    def to_internal_value(self, data: Any) -> dict[str, Any]:
        if not isinstance(data, dict):
            self.fail("invalid")
        return data


class GameIdConverter:
    """``<game_id:…>`` in a path: a game's id, digits that fit the database's
    64-bit ids. A larger number is no game (404), not an overflow: SQLite
    raised it from the query, a 500 (issue 25)."""

    regex = "[0-9]{1,19}"
    largest = 2**63 - 1

    def to_python(self, value: str) -> int:
        number = int(value)
        if number > self.largest:
            raise ValueError(value)  # Django: the path does not match
        return number

    def to_url(self, value: int) -> str:
        return str(value)


register_converter(GameIdConverter, "game_id")  # once, as the URL modules import this one


_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def parse_date(text: str) -> dt.date:
    """A day in a path, ``YYYY-MM-DD`` exactly (``fromisoformat`` alone would take
    ``20261202`` too); anything else is a 400 ``bad_date``."""
    try:
        if _DATE.fullmatch(text):
            return dt.date.fromisoformat(text)
    except ValueError:
        pass
    raise ApiError(400, "bad_date", f"{text[:40]!r} is not a date (YYYY-MM-DD).")


def rate_limit(scope: str, ident: object) -> None:
    """Count one request of ``ident`` against the ``scope`` rate
    (``REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]``); over it, refuse with 429.

    A fixed window, counted in the shared cache (Redis when ``REDIS_URL`` is set,
    in process otherwise) under ``rate:{scope}:{ident}:{window}``, one of two ways:

    - **Exactly** (sign-in, sign-up, guests): one atomic increment per request,
      so requests arriving at once — on any number of daphne processes — cannot
      slip past (DRF's own throttle reads a history, then writes it back, and
      two requests at once both pass). Each of these requests is a password
      guessed or an account made: no process may let one more through.
    - **In process** (``LOCAL_SCOPES``: actions, new games — a player's and a
      network's guests' — CSP reports): a volume guard, counted in this
      process and sent to the cache in batches (``LocalCounts``), so that an
      action costs no round trip to Redis. One process is exact; N processes
      let through at most N × ``limit // LOCAL_SHARE`` over the limit in a
      window, e.g. 600/min on two daphnes, 660 (and none for a limit under 20:
      every request is sent).

    While the cache is unreachable (a Redis restart) requests are let through
    uncounted, with a warning: the limit guards against abuse and must not stop
    honest play."""
    rate = api_settings.DEFAULT_THROTTLE_RATES.get(scope)
    if not rate:
        return
    limit, duration = _parse_rate(rate)
    now = time.time()
    window = int(now // duration)
    if scope in LOCAL_SCOPES:
        count = local_counts.count(scope, str(ident), window, limit, duration)
    else:
        count = _shared_count(f"rate:{scope}:{ident}:{window}", 1, duration)
    if count is None:
        log.warning("rate limit %s not counted: the cache is unreachable", scope)
    elif count > limit:
        wait = max(1, int((window + 1) * duration - now) + 1)
        raise RateLimited(scope, wait)


LOCAL_SCOPES = frozenset({"actions", "games", "guest-games", "csp-reports", "quick-races"})
"""The scopes ``rate_limit`` counts in process: volume guards, where a bounded
overshoot across processes costs nothing (an action is refereed whatever its
pace), unlike the sign-in and sign-up scopes (a guess more is a guess more)."""

LOCAL_SHARE = 20
"""A process lets through at most ``limit // LOCAL_SHARE`` requests of a key
that it has not sent to the cache (none for a limit under 20: each is sent)."""


@functools.lru_cache(maxsize=64)
def _parse_rate(rate: str) -> tuple[int, int]:
    """``"600/min"`` as (600, 60): the limit and its window in seconds."""
    limit, duration = SimpleRateThrottle.parse_rate(None, rate)  # type: ignore[arg-type]
    return int(limit), int(duration)


def _shared_count(key: str, delta: int, duration: int) -> int | None:
    """Add ``delta`` to the cache's counter ``key`` (made for the window's
    ``duration``, and a second more); its new value, or None while the cache is
    unreachable. One round trip once the window has begun."""
    try:
        try:
            return int(cache.incr(key, delta))
        except ValueError:  # the window's first count: make its counter
            # At most one of several racing adds wins; the others count on it.
            if cache.add(key, delta, timeout=duration + 1):
                return delta
            return int(cache.incr(key, delta))
    except Exception as exc:
        if not unavailable(exc):
            raise
        return None


class _Tally:
    """One key's count in this process, for one window: ``seen``, the cache's
    total when last sent to (this process's own requests among them);
    ``sending``, requests on their way there; ``unsent``, requests let through
    since; ``known``, whether it has been sent to once."""

    __slots__ = ("known", "seen", "sending", "unsent")

    def __init__(self) -> None:
        self.known = False
        self.seen = self.sending = self.unsent = 0


class LocalCounts:
    """The counts of ``LOCAL_SCOPES``, kept in process and sent to the cache in
    batches, piggy-backed on the requests themselves (no thread to start, stop
    or lose in a fork).

    A key's first request in a window, in this process, is counted in the cache
    and learns the total there (what other processes, or this one before a
    restart, let through). After that, requests are let through here while the
    total seen plus those since stays under the limit, and at most ``share``
    (``limit // LOCAL_SHARE``) of them are unsent: the next one sends
    them, itself included, in one increment, and learns the total again. So one
    process is exact: the cache's total plus its unsent requests is all there is
    (while two of its increments are on their way, the one that lands first may
    be counted twice for a moment: an error towards refusing, never the other).
    Across N processes each lets through at most ``share`` requests that no other
    has seen, and none once it has seen the limit reached, so a window lets
    through at most ``limit + N × share`` (a process forked, or restarted within
    the window, counts as one more). Requests refused here are not counted: the
    window is spent either way.

    Safe across threads (the database thread pool runs actions at once): one
    lock over the counts, never held during a round trip. Counts of a scope's
    past windows are dropped when its next window begins. A count that cannot be
    sent (the cache unreachable) is dropped, as ``rate_limit`` drops a request
    then, and sending is tried again ``share`` requests later."""

    def __init__(self) -> None:
        self.forget()
        os.register_at_fork(after_in_child=self.forget)  # the lock may be held in the parent

    def forget(self) -> None:
        """Start afresh (a forked process; tests, as they clear the cache)."""
        self.lock = threading.Lock()
        self.windows: dict[str, tuple[int, dict[str, _Tally]]] = {}

    def count(self, scope: str, ident: str, window: int, limit: int, duration: int) -> int | None:
        """The request's number in ``window`` as far as this process knows (over
        ``limit``: refused), or None when it was let through uncounted."""
        with self.lock:
            current = self.windows.get(scope)
            if current is None or current[0] != window:
                current = self.windows[scope] = (window, {})
            tally = current[1].get(ident)
            if tally is None:
                tally = current[1][ident] = _Tally()
            if tally.known:
                counted = tally.seen + tally.sending + tally.unsent
                if counted >= limit:
                    return counted + 1
                if tally.unsent < limit // LOCAL_SHARE:
                    tally.unsent += 1
                    return counted + 1
            delta, tally.unsent = tally.unsent + 1, 0
            tally.sending += delta
        total = None
        try:
            total = _shared_count(f"rate:{scope}:{ident}:{window}", delta, duration)
        finally:
            with self.lock:
                tally.sending -= delta
                tally.known = True
                if total is not None:
                    tally.seen = max(tally.seen, total)
        return total


local_counts = LocalCounts()


class RateLimited(Throttled):
    """Over the ``scope`` rate: try again in ``wait`` seconds (the error says how
    long in words, ``Retry-After`` in seconds; kit/http.py)."""

    def __init__(self, scope: str, wait: int) -> None:
        super().__init__(wait=wait)
        self.scope = scope


class RateThrottle(BaseThrottle):
    """``rate_limit`` for a DRF view that names its ``throttle_scope``, counted
    by the key the scope names (docs/operations.md, "Edges and abuse bounds"):

    - per player (``per_player``) when signed in;
    - per network (``per_network``: guests made, sign-ups) where the budget
      guards what every visitor shares: ``client_network``, so the addresses of
      one allocation (an IPv6 /64 is 2^64 of them) are one client (issue 38);
    - else per client address (sign-in, password resets: a neighbour on the
      same /24 is not locked out of an account by someone else's guesses).

    A guest's new game (``games``) also counts against its network's
    ``guest-games``: each guest has its own per-player budget, and a farm of
    guests on one network would otherwise multiply it (``guests_per_network``)."""

    per_player = ("actions", "games", "account-changes", "email-resend")
    per_network = frozenset({"guests", "register"})
    guests_per_network = {"games": "guest-games"}

    def allow_request(self, request: Request, view: Any) -> bool:
        if request.method in ("GET", "HEAD", "OPTIONS"):
            return True
        scope = getattr(view, "throttle_scope", "")
        user = request.user
        if scope in self.per_player and user is not None and user.is_authenticated:
            ident: object = f"user-{user.pk}"
        elif scope in self.per_network:
            ident = client_network(request)
        else:
            ident = client_address(request)
        rate_limit(scope, ident)
        shared = self.guests_per_network.get(scope)
        if shared and getattr(user, "is_guest", False):
            rate_limit(shared, client_network(request))
        return True


def client_address(request: HttpRequest | Request) -> str:
    """The client's address as every per-address limit counts it: the peer, or
    the ``NUM_PROXIES``-th address from the right of X-Forwarded-For."""
    return str(BaseThrottle().get_ident(request))


def client_ip(request: HttpRequest | Request) -> str | None:
    """``client_address`` as stored with an attempt: an IP address written the
    standard way, or None when the ident is none (a proxy's header read wrong)."""
    try:
        return str(ipaddress.ip_address(client_address(request).strip()))
    except ValueError:
        return None


def client_network(request: HttpRequest | Request) -> str:
    """The network of ``client_address`` as the budgets of shared resources count
    it (issue 38): an IPv4 address's /``THROTTLE_V4_PREFIX`` (24), an IPv6
    address's /``THROTTLE_V6_PREFIX`` (64: what one host or home is given, each
    of its addresses as good as the next), e.g. ``203.0.113.0/24``. An
    IPv4-mapped IPv6 address (a dual-stack socket's) is its IPv4 address. Not
    an address (a proxy's header read wrong): that text, a key of its own."""
    return address_network(client_address(request))


def address_network(address: str) -> str:
    """``client_network`` of the address ``address``."""
    try:
        parsed = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(parsed, ipaddress.IPv6Address) and parsed.ipv4_mapped:
        parsed = parsed.ipv4_mapped
    if isinstance(parsed, ipaddress.IPv4Address):
        return str(
            ipaddress.IPv4Network((parsed.packed, settings.THROTTLE_V4_PREFIX), strict=False)
        )
    return str(ipaddress.IPv6Network((parsed.packed, settings.THROTTLE_V6_PREFIX), strict=False))


def login_throttled(
    view: Callable[..., HttpResponse],
    per_account: Callable[[HttpRequest, str], None] | None = None,
) -> Callable[..., HttpResponse]:
    """``view``, a sign-in form outside the API (the admin's), counted against the
    API login's own budget: the same scope, the same address key, so wrong
    passwords sent to either door add up and neither is a way round the other;
    and ``per_account`` (the form's ``username``) as the API counts it.
    Over the limit: 429 in the one error shape, with ``Retry-After``."""

    @functools.wraps(view)
    def counted(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if request.method == "POST":
            try:
                rate_limit("login", client_address(request))
                if per_account is not None:
                    per_account(request, str(request.POST.get("username", ""))[:150])
            except Throttled as exc:
                status, body, headers = describe_error(exc) or (429, {}, {})
                return JsonResponse(body, status=status, headers=headers)
        return view(request, *args, **kwargs)

    return counted


_MONTH = re.compile(r"(\d{4})-(\d{2})")


def parse_month(text: str) -> dt.date:
    """A month in a query, ``YYYY-MM`` exactly, as its first day; anything else
    is a 400 ``bad_month``."""
    found = _MONTH.fullmatch(text)
    if found and int(found[1]) >= 1 and 1 <= int(found[2]) <= 12:
        return dt.date(int(found[1]), int(found[2]), 1)
    raise ApiError(400, "bad_month", f"{text[:40]!r} is not a month (YYYY-MM, e.g. 2026-12).")


ERROR = inline_serializer(
    "Error",
    {
        "error": inline_serializer(
            "ErrorDetail",
            {
                "code": serializers.CharField(),
                "message": serializers.CharField(),
                "seq": serializers.IntegerField(required=False),
            },
        )
    },
)
"""The one error shape every door answers with (``kit.http``), for the OpenAPI
schema of every app's views (issue 40: the kit's, not one app's)."""
ERRORS = dict.fromkeys((400, 401, 403, 404, 409, 413, 422, 429), ERROR)
"""Every refusal status a view may answer, each in the error shape."""
