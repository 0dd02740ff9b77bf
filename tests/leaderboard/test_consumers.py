"""``/ws/leaderboard/{date}/{variant}/`` against games/websocket.md: a subscriber of a
day's board hears each ranked attempt on that deal finish, and nothing else."""

from __future__ import annotations

import asyncio
import datetime as dt
import functools
from typing import Any

import pytest
import pytest_asyncio
from asgiref.sync import sync_to_async

from games.dailies import daily_deal_prepare, utc_today
from games.engine import Game, Move, Stock, new_game
from tests.support.search import find_win
from tests.support.sockets import Socket, http_resign, new_player, socket_for, start

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]

PRACTICE_WIN = "SH1-C4-AAAAAJ2"  # won by the search
ROW_KEYS = {
    "rank",
    "player",
    "won",
    "score",
    "ms",
    "moves",
    "status",
    "verified",
    "pending",
    "replay",
}


@functools.cache
def line_of(code: str) -> tuple[Move | Stock, ...]:
    line = find_win(code)
    assert line is not None
    return tuple(line)


@pytest_asyncio.fixture
async def sockets():
    opened: list[Socket] = []

    def open_socket(path: str, client: Any = None) -> Socket:
        sock = socket_for(path, client)
        opened.append(sock)
        return sock

    yield open_socket
    await asyncio.gather(*(sock.disconnect() for sock in opened), return_exceptions=True)


def http_play(client: Any, attempt_id: int, actions: Any) -> dict[str, Any]:
    """Post ``actions`` (engine actions or their JSON) with seq 0, 1, 2, …"""
    body: dict[str, Any] = {}
    for seq, action in enumerate(actions):
        sent = action if isinstance(action, dict) else action.to_json()
        response = client.send(f"/api/games/{attempt_id}/actions/", {"seq": seq, "action": sent})
        assert response.status_code == 200, response.content
        body = response.json()
    return body


async def http_board(client: Any, day: dt.date, variant: str) -> dict[str, Any]:
    response = await sync_to_async(client.get)(f"/api/leaderboard/{day.isoformat()}/{variant}/")
    assert response.status_code == 200, response.content
    return response.json()


@sync_to_async
def prepare_today(variant: str) -> tuple[list[dict[str, Any]], Game]:
    """Today's daily deal of ``variant`` as the daily-deals job prepares it: a secret
    long code, proven winnable, so a ranked attempt can be won by its ``proof``.
    Returns the proof and the game it wins (the engine's: its score and moves)."""
    daily = daily_deal_prepare(date=utc_today(), variant=variant)
    assert daily.proof, daily
    game = new_game(daily.deal.code)
    for action in daily.proof:
        game.apply_json(action)
    assert game.won
    return daily.proof, game


async def subscribe(sockets: Any, day: dt.date, variant: str, client: Any = None) -> Socket:
    sock = sockets(f"/ws/leaderboard/{day.isoformat()}/{variant}/", client)
    connected, _ = await sock.connect()
    assert connected
    first = await sock.recv()
    assert first == {"type": "subscribed", "date": day.isoformat(), "variant": variant}
    return sock


async def game_socket(sockets: Any, attempt_id: int, client: Any) -> Socket:
    sock = sockets(f"/ws/games/{attempt_id}/", client)
    connected, _ = await sock.connect()
    assert connected
    assert (await sock.recv())["type"] == "snapshot"
    return sock


async def rows_message(sock: Socket, day: dt.date, variant: str, count: int) -> dict[str, Any]:
    message = await sock.recv()
    assert message["type"] == "rows", message
    assert (message["date"], message["variant"], message["count"]) == (
        day.isoformat(),
        variant,
        count,
    )
    assert len(message["rows"]) == 1
    row = message["rows"][0]
    assert set(row) == ROW_KEYS
    assert row["replay"] is None
    return row


async def finished_rows(sock: Socket, day: dt.date, variant: str, count: int) -> dict[str, Any]:
    """A finished attempt's row comes twice: at once, its replay check pending;
    then again once the check (run in-process in the tests) has verified it."""
    pending = await rows_message(sock, day, variant, count)
    assert pending["pending"] is True and pending["verified"] is False
    checked = await rows_message(sock, day, variant, count)
    assert checked["pending"] is False and checked["verified"] is True
    assert {**pending, "pending": False, "verified": True} == checked
    return checked


def http_row(board: dict[str, Any], player: str) -> dict[str, Any]:
    found = [r for r in board["results"] if r["player"] == player]
    assert len(found) == 1, board
    return {**found[0], "replay": None}


# --- tests ----------------------------------------------------------------------------------


async def test_subscribing_ping_and_bad_frames(make_player, sockets):
    today = utc_today()
    anonymous = await subscribe(sockets, today, "SH1-C4")
    signed_in = await subscribe(sockets, today, "EH1-N", await new_player(make_player))
    past = await subscribe(sockets, today - dt.timedelta(days=3), "SH1-C1")
    sock = sockets(f"/ws/leaderboard/{today.isoformat()}/sh1-c2/")
    assert (await sock.connect())[0]
    assert await sock.recv() == {
        "type": "subscribed",
        "date": today.isoformat(),
        "variant": "SH1-C2",
    }

    for sub in (anonymous, signed_in, past):
        await sub.send({"type": "ping"})
        assert await sub.recv() == {"type": "pong"}
    for frame, code in (
        ({"text_data": '{"type": "ping"'}, "bad_json"),
        ({"text_data": "[1]"}, "bad_json"),
        ({"bytes_data": b'{"type": "ping"}'}, "bad_frame"),
        ({"text_data": '{"type": "snapshot"}'}, "bad_type"),
        ({"text_data": '{"seq": 0, "action": {"type": "undo"}}'}, "bad_type"),
        ({"text_data": '{"type": "ping", "pad": "' + "x" * 70_000 + '"}'}, "too_large"),
    ):
        await anonymous.send_to(**frame)
        message = await anonymous.recv()
        assert message["type"] == "error" and message["error"]["code"] == code, message
        assert message["error"]["message"]
    await anonymous.send({"type": "ping"})
    assert await anonymous.recv() == {"type": "pong"}


