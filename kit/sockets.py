"""The websocket kit every app's consumers stand on: JSON frames in and out,
errors as messages in the one error shape (``kit/http.py``), frame and
snapshot budgets per player (across all of the player's sockets), caps on the
sockets of a player and of an address across every daphne, the executors of
database work (actions; connects and snapshots apart), the log context of
each frame, and the open-socket gauge. The protocol of the game and
leaderboard sockets is in ``games/websocket.md``."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import logging
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from asgiref.sync import sync_to_async
from autobahn.exception import Disconnected
from channels.consumer import get_handler_name
from channels.db import database_sync_to_async as _database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.http import HttpRequest
from django_redis import get_redis_connection

from kit import logs, metrics
from kit.api import client_address
from kit.errors import Refusal
from kit.http import ApiError, describe_error, error_body, unavailable

log = logging.getLogger(__name__)
socket_log = logs.get_logger("kit.sockets")


def encode(message: Any) -> str:
    """A message as sent: compact JSON, encoded once however many sockets get it.
    The one encoder of every socket and broadcast (``games/events.py``)."""
    return json.dumps(message, separators=(",", ":"))


def frame(kind: str, *, texts: dict[str, str] | None = None, **fields: Any) -> str:
    """A message ``{"type": kind, **fields, **texts}``: ``fields`` encoded here,
    ``texts`` JSON already encoded (an object encoded once per change, for every
    socket), spliced in as they are. The one way a message wraps such a text
    (issue 40: envelopes were hand-built in three modules)."""
    parts = [f'"type":"{kind}"']  # the kinds and keys are our own names: no escaping
    parts += [f'"{key}":{_encoded(value)}' for key, value in fields.items()]
    parts += [f'"{key}":{text}' for key, text in (texts or {}).items()]
    return "{" + ",".join(parts) + "}"


def _encoded(value: Any) -> str:
    """``encode(value)``; an int or a bool (a ``v``, a ``seq``, ``duplicate``: in
    every action's answer) without the encoder."""
    if type(value) is int:
        return str(value)
    if type(value) is bool:
        return "true" if value else "false"
    return encode(value)


def spliced(obj: str, **fields: Any) -> str:
    """The encoded JSON object ``obj`` with ``fields`` added at its end, without
    decoding it (a socket's own ``you`` in a race encoded once for all)."""
    if not (obj.startswith("{") and obj.endswith("}")):
        raise ValueError("spliced: not an encoded object")
    added = ",".join(f'"{key}":{_encoded(value)}' for key, value in fields.items())
    if not added:
        return obj
    return f"{obj[:-1]},{added}}}" if obj != "{}" else f"{{{added}}}"


def error_frame(body: dict[str, Any], **extra: Any) -> str:
    """The ``error`` message around an error body (``kit.http.error_body``);
    ``extra``: fields beside it (the ``seq`` of the frame refused)."""
    return encode({"type": "error", **extra, **body})


PONG = encode({"type": "pong"})


def database_sync_to_async(func: Any) -> Any:
    """Run ``func`` (database work) on a worker from a thread pool, closing stale
    connections around it as Channels does — but not on Channels' one shared
    thread, where every socket of the process would queue behind the others.

    Through asgiref's ``SyncToAsync``, not a bare ``run_in_executor``: asgiref
    carries the socket's ``asgiref.local.Local`` data (where Django keeps its
    cache handles) into the worker and back. A bare crossing, tried for its 25 µs
    less CPU per call, made the rate limit's Redis cache object anew on every
    action: about 190 µs more CPU per action, net (issue 26)."""
    return _database_sync_to_async(func, thread_sensitive=False)


@functools.cache
def _connect_pool() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(settings.WS_CONNECT_THREADS, thread_name_prefix="ws-connect")


def _on_connect_pool(func: Any) -> Any:
    """``func`` (no database work: the caps' Redis counts) on the connects' pool."""
    return sync_to_async(func, thread_sensitive=False, executor=_connect_pool())


def connect_sync_to_async(func: Any) -> Any:
    """As ``database_sync_to_async``, on a small pool of its own
    (``WS_CONNECT_THREADS``) for the reads of a socket's opening and of the
    snapshots it asks for: a storm of connects (200 spectators of a race at
    once) queues there, not in front of the actions on the loop's default
    pool, and a flood of actions cannot hold a handshake past daphne's
    ``--websocket_connect_timeout`` (issue 38)."""
    return _database_sync_to_async(func, thread_sensitive=False, executor=_connect_pool())


MAX_FRAME = 64 * 1024  # the same limit as an HTTP body (PRODUCT.md)

# Close codes (4000 + the HTTP status they stand for).
CLOSE_BAD_REQUEST = 4400
CLOSE_UNAUTHENTICATED = 4401
CLOSE_FORBIDDEN = 4403
CLOSE_NOT_FOUND = 4404
# 4503, the database or Redis did not answer: config.middleware.CLOSE_UNAVAILABLE
CLOSE_TOO_MANY = 4429  # over the frame budget, or one socket too many


class Budgets:
    """Token buckets, one per player — a signed-in player's account, else the
    socket's client address (``scope_address``) — shared by all of that
    player's sockets in this process: ``burst`` tokens at once, refilled at
    ``rate`` a second (the settings named). A socket opened again finds its
    player's bucket as it was left: reconnecting refills nothing (issue 38: 16
    sockets, each with its own burst refilled on every reconnect, took one
    daphne's loop from every other player).

    Per process, not across daphnes: a Redis round trip on every frame would
    cost the action path more than the budget saves; a player's sockets spread
    over N daphnes get N budgets, still bounded (``WS_MAX_PER_PLAYER``). A
    bucket full again is forgotten (swept once a ``SWEEP_S``)."""

    SWEEP_S = 60.0

    def __init__(self, rate: str, burst: str) -> None:
        self.rate, self.burst = rate, burst
        self.forget()

    def forget(self) -> None:
        """Start afresh (tests)."""
        self.lock = threading.Lock()
        self.buckets: dict[str, list[float]] = {}  # key -> [tokens, stamp, burst]
        self.swept = time.monotonic()

    def take(self, key: str) -> bool:
        """One token of ``key``'s bucket; False when it has none left."""
        rate = float(getattr(settings, self.rate))
        burst = float(getattr(settings, self.burst))
        now = time.monotonic()
        with self.lock:
            if now - self.swept > self.SWEEP_S:
                self._sweep(now, rate)
            bucket = self.buckets.get(key)
            if bucket is None or bucket[2] != burst:  # a new player (or a new setting)
                bucket = self.buckets[key] = [burst, now, burst]
            bucket[0] = min(burst, bucket[0] + (now - bucket[1]) * rate)
            bucket[1] = now
            if bucket[0] < 1:
                return False
            bucket[0] -= 1
            return True

    def _sweep(self, now: float, rate: float) -> None:
        self.swept = now
        full = [k for k, (n, at, most) in self.buckets.items() if n + (now - at) * rate >= most]
        for key in full:
            del self.buckets[key]


FRAMES = Budgets("WS_FRAME_RATE", "WS_FRAME_BURST")
"""Every frame of a player's sockets, whatever it is (a ping, a bad frame, an
action), takes one: no kind of frame is free work."""
SNAPSHOTS = Budgets("WS_SNAPSHOT_RATE", "WS_SNAPSHOT_BURST")
"""A snapshot asked for takes one of these too (besides its frame): it may cost
a database read, a hundred times a ping's work."""

HANDSHAKE_TIMEOUT_S = 20
"""What daphne gives a websocket to complete its handshake (its
``--websocket_connect_timeout``, 5 s by default, in ``docker-compose.yml``,
``deploy/k8s/base/web.yaml`` and ``deploy/stack.py``): a connect waiting its
turn in a storm is answered late rather than dropped and retried, which would
only feed the storm (issue 38)."""


# --- open sockets per player and per address, counted across processes ---------------------

SLOT_TTL_S = 60
"""A socket's place in a count expires this long after it was last renewed (every
third of it while it is open), so a killed process's sockets stop counting."""


class _LocalSlots:
    """The counts in this process (the embedded default, without Redis)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.keys: dict[str, dict[str, float]] = {}

    def take(self, channel: str, caps: list[tuple[str, int]]) -> str | None:
        now = time.time()
        with self.lock:
            for key, cap in caps:
                held = self.keys.setdefault(key, {})
                for other in [c for c, until in held.items() if until < now]:
                    del held[other]
                if len(held) >= cap:
                    return key
            for key, _ in caps:
                self.keys[key][channel] = now + SLOT_TTL_S
        return None

    def renew(self, channel: str, keys: list[str]) -> None:
        with self.lock:
            for key in keys:
                self.keys.setdefault(key, {})[channel] = time.time() + SLOT_TTL_S

    def release(self, channel: str, keys: list[str]) -> None:
        with self.lock:
            for key in keys:
                held = self.keys.get(key, {})
                held.pop(channel, None)
                if not held:
                    self.keys.pop(key, None)


class _RedisSlots:
    """The counts in Redis, shared by every daphne: per key a sorted set of
    channel names scored by when their place expires."""

    def client(self) -> Any:
        return get_redis_connection("default")  # the cache's, on REDIS_URL

    def take(self, channel: str, caps: list[tuple[str, int]]) -> str | None:
        now = time.time()
        pipe = self.client().pipeline(transaction=True)
        for key, _ in caps:
            pipe.zremrangebyscore(key, "-inf", now)
            pipe.zadd(key, {channel: now + SLOT_TTL_S})
            pipe.zcard(key)
            pipe.expire(key, SLOT_TTL_S)
        counts = pipe.execute()[2::4]
        over = next((key for (key, cap), n in zip(caps, counts, strict=True) if n > cap), None)
        if over is not None:  # counted in, then out again: two at once may both be refused
            self.release(channel, [key for key, _ in caps])
        return over

    def renew(self, channel: str, keys: list[str]) -> None:
        pipe = self.client().pipeline(transaction=False)
        for key in keys:
            pipe.zadd(key, {channel: time.time() + SLOT_TTL_S})
            pipe.expire(key, SLOT_TTL_S)
        pipe.execute()

    def release(self, channel: str, keys: list[str]) -> None:
        pipe = self.client().pipeline(transaction=False)
        for key in keys:
            pipe.zrem(key, channel)
        pipe.execute()


@functools.cache
def _slots() -> _LocalSlots | _RedisSlots:
    return _RedisSlots() if settings.REDIS_URL else _LocalSlots()


def _slots_call(method: str, *args: Any) -> Any:
    """Run a count in a worker thread; while Redis is unreachable the socket is let
    in uncounted (as the rate limits do): the caps guard against abuse and must
    not stop honest play."""
    try:
        return getattr(_slots(), method)(*args)
    except Exception as exc:
        if not unavailable(exc):
            raise
        log.warning("websocket caps: %s not counted, the cache is unreachable", method)
        return None


def scope_address(scope: dict[str, Any]) -> str:
    """The client's address of a websocket, exactly as the HTTP throttles read it
    (``kit.api.client_address``: X-Forwarded-For only from ``NUM_PROXIES``)."""
    request = HttpRequest()
    request.META["REMOTE_ADDR"] = (scope.get("client") or ("", 0))[0] or ""
    for name, value in scope.get("headers", []):
        if name == b"x-forwarded-for":
            request.META["HTTP_X_FORWARDED_FOR"] = value.decode("latin-1")
    return client_address(request)


class JsonSocket(AsyncWebsocketConsumer):
    """Shared frame handling: JSON objects in, JSON out, errors as messages."""

    counted = ""
    """The kind this socket is counted as open under (``metrics.SOCKET_KINDS``)."""
    slots: list[str] = []
    """The keys of the caps this socket holds a place in (``take_slots``)."""
    closing = False
    budget_key = ""
    """Whose budgets this socket's frames take from (``player_key``)."""
    stirred = 0.0
    """When (``time.monotonic``) this socket last relayed a broadcast or answered a
    frame that may change something (anything but a ping or a snapshot request):
    a snapshot kept from before then may be out of date for it (``games.consumers``)."""
    renewing: asyncio.Future[None] | None = None

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        """The consumer's whole life. What it holds is given back here, however it
        ends: a ``websocket.disconnect``, a close of ours, an exception, or daphne
        cancelling it (a client gone while a frame was handled, past
        ``application_close_timeout``) — before, a socket counted open in the
        gauge whose disconnect never ran stayed counted forever (issue 25)."""
        try:
            await super().__call__(scope, receive, send)
        finally:
            if self.counted:
                metrics.socket_closed(self.counted)
                self.counted = ""
            if self.renewing is not None:
                self.renewing.cancel()
            if self.slots:
                slots, self.slots = self.slots, []
                with contextlib.suppress(Exception):  # they expire anyway (SLOT_TTL_S)
                    await _on_connect_pool(_slots_call)("release", self.channel_name, slots)

    def player_key(self) -> str:
        """The key of this socket's player in the budgets: the account when signed
        in, else the client's address."""
        if not self.budget_key:
            user = self.scope.get("user")
            if user is not None and user.is_authenticated:
                self.budget_key = f"player:{user.pk}"
            else:
                self.budget_key = f"address:{scope_address(self.scope)}"
        return self.budget_key

    async def take_snapshot(self) -> bool:
        """A token of the player's snapshot budget (``SNAPSHOTS``); without one the
        request is refused (``error`` ``too_many_snapshots``, the socket kept)."""
        if SNAPSHOTS.take(self.player_key()):
            return True
        self.log_context()
        socket_log.info("websocket over its snapshot budget")
        await self.send_error(
            ApiError(429, "too_many_snapshots", "Too many snapshots asked for: wait a moment.")
        )
        return False

    async def take_slots(self) -> bool:
        """Count this socket against the caps of its player and of its address,
        across every daphne; over one, refuse it (error, then close 4429)."""
        user = self.scope.get("user")
        caps = [(f"sockets:address:{scope_address(self.scope)}", settings.WS_MAX_PER_ADDRESS)]
        if user is not None and user.is_authenticated:
            caps.append((f"sockets:player:{user.pk}", settings.WS_MAX_PER_PLAYER))
        caps = [(key, cap) for key, cap in caps if cap > 0]  # 0: no cap
        if not caps:
            return True
        over = await _on_connect_pool(_slots_call)("take", self.channel_name, caps)
        if over is not None:
            whose = "your account" if over.startswith("sockets:player:") else "your address"
            await self.refuse(
                CLOSE_TOO_MANY,
                ApiError(429, "too_many_sockets", f"Too many sockets open from {whose}."),
            )
            return False
        self.slots = [key for key, _ in caps]
        self.renewing = asyncio.ensure_future(self._renew_slots())
        return True

    async def _renew_slots(self) -> None:
        while True:
            await asyncio.sleep(SLOT_TTL_S / 3)
            with contextlib.suppress(Exception):
                await _on_connect_pool(_slots_call)("renew", self.channel_name, self.slots)

    async def accept_counted(self, kind: str) -> None:
        """Accept, counted open (before the handshake's answer: a client that
        has its socket finds it counted; ``__call__`` counts it closed)."""
        self.counted = kind
        metrics.socket_opened(kind)
        await self.accept()

    async def dispatch(self, message: dict[str, Any]) -> None:
        """Channels' dispatch without the crossing it makes before every message
        (a frame in, a broadcast relayed) to close the stale database connections
        of its one shared thread: this consumer's database work runs in
        ``database_sync_to_async``, which closes them around itself in the
        thread that holds them, so that crossing only cost CPU (issue 14)."""
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)

    def log_context(self) -> None:
        """Each frame is a unit of work of its own (``kit/logs.py``): its log
        lines carry this socket (``conn``: its channel name), the user and game."""
        attempt_id = getattr(self, "attempt_id", None)
        logs.start(conn=self.channel_name, user_id=logs.user_id(self.scope.get("user")))
        logs.bind(attempt_id=attempt_id)

    async def websocket_connect(self, message: dict[str, Any]) -> None:
        self.log_context()
        socket_log.info("websocket open", path=self.scope["path"])
        await super().websocket_connect(message)

    async def websocket_disconnect(self, message: dict[str, Any]) -> None:
        self.log_context()
        socket_log.info("websocket closed", code=message.get("code"))
        await super().websocket_disconnect(message)

    async def websocket_receive(self, message: dict[str, Any]) -> None:
        """Every frame first takes its place in the player's budget (``FRAMES``);
        over it, the socket is told why and closed (4429), and what it still sends
        is dropped."""
        if self.closing:
            return
        if not FRAMES.take(self.player_key()):
            self.log_context()
            socket_log.info("websocket over its frame budget")
            await self.close_with(
                CLOSE_TOO_MANY,
                ApiError(429, "too_many_frames", "Too many frames: this socket is closed."),
            )
            return
        await super().websocket_receive(message)

    async def close_with(self, code: int, why: ApiError | Refusal) -> None:
        """Say why, then close (an open socket)."""
        self.closing = True
        with contextlib.suppress(Disconnected):
            await self.send(text_data=error_frame(error_body(why.code, why.message)))
        await self.close(code=code)

    async def session_ended(self, event: dict[str, Any]) -> None:
        """The player signed out (``accounts.sockets.sockets_close``): the socket's
        session is over, on every daphne. ``keep`` names a session that goes on
        (a password changed there ends only the others)."""
        session = self.scope.get("session")
        if event.get("keep") and event["keep"] == getattr(session, "session_key", None):
            return
        await self.close_with(CLOSE_UNAUTHENTICATED, ApiError(401, "signed_out", "You signed out."))

    async def refuse(self, code: int, why: ApiError | Refusal | None = None) -> None:
        # Accept first: a close before the handshake completes loses the code.
        await self.accept()
        if why is not None:  # say why (a spoiler: when it opens) before closing
            await self.send(text_data=error_frame(error_body(why.code, why.message)))
        await self.close(code=code)

    async def send_json(self, message: dict[str, Any]) -> None:
        await self.send(text_data=encode(message))

    async def send_error(self, exc: Exception, **extra: Any) -> None:
        described = describe_error(exc)
        if described is None:
            log.exception("websocket handler failed", exc_info=exc)
            body = error_body("server_error", "Something broke on our side.")
        else:
            body = described[1]
        await self.send(text_data=error_frame(body, **extra))

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        """Parse one frame; a bad frame gets an error message and changes nothing."""
        self.log_context()
        if text_data is None:
            await self.send_error(ApiError(400, "bad_frame", "Send JSON text frames."))
            return
        # The limit is in bytes (UTF-8), as for an HTTP body; 4 bytes a character at most.
        if len(text_data) * 4 > MAX_FRAME and len(text_data.encode()) > MAX_FRAME:
            await self.send_error(ApiError(413, "too_large", "A frame is at most 64 KiB."))
            return
        try:
            message = json.loads(text_data)
        except (ValueError, RecursionError):
            await self.send_error(ApiError(400, "bad_json", "The frame is not valid JSON."))
            return
        if not isinstance(message, dict):
            await self.send_error(ApiError(400, "bad_json", "A frame is a JSON object."))
            return
        kind = message.get("type")
        if kind == "ping":
            await self.send(text_data=PONG)
            return
        try:
            await self.handle(kind, message)
        except Exception as exc:
            seq = message.get("seq")
            await self.send_error(exc, **({"seq": seq} if type(seq) is int else {}))
        finally:
            if kind != "snapshot":  # answered: whatever it changed is committed
                self.stirred = time.monotonic()

    async def handle(self, kind: Any, message: dict[str, Any]) -> None:
        raise ApiError(400, "bad_type", f"Unknown message type {kind!r}.")

    def relayed(self, event: dict[str, Any]) -> str:
        """A broadcast's text as this socket passes it on: ``text``, the same for
        every socket (a game's spectators take ``watch`` when there is one:
        ``games.consumers``)."""
        text: str = event["text"]
        return text

    async def relay(self, event: dict[str, Any]) -> None:
        """A group broadcast (``kit.broadcast.publish``): pass the text on, unless
        the client has gone in the meantime (its events are best effort). One
        that reports this socket's own message (answered already) never comes
        here: the channel layer drops it (``kit.layers``)."""
        self.stirred = time.monotonic()
        text = self.relayed(event)
        with contextlib.suppress(Disconnected):
            await self.send(text_data=text)


class NotFoundConsumer(JsonSocket):
    """Any other websocket path."""

    async def connect(self) -> None:
        await self.refuse(CLOSE_NOT_FOUND)
