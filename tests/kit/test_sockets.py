"""Issue 25, bounded edges of the websockets (games/websocket.md): a frame budget
for every frame kind, caps on sockets per player and per address, signing out
closing the player's sockets, the Origin compared with scheme and port, the
leaderboard socket reading dates as the REST leaderboard does, spectators
without the player's targets, and the open-sockets gauge back at its start
however sockets end. On the real ASGI app, PostgreSQL and (when it answers) Redis."""

from __future__ import annotations

import asyncio
import time
from types import SimpleNamespace
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from prometheus_client import REGISTRY

from accounts.models import User
from config.asgi import application
from kit import sockets
from kit.metrics import SOCKET_KINDS
from tests.support.sockets import Socket, new_player, socket_for, start

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]

CODE = "SH1-C4-AAAAAAE"
FIRST = {"type": "move", "from": "t4", "to": "f3", "count": 1}
BOARD = "/ws/leaderboard/2026-12-01/SH1-C4/"


def raw_socket(
    path: str, origin: str = "http://localhost", host: str = "localhost", **more: str
) -> Socket:
    headers = [(b"host", host.encode()), (b"origin", origin.encode())]
    headers += [(k.replace("_", "-").encode(), v.encode()) for k, v in more.items()]
    return Socket(application, path, headers=headers)


def from_address(sock: Socket, address: str) -> Socket:
    sock.scope["client"] = (address, 40000)
    return sock


async def opened(sock: Socket) -> dict[str, Any]:
    connected, _ = await sock.connect()
    assert connected
    return await sock.recv()


async def refused(sock: Socket, code: int, error: str) -> None:
    """Accepted, one ``error`` naming why, then closed with ``code``."""
    assert (await sock.connect())[0]
    message = await sock.recv()
    assert message["type"] == "error" and message["error"]["code"] == error, message
    assert message["error"]["message"]
    assert await sock.receive_output(timeout=3) == {"type": "websocket.close", "code": code}


async def closed_with(sock: Socket, code: int, error: str) -> None:
    """An open socket: one ``error`` naming why, then closed with ``code``."""
    message = await sock.recv()
    while message["type"] != "error":  # answers to earlier frames, broadcasts
        message = await sock.recv()
    assert message["error"]["code"] == error, message
    assert await sock.receive_output(timeout=3) == {"type": "websocket.close", "code": code}


def gauge() -> dict[str, float]:
    return {
        kind: REGISTRY.get_sample_value("patience_websockets_open", {"kind": kind}) or 0.0
        for kind in SOCKET_KINDS
    }


# --- the frame budget ---------------------------------------------------------------------------


async def test_every_frame_kind_takes_from_the_sockets_budget(make_player, settings):
    """Pings, bad frames, binary frames, unknown types and snapshot requests all
    count: past the budget the socket is told (``too_many_frames``) and closed 4429."""
    settings.WS_FRAME_BURST, settings.WS_FRAME_RATE = 5, 0.01
    board = socket_for(BOARD)
    assert (await opened(board))["type"] == "subscribed"
    for frame in ({"type": "ping"}, {"type": "nope"}, {"type": "ping"}):
        await board.send(frame)
        await board.recv()
    await board.send_to(text_data="not json")
    await board.recv()
    await board.send_to(bytes_data=b"\x00")
    await board.recv()
    await board.send({"type": "ping"})  # the sixth frame
    await closed_with(board, 4429, "too_many_frames")

    alice = await new_player(make_player)
    game = await start(alice, code=CODE)
    play = socket_for(f"/ws/games/{game['id']}/", alice)
    assert (await opened(play))["type"] == "snapshot"
    for _ in range(5):
        await play.send({"type": "snapshot"})
        assert (await play.recv())["type"] == "snapshot"
    await play.send({"type": "snapshot"})
    await closed_with(play, 4429, "too_many_frames")


async def test_the_budget_refills(settings):
    settings.WS_FRAME_BURST, settings.WS_FRAME_RATE = 2, 20
    board = socket_for(BOARD)
    await opened(board)
    for _ in range(6):  # two at once, then one each 1/20 s: never over
        await board.send({"type": "ping"})
        assert await board.recv() == {"type": "pong"}
        await asyncio.sleep(0.1)
    await board.disconnect()


# --- caps on open sockets -----------------------------------------------------------------------


