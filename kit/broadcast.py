"""Broadcasts to websocket groups, sent after commit and on a best-effort basis
(issue 40: the kit's, for every app): ``publish`` a frame to a group's sockets,
``group_event`` an event each socket makes its own frame of, and a consumer's
``outbox``, which sends what its database work committed from the event loop,
after its answer. An event lost here (Redis down, a process killed) costs a
client a refetch, never a wrong state: each app's frames carry a version
(``games/websocket.md``)."""

from __future__ import annotations

import contextlib
import contextvars
import logging
from collections.abc import AsyncIterator
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

from .layers import SKIP
from .metrics import channel_send_failed
from .sockets import encode

log = logging.getLogger(__name__)

OUTBOX: contextvars.ContextVar[list[tuple[str, dict[str, Any]]] | None] = contextvars.ContextVar(
    "outbox", default=None
)
"""Set by a consumer around its database work (``outbox``): the broadcasts that
work commits wait here and go out from the event loop after its answer,
instead of each crossing back to the loop from the worker thread."""


def relay(text: str, watcher: str | None = None, skip: str | None = None) -> dict[str, Any]:
    """A channel-layer event to a group: ``text`` for its sockets (``watcher``
    instead for a game's spectators, when it differs), none to ``skip``, the
    channel name of the socket that has its answer already (the channel layer
    drops its copy: ``kit.layers``). ``kit.sockets.JsonSocket.relay`` passes it on."""
    event: dict[str, Any] = {"type": "relay", "text": text}
    if watcher is not None and watcher != text:
        event["watch"] = watcher
    if skip is not None:
        event[SKIP] = skip
    return event


def publish(
    group: str,
    message: dict[str, Any] | str,
    *,
    watcher: str | None = None,
    skip: str | None = None,
) -> None:
    """Send ``message`` (JSON-ready, or encoded; ``watcher``: a game's spectators'
    copy) to every socket of ``group`` but ``skip`` (a channel name: the socket
    that has its answer already); never raise. Called after commit
    (``kit.commits.after_commit``); in a consumer's ``outbox``, sent by it."""
    text = message if isinstance(message, str) else encode(message)
    group_event(group, relay(text, watcher, skip))


def group_event(group: str, event: dict[str, Any]) -> None:
    """Send the channel-layer ``event`` to ``group`` as ``publish`` does (from a
    consumer's ``outbox`` when in one), never raising: for a group whose sockets
    each make their own frame of it (``races/consumers.py``)."""
    waiting = OUTBOX.get()
    if waiting is not None:
        waiting.append((group, event))
        return
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(group, event)
    except Exception:  # the change is committed; a lost event is healed by a refetch
        log.warning("broadcast to %s failed", group, exc_info=True)
        channel_send_failed(group)


@contextlib.asynccontextmanager
async def outbox() -> AsyncIterator[list[tuple[str, dict[str, Any]]]]:
    """Around a consumer's database work and its answer: the broadcasts the work
    committed are sent on leaving, from the loop (after the answer), never
    raising — each one a commit already made."""
    waiting: list[tuple[str, dict[str, Any]]] = []
    token = OUTBOX.set(waiting)
    try:
        yield waiting
    finally:
        OUTBOX.reset(token)
        layer = get_channel_layer() if waiting else None
        for group, event in waiting if layer is not None else ():
            try:
                await layer.group_send(group, event)
            except Exception:  # as in publish: a lost event is healed by a refetch
                log.warning("broadcast to %s failed", group, exc_info=True)
                channel_send_failed(group)
