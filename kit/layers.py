"""The channel layers the sockets stand on: Channels' own (Redis pub/sub through
channels_redis, in memory on the embedded default) but for ``skip``.

A group event may name in ``skip`` the one socket that is not to get it: the
socket whose message made the change, which has its answer already
(``kit.broadcast.publish``). The layer drops that copy where it hands the
group's events to this process's sockets, before any consumer work. On Redis
the event still comes back to the daphne that sent it (Redis sends it to every
subscriber, the sender too); for a player alone with their game, that copy
went through the socket's queue, was unpacked again and dispatched by
Channels, only for the socket to drop it.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from channels.exceptions import ChannelFull
from channels.layers import InMemoryChannelLayer
from channels_redis.pubsub import (
    RedisPubSubChannelLayer,
    RedisPubSubLoopLayer,
    RedisSingleShardConnection,
)
from channels_redis.utils import _wrap_close

SKIP = "skip"
"""The key of a group event that names the channel not to deliver it to."""


class _Shard(RedisSingleShardConnection):  # type: ignore[misc]
    def _receive_message(self, message: dict[str, Any] | None) -> None:
        """Deliver what the subscription read to this process's channels: a
        group's event to each member but the one it skips. The event is unpacked
        here to read ``skip`` (about 2 µs for a 2 KB one); each channel that gets
        it unpacks its own copy, as in channels_redis."""
        if message is None:
            return
        name = message["channel"]
        if isinstance(name, bytes):
            name = name.decode()
        layer = self.channel_layer
        members = layer.groups.get(name)
        if members is None:  # a channel's own message (or one for a group just left)
            super()._receive_message(message)
            return
        data = message["data"]
        try:
            skip = layer.channel_layer.deserialize(data).get(SKIP)
        except Exception:  # to every member, as channels_redis does: each receive raises
            skip = None
        for channel in members:
            if channel != skip and (queue := layer.channels.get(channel)) is not None:
                queue.put_nowait(data)


class _LoopLayer(RedisPubSubLoopLayer):  # type: ignore[misc]
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._shards = [_Shard(shard.host, self) for shard in self._shards]


class PubSubLayer(RedisPubSubChannelLayer):  # type: ignore[misc]
    """channels_redis's pub/sub layer that drops a group event's copy for its
    ``skip`` before any consumer work (the module's docstring)."""

    def _get_layer(self) -> _LoopLayer:
        """channels_redis's, making this module's layer for each event loop."""
        loop = asyncio.get_running_loop()
        try:
            layer: _LoopLayer = self._layers[loop]
        except KeyError:
            layer = _LoopLayer(*self._args, **self._kwargs, channel_layer=self)
            self._layers[loop] = layer
            _wrap_close(self, loop)
        return layer


class InMemoryLayer(InMemoryChannelLayer):  # type: ignore[misc]
    """Channels' in-memory layer (the embedded default) that drops a group
    event's copy for its ``skip``, as ``PubSubLayer`` does."""

    async def group_send(self, group: str, message: dict[str, Any]) -> None:
        assert isinstance(message, dict), "Message is not a dict"
        self.require_valid_group_name(group)
        self._clean_expired()
        skip = message.get(SKIP)
        for channel in list(self.groups.get(group, ())):
            if channel != skip:
                with contextlib.suppress(ChannelFull):  # as Channels': a full one misses it
                    await self.send(channel, message)