async def test_sockets_per_player_are_capped_across_processes(make_player, settings, monkeypatch):
    settings.WS_MAX_PER_PLAYER = 3
    alice = await new_player(make_player)
    game = await start(alice, code=CODE)
    path = f"/ws/games/{game['id']}/"
    first = socket_for(path, alice)
    await opened(first)
    # Two more held by another daphne (the same shared count), placed as it would.
    user_id = await sync_to_async(lambda: User.objects.get(username=alice.username).pk)()
    key = f"sockets:player:{user_id}"
    for other in ("elsewhere-1", "elsewhere-2"):
        assert await sync_to_async(sockets._slots().take)(other, [(key, 3)]) is None
    await refused(socket_for(path, alice), 4429, "too_many_sockets")
    # That daphne was killed: a minute on, its sockets' places have expired
    # (never renewed), and a socket opens again.
    later = time.time() + sockets.SLOT_TTL_S + 1
    monkeypatch.setattr(
        sockets, "time", SimpleNamespace(time=lambda: later, monotonic=time.monotonic)
    )
    second = socket_for(path, alice)
    await opened(second)
    monkeypatch.setattr(sockets, "time", time)
    # (The first socket was not renewed in that minute either: the count is the
    # second alone.) Two more fill the cap; a closed socket gives its place back.
    third, fourth = socket_for(path, alice), socket_for(path, alice)
    await opened(third)
    await opened(fourth)
    await refused(socket_for(path, alice), 4429, "too_many_sockets")
    await second.disconnect()
    fifth = socket_for(path, alice)
    await opened(fifth)
    for sock in (first, third, fourth, fifth):
        await sock.disconnect()


async def test_sockets_per_address_are_capped(settings):
    """1,000 anonymous leaderboard sockets from one address were all accepted."""
    settings.WS_MAX_PER_ADDRESS = 3
    held = [from_address(socket_for(BOARD), "203.0.113.7") for _ in range(3)]
    for sock in held:
        await opened(sock)
    await refused(from_address(socket_for(BOARD), "203.0.113.7"), 4429, "too_many_sockets")
    other = from_address(socket_for(BOARD), "198.51.100.1")
    await opened(other)
    for sock in [*held, other]:
        await sock.disconnect()


# --- signing out --------------------------------------------------------------------------------


async def test_signing_out_closes_the_players_game_and_watch_sockets(make_player):
    alice, bob = await new_player(make_player), await new_player(make_player)
    mine = await start(alice, code=CODE)
    bobs = await start(bob, code=CODE)
    play = socket_for(f"/ws/games/{mine['id']}/", alice)
    watch = socket_for(f"/ws/games/{bobs['id']}/", alice)
    bob_plays = socket_for(f"/ws/games/{bobs['id']}/", bob)
    for sock in (play, watch, bob_plays):
        await opened(sock)
    response = await sync_to_async(alice.send)("/api/auth/logout/")
    assert response.status_code == 200
    for sock in (play, watch):
        await closed_with(sock, 4401, "signed_out")
    await bob_plays.send({"type": "ping"})
    assert await bob_plays.recv() == {"type": "pong"}
    await bob_plays.disconnect()


# --- the Origin -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("origin", "host", "headers", "accepted"),
    [
        ("http://localhost", "localhost", {}, True),
        ("http://localhost:80", "localhost", {}, False),  # browsers never write it
        ("http://localhost:8000", "localhost:8000", {}, True),
        ("http://localhost:9999", "localhost:8000", {}, False),  # another port
        ("http://localhost:9999", "localhost", {}, False),
        ("https://localhost", "localhost", {}, False),  # another scheme
        ("http://evil.example", "evil.example", {}, False),  # a host not allowed
        ("null", "localhost", {}, False),
        ("", "localhost", {}, False),
    ],
)
async def test_the_origin_is_the_sites_own_scheme_host_and_port(origin, host, headers, accepted):
    sock = raw_socket(BOARD, origin, host, **headers)
    connected, _ = await sock.connect()
    assert connected is accepted, origin
    await sock.disconnect()


async def test_behind_a_tls_proxy_the_origin_is_https_and_trusted_origins_pass(settings):
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    settings.CSRF_TRUSTED_ORIGINS = ["https://play.example.org"]
    https = {"x_forwarded_proto": "https"}
    for origin, headers, accepted in [
        ("https://localhost", https, True),
        ("http://localhost", https, False),
        ("https://localhost", {}, False),  # the proxy did not say https
        ("https://play.example.org", {}, True),
        ("https://play.example.org:8443", {}, False),
        ("http://play.example.org", {}, False),
    ]:
        sock = raw_socket(BOARD, origin, "localhost", **headers)
        connected, _ = await sock.connect()
        assert connected is accepted, (origin, headers)
        await sock.disconnect()


# --- the leaderboard's dates --------------------------------------------------------------------


@pytest.mark.parametrize(
    "date", ["20261201", "2026-12-1", "2026-W48-2", "2026-12-01T00", "２０２６-12-01", "2026-12-01"]
)
async def test_the_leaderboard_socket_reads_a_date_as_the_rest_leaderboard(anon, date):
    rest = await sync_to_async(anon.get)(f"/api/leaderboard/{date}/SH1-C4/")
    bad = rest.status_code == 400 and rest.json()["error"]["code"] == "bad_date"
    sock = socket_for(f"/ws/leaderboard/{date}/SH1-C4/")
    if bad:
        await refused(sock, 4400, "bad_date")
    else:
        assert (await opened(sock))["type"] == "subscribed"
        await sock.disconnect()
    assert bad is (date != "2026-12-01")


# --- spectators ---------------------------------------------------------------------------------


