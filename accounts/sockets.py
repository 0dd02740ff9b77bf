"""A player's websockets as one group, so that signing out closes them all, on
every daphne (``games/consumers.py`` joins each game socket to it)."""

from __future__ import annotations

import logging

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

log = logging.getLogger(__name__)


def user_group(user_id: int) -> str:
    return f"user.{user_id}"


def sockets_close(*, user_id: int, keep: str | None = None) -> None:
    """Close every game socket (playing or watching) of ``user_id`` but those of
    the session ``keep`` (a session key); never raise: a sign-out succeeds even
    while Redis is away."""
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        event = {"type": "session.ended", "keep": keep}
        async_to_sync(layer.group_send)(user_group(user_id), event)
    except Exception:
        log.warning("closing the sockets of a signed-out player failed", exc_info=True)
