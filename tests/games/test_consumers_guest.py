"""Guests on the game socket (issue 24): a guest plays its own game over
``/ws/games/{id}/`` like any player, and is held to the spoiler rule like any
player — a guest that resigned today's daily cannot watch another's game of it."""

from __future__ import annotations

from typing import Any

import pytest
from asgiref.sync import sync_to_async

from games.dailies import daily_deal_prepare, utc_today
from tests.support.api import Client
from tests.support.sockets import http_resign, new_player, socket_for, start

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]


async def new_guest() -> Any:
    def make() -> Client:
        client = Client()
        assert client.send("/api/auth/guest/", None).status_code == 201
        return client

    return await sync_to_async(make)()


async def test_a_guest_plays_over_its_socket_and_a_scout_guest_may_not_watch(make_player):
    await sync_to_async(daily_deal_prepare)(date=utc_today(), variant="SH1-C2")
    alice = await new_player(make_player)
    ranked = await start(alice, daily="SH1-C2")
    guest, scout = await new_guest(), await new_guest()
    opened = []
    try:
        own = await start(guest, daily="SH1-C2")
        assert own["guest"] is True and own["ranked"] is True
        sock = socket_for(f"/ws/games/{own['id']}/", guest)
        opened.append(sock)
        assert (await sock.connect())[0]
        snapshot = await sock.recv()
        assert snapshot["type"] == "snapshot" and snapshot["game"]["view"]["targets"]
        target = snapshot["game"]["view"]["targets"][0]
        move = {"type": "move", "from": target["from"], "to": target["to"][0], "count": 1}
        await sock.send({"seq": 0, "action": move})
        ack = await sock.recv()
        assert ack["type"] == "ack" and ack["v"] == 1, ack

        scouted = await start(scout, daily="SH1-C2")
        await http_resign(scout, scouted["id"])
        spy = socket_for(f"/ws/games/{ranked['id']}/", scout)
        opened.append(spy)
        assert await spy.connect() == (True, None)
        error = await spy.recv()
        assert error["type"] == "error" and error["error"]["code"] == "spoiler", error
        closed = await spy.receive_output(timeout=3)
        assert closed == {"type": "websocket.close", "code": 4403}
    finally:
        for one in opened:
            await one.disconnect()