async def test_spectators_never_get_the_players_targets(make_player):
    alice, bob = await new_player(make_player), await new_player(make_player)
    game = await start(alice, code=CODE)
    path = f"/ws/games/{game['id']}/"
    play, watch = socket_for(path, alice), socket_for(path, bob)
    assert (await opened(play))["game"]["view"]["targets"]  # the player keeps them
    seen = await opened(watch)
    assert seen["game"]["view"]["targets"] == seen["game"]["view"]["finish"] == []
    await watch.send({"type": "snapshot"})
    assert (await watch.recv())["game"]["view"]["targets"] == []
    await play.send({"seq": 0, "action": FIRST})
    ack = await play.recv()
    assert ack["type"] == "ack" and ack["game"]["view"]["targets"]
    state = await watch.recv()
    assert state["type"] == "state" and state["v"] == 1
    assert state["game"]["view"]["targets"] == state["game"]["view"]["finish"] == []
    # An action over HTTP: its state reaches both sockets, the player's with targets.
    response = await sync_to_async(alice.send)(
        f"/api/games/{game['id']}/actions/", {"seq": 1, "action": {"type": "undo"}}
    )
    assert response.status_code == 200
    assert (await play.recv())["game"]["view"]["targets"]
    assert (await watch.recv())["game"]["view"]["targets"] == []
    rest = await sync_to_async(bob.get)(f"/api/games/{game['id']}/")
    assert rest.status_code in (403, 404)  # the REST game is its player's alone
    await play.disconnect()
    await watch.disconnect()


# --- the gauge ----------------------------------------------------------------------------------


async def test_the_open_sockets_gauge_comes_back_to_its_start(make_player, settings):
    """Sockets of every kind opened, refused, closed by the client, closed by the
    server (frame budget, sign-out) and cancelled by the server under them (daphne
    cancels an application whose client is gone and that does not finish within
    ``application_close_timeout``; before, such a socket stayed counted for good)."""
    start_figures = gauge()
    settings.WS_MAX_PER_PLAYER, settings.WS_FRAME_BURST = 4, 3
    alice, bob = await new_player(make_player), await new_player(make_player)
    game = await start(alice, code=CODE)
    path = f"/ws/games/{game['id']}/"
    for _ in range(3):
        plays = [socket_for(path, alice) for _ in range(4)]
        watches = [socket_for(path, bob) for _ in range(2)]
        boards = [socket_for(BOARD) for _ in range(3)]
        for sock in plays + watches + boards:
            await opened(sock)
        assert gauge()["game"] == start_figures["game"] + 4
        await refused(socket_for(path, alice), 4429, "too_many_sockets")
        refused_anon = socket_for(path)
        assert (await refused_anon.connect())[0]
        assert (await refused_anon.receive_output(3))["code"] == 4401
        await refused(socket_for("/ws/leaderboard/nope/SH1-C4/"), 4400, "bad_date")
        assert not (await raw_socket(BOARD, "http://localhost:9999").connect())[0]
        # Client closes, server closes, and cancellations.
        await plays[0].disconnect()
        for _ in range(4):
            await boards[0].send({"type": "ping"})
        await closed_with(boards[0], 4429, "too_many_frames")
        await boards[0].disconnect()
        for sock in (plays[1], watches[0], boards[1]):
            sock.future.cancel()
            await asyncio.gather(sock.future, return_exceptions=True)
        await sync_to_async(bob.send)("/api/auth/logout/")
        await closed_with(watches[1], 4401, "signed_out")
        await watches[1].disconnect()
        await sync_to_async(bob.send)(
            "/api/auth/login/", {"username": bob.username, "password": "correct horse battery"}
        )
        for sock in (plays[2], plays[3], boards[2]):
            await sock.disconnect()
    deadline = time.monotonic() + 5
    while gauge() != start_figures and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    assert gauge() == start_figures


async def test_sockets_cancelled_under_the_server_are_counted_closed(make_player):
    """The leak alone, with what the server had before issue 25: every kind of
    socket opened, refused, closed by its client, and cancelled (as daphne cancels
    the application of a client gone that does not finish in time)."""
    start_figures = gauge()
    alice, bob = await new_player(make_player), await new_player(make_player)
    game = await start(alice, code=CODE)
    path = f"/ws/games/{game['id']}/"
    for _ in range(5):
        socks = [socket_for(path, alice), socket_for(path, bob), socket_for(BOARD)]
        for sock in socks:
            await opened(sock)
        refused_anon = socket_for(path)
        assert (await refused_anon.connect())[0]
        assert (await refused_anon.receive_output(3))["code"] == 4401
        assert not (await socket_for(path, alice, (b"origin", b"http://evil.example")).connect())[0]
        gone = [socket_for(path, alice), socket_for(path, bob), socket_for(BOARD)]
        for sock in gone:
            await opened(sock)
            sock.future.cancel()
            await asyncio.gather(sock.future, return_exceptions=True)
        for sock in socks:
            await sock.disconnect()
    assert gauge() == start_figures
