"""The channel layers (kit/layers.py): a group event's copy for its ``skip`` is
dropped before it reaches that channel, on the real Redis pub/sub (two layers
standing for two daphnes) and in memory; every other member gets the event."""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio
from django.conf import settings

from kit.layers import InMemoryLayer, PubSubLayer
from tests.support.api import requires_redis

WAIT = 3.0


def pubsub_layer(tag: str) -> PubSubLayer:
    """A layer of its own, as a daphne has; the prefix keeps this process's
    groups apart from other test runs on the same Redis (pub/sub ignores the
    database number)."""
    return PubSubLayer(hosts=[settings.REDIS_URL], prefix=f"layers{os.getpid()}{tag}")


@pytest_asyncio.fixture
async def two_daphnes() -> AsyncIterator[tuple[PubSubLayer, PubSubLayer]]:
    here, there = pubsub_layer("x"), pubsub_layer("x")
    yield here, there
    await here.flush()
    await there.flush()


async def joined(layer: Any, group: str) -> str:
    channel: str = await layer.new_channel()
    await layer.group_add(group, channel)
    return channel


async def next_event(layer: Any, channel: str) -> dict[str, Any]:
    event: dict[str, Any] = await asyncio.wait_for(layer.receive(channel), WAIT)
    return event


def relay(n: int, skip: str | None = None) -> dict[str, Any]:
    event: dict[str, Any] = {"type": "relay", "text": f'{{"v":{n}}}'}
    if skip is not None:
        event["skip"] = skip
    return event


async def send_all(layer: Any, group: str, events: list[dict[str, Any]]) -> None:
    for event in events:
        await layer.group_send(group, event)


async def subscribed(group: str, *members: tuple[Any, str]) -> None:
    """Wait until every member's daphne hears the group (Redis confirms a
    subscription on its own connection, not to the publisher's)."""
    await members[0][0].group_send(group, {"type": "ready"})
    for layer, channel in members:
        assert await next_event(layer, channel) == {"type": "ready"}


@pytest.mark.asyncio
async def test_the_memory_layer_gives_the_skipped_channel_no_copy() -> None:
    layer = InMemoryLayer()
    origin, watcher = await joined(layer, "game.1"), await joined(layer, "game.1")
    await send_all(layer, "game.1", [relay(1, skip=origin), relay(2)])
    assert (await next_event(layer, origin))["text"] == '{"v":2}'  # 1 was never queued
    assert (await next_event(layer, watcher))["text"] == '{"v":1}'
    assert (await next_event(layer, watcher))["text"] == '{"v":2}'


@requires_redis
@pytest.mark.asyncio
async def test_redis_gives_the_skipped_channel_no_copy_and_every_other_one(
    two_daphnes: tuple[PubSubLayer, PubSubLayer],
) -> None:
    """The origin socket and a spectator on the same daphne, another spectator on
    the other one: the event skipping the origin reaches both spectators."""
    here, there = two_daphnes
    origin, watcher = await joined(here, "game.7"), await joined(here, "game.7")
    elsewhere = await joined(there, "game.7")
    await subscribed("game.7", (here, origin), (here, watcher), (there, elsewhere))
    await send_all(here, "game.7", [relay(1, skip=origin), relay(2)])
    for layer, channel in ((here, watcher), (there, elsewhere)):
        assert (await next_event(layer, channel))["text"] == '{"v":1}'
        assert (await next_event(layer, channel))["text"] == '{"v":2}'
    # The event skipping the origin came back to its daphne and was dropped there.
    assert (await next_event(here, origin))["text"] == '{"v":2}'
    assert here._get_layer().channels[origin].empty()


@requires_redis
@pytest.mark.asyncio
async def test_redis_skips_only_on_the_daphne_of_the_skipped_channel(
    two_daphnes: tuple[PubSubLayer, PubSubLayer],
) -> None:
    """A player alone on one daphne: the event goes out, nothing is queued for its
    socket; a sign-out's close (no ``skip``) reaches the socket on every daphne."""
    here, there = two_daphnes
    origin = await joined(here, "game.8")
    tab = await joined(there, "game.8")
    await subscribed("game.8", (here, origin), (there, tab))
    await send_all(there, "game.8", [relay(1, skip=tab), relay(2, skip=origin)])
    assert (await next_event(here, origin))["text"] == '{"v":1}'
    assert (await next_event(there, tab))["text"] == '{"v":2}'
    await here.group_send("game.8", {"type": "session.ended"})
    assert await next_event(here, origin) == {"type": "session.ended"}
    assert await next_event(there, tab) == {"type": "session.ended"}
