import pytest

from tests.support.sockets import socket_for

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]


async def test_player_plays_and_spectator_sees_it(make_player):
    from asgiref.sync import sync_to_async

    alice = await sync_to_async(make_player)()
    bob = await sync_to_async(make_player)()
    started = (await sync_to_async(alice.send)("/api/games/", {"code": "SH1-C4-AAAAAJ2"})).json()
    player = socket_for(f"/ws/games/{started['id']}/", alice)
    watcher = socket_for(f"/ws/games/{started['id']}/", bob)
    assert (await player.connect())[0] and (await watcher.connect())[0]
    assert (await player.recv())["type"] == "snapshot"
    assert (await watcher.recv())["v"] == 0
    await player.send({"seq": 0, "action": {"type": "move", "from": "t1", "to": "c3"}})
    reply = await player.recv()
    assert reply["type"] == "ack" and reply["v"] == 1  # the sender: its ack, not the state too
    seen = await watcher.recv()
    assert seen["type"] == "state" and seen["v"] == 1
    await watcher.send({"seq": 1, "action": {"type": "undo"}})
    refused = await watcher.recv()
    assert refused["type"] == "error" and refused["error"]["code"] == "spectator"
    await player.disconnect()
    await watcher.disconnect()
