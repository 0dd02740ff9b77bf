"""Issue 38, deliverable 2: the websocket budgets are a player's, not a socket's
(games/websocket.md, "Bounds"): every frame of all of a player's sockets in a
process takes from one bucket, a socket opened again finds it as it was left,
and snapshot requests have a smaller bucket of their own — a flood of them is
refused while another player's actions are answered."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from asgiref.sync import sync_to_async

from kit import sockets
from tests.support.search import find_win
from tests.support.sockets import Socket, new_player, socket_for, start

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]

CODE = "SH1-C4-AAAAAAE"
BOARD = "/ws/leaderboard/2026-12-01/SH1-C4/"


@pytest.fixture(autouse=True)
def _fresh_budgets():
    sockets.FRAMES.forget()
    sockets.SNAPSHOTS.forget()
    yield
    sockets.FRAMES.forget()
    sockets.SNAPSHOTS.forget()


async def opened(sock: Socket) -> dict[str, Any]:
    connected, _ = await sock.connect()
    assert connected
    return await sock.recv()


async def closed_with(sock: Socket, code: int, error: str) -> None:
    message = await sock.recv()
    assert message["type"] == "error" and message["error"]["code"] == error, message
    assert await sock.receive_output(timeout=3) == {"type": "websocket.close", "code": code}


async def pings(sock: Socket, n: int) -> None:
    for _ in range(n):
        await sock.send({"type": "ping"})
        assert await sock.recv() == {"type": "pong"}


async def test_a_players_sockets_share_one_frame_budget(make_player, settings):
    """Three sockets of one player: six frames in all, not six each."""
    settings.WS_FRAME_BURST, settings.WS_FRAME_RATE = 6, 0.01
    alice = await new_player(make_player)
    game = await start(alice, code=CODE)
    path = f"/ws/games/{game['id']}/"
    first, second, third = (socket_for(path, alice) for _ in range(3))
    for sock in (first, second, third):
        assert (await opened(sock))["type"] == "snapshot"
    for sock in (first, second, third):
        await pings(sock, 2)
    await third.send({"type": "ping"})  # the player's seventh frame
    await closed_with(third, 4429, "too_many_frames")
    await first.send({"type": "ping"})
    await closed_with(first, 4429, "too_many_frames")
    # Another player's budget is their own.
    bob = await new_player(make_player)
    theirs = socket_for(f"/ws/games/{(await start(bob, code=CODE))['id']}/", bob)
    await opened(theirs)
    await pings(theirs, 6)
    await asyncio.gather(*(s.disconnect() for s in (first, second, third, theirs)))


async def test_signed_out_sockets_share_their_addresss_budget(settings):
    settings.WS_FRAME_BURST, settings.WS_FRAME_RATE = 4, 0.01
    boards = [socket_for(BOARD) for _ in range(2)]
    for board in boards:
        assert (await opened(board))["type"] == "subscribed"
    await pings(boards[0], 2)
    await pings(boards[1], 2)
    await boards[0].send({"type": "ping"})
    await closed_with(boards[0], 4429, "too_many_frames")
    await boards[1].disconnect()


async def test_opening_a_socket_again_does_not_refill_the_budget(make_player, settings):
    settings.WS_FRAME_BURST, settings.WS_FRAME_RATE = 4, 0.01
    alice = await new_player(make_player)
    path = f"/ws/games/{(await start(alice, code=CODE))['id']}/"
    before = socket_for(path, alice)
    await opened(before)
    await pings(before, 4)
    await before.disconnect()
    again = socket_for(path, alice)
    assert (await opened(again))["type"] == "snapshot"  # opening is not a frame
    await again.send({"type": "ping"})
    await closed_with(again, 4429, "too_many_frames")


async def test_a_snapshot_flood_is_refused_while_another_players_actions_are_acked(
    make_player, settings
):
    """Mallory asks for snapshots from four sockets, 60 in all; past her snapshot
    budget each is refused (``too_many_snapshots``, the socket kept open) while
    Alice plays her game to the end, every action acknowledged."""
    settings.WS_SNAPSHOT_BURST, settings.WS_SNAPSHOT_RATE = 5, 0.01
    mallory, alice = await new_player(make_player), await new_player(make_player)
    path = f"/ws/games/{(await start(mallory, code=CODE))['id']}/"
    flood = [socket_for(path, mallory) for _ in range(4)]
    for sock in flood:
        await opened(sock)
    attempt = await start(alice, code=CODE)
    honest = socket_for(f"/ws/games/{attempt['id']}/", alice)
    await opened(honest)
    line = [move.to_json() for move in await sync_to_async(find_win)(CODE)][:20]
    answers: dict[str, int] = {}

    async def ask(sock: Socket) -> None:
        for _ in range(15):
            await sock.send({"type": "snapshot"})
            message = await sock.recv()
            kind = message["type"] if message["type"] != "error" else message["error"]["code"]
            answers[kind] = answers.get(kind, 0) + 1

    async def play() -> list[dict[str, Any]]:
        acks = []
        for seq, move in enumerate(line):
            await honest.send({"seq": seq, "action": move})
            acks.append(await honest.recv())
        return acks

    *_, acks = await asyncio.gather(*(ask(sock) for sock in flood), play())
    assert answers == {"snapshot": 5, "too_many_snapshots": 55}
    assert [(m["type"], m["v"]) for m in acks] == [("ack", n + 1) for n in range(len(line))]
    await pings(flood[0], 1)  # refused snapshots leave the socket open
    await asyncio.gather(*(s.disconnect() for s in [*flood, honest]))