async def test_finished_ranked_attempts_reach_that_boards_subscribers_only(make_player, sockets):
    proof, won = await prepare_today("SH1-C4")
    today = utc_today()
    alice, bob, carol, dan = [await new_player(make_player) for _ in range(4)]
    board = await subscribe(sockets, today, "SH1-C4")
    board_signed_in = await subscribe(sockets, today, "SH1-C4", dan)
    others = [
        await subscribe(sockets, today, "SH1-C2"),
        await subscribe(sockets, today, "SH1-C1"),
        await subscribe(sockets, today, "EH1-N"),
        await subscribe(sockets, today - dt.timedelta(days=1), "SH1-C4"),
    ]

    # Alice plays a few moves (nothing for the board), then resigns over HTTP.
    alice_daily = await start(alice, daily="SH1-C4")
    assert alice_daily["code"] is None  # a running daily names no code
    assert alice_daily["variant"] == "SH1-C4" and alice_daily["ranked"] is True
    await sync_to_async(http_play)(alice, alice_daily["id"], proof[:3])
    assert await board.receive_nothing(timeout=0.3)
    resigned = await http_resign(alice, alice_daily["id"])
    for sub in (board, board_signed_in):
        row = await finished_rows(sub, today, "SH1-C4", count=1)
        assert row["rank"] == 1 and row["player"] == alice.username
        assert row["won"] is False and row["status"] == "resigned"
        assert row["moves"] == resigned["moves"] == 3
        assert row["score"] == resigned["score"] and row["ms"] == resigned["elapsed_ms"]
        alice_board = await http_board(alice, today, "SH1-C4")
        assert row == http_row(alice_board, alice.username)
        # Resigning opens no replay while the day runs (PRODUCT.md, anti-cheat).
        assert alice_board["replays_open"] is False and alice_board["me"]["replay"] is None

    # Bob resigns over his game socket.
    bob_daily = await start(bob, daily="SH1-C4")
    bob_socket = await game_socket(sockets, bob_daily["id"], bob)
    await bob_socket.send({"type": "resign"})
    assert (await bob_socket.recv())["type"] == "ack"
    row = await finished_rows(board, today, "SH1-C4", count=2)
    assert row["player"] == bob.username and row["status"] == "resigned"
    assert row["won"] is False and row["rank"] in (1, 2)
    assert row == http_row(await http_board(bob, today, "SH1-C4"), bob.username)
    await finished_rows(board_signed_in, today, "SH1-C4", count=2)

    # Carol wins over her game socket: first place.
    carol_daily = await start(carol, daily="SH1-C4")
    carol_socket = await game_socket(sockets, carol_daily["id"], carol)
    for seq, action in enumerate(proof):
        await carol_socket.send({"seq": seq, "action": action})
        reply = await carol_socket.recv()
        assert reply["type"] == "ack", reply
    row = await finished_rows(board, today, "SH1-C4", count=3)
    assert row["rank"] == 1 and row["player"] == carol.username
    assert row["won"] is True and row["status"] == "won" and row["score"] == won.score
    assert row["moves"] == won.moves
    carol_board = await http_board(carol, today, "SH1-C4")
    assert row == http_row(carol_board, carol.username)
    # Over HTTP the winner has replay links; the socket's rows never carry one.
    assert carol_board["replays_open"] is True
    assert all(r["replay"] for r in carol_board["results"])
    await finished_rows(board_signed_in, today, "SH1-C4", count=3)

    for sub in (board, board_signed_in, *others):
        assert await sub.receive_nothing(timeout=0.2)


async def test_practice_games_and_moves_send_nothing(make_player, sockets):
    today = utc_today()
    alice = await new_player(make_player)
    boards = [await subscribe(sockets, today, v) for v in ("SH1-C4", "SH1-C2", "EH1-N")]

    # A practice game won over HTTP, another resigned over the socket, a third abandoned
    # mid-way; moves on the ranked daily that do not finish it.
    won = await start(alice, code=PRACTICE_WIN)
    body = await sync_to_async(http_play)(alice, won["id"], line_of(PRACTICE_WIN))
    assert body["status"] == "won" and body["ranked"] is False
    resigned = await start(alice, random="SH1-C4")
    sock = await game_socket(sockets, resigned["id"], alice)
    await sock.send({"type": "resign"})
    assert (await sock.recv())["type"] == "ack"
    await http_resign(alice, (await start(alice, random="EH1-N"))["id"])
    daily = await start(alice, daily="SH1-C4")
    target = daily["view"]["targets"][0]
    move = {"type": "move", "from": target["from"], "to": target["to"][0], "count": 1}
    response = await sync_to_async(alice.send)(
        f"/api/games/{daily['id']}/actions/", {"seq": 0, "action": move}
    )
    assert response.status_code == 200, response.content

    for sub in boards:
        assert await sub.receive_nothing(timeout=0.3)
