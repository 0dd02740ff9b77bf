"""``/ws/races/{race}/`` (games/websocket.md): the race on connect and on every
change, each racer's own ``start``, progress frames coalesced at the source
(at most one a racer per 500 ms, the last always sent), reconnects that keep
the racer's place. On the real ASGI app and, when it answers, the real Redis
channel layer; every frame is checked to name no card."""

from __future__ import annotations

import asyncio
import datetime as dt
import functools
import time
from typing import Any

import pytest
import pytest_asyncio
from asgiref.sync import sync_to_async

from games.engine import Move, Stock
from races import services
from tests.support.api import act
from tests.support.hidden import check_cardless
from tests.support.search import find_win
from tests.support.sockets import Socket, new_player, socket_for

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]

WIN_CODE = "SH1-C4-AAAAAAE"
TIMEOUT = 10  # seconds for a frame that must come: a failure, never a pace


@functools.cache
def win_line() -> tuple[Move | Stock, ...]:
    line = find_win(WIN_CODE)
    assert line is not None
    return tuple(line)


@pytest.fixture
def no_countdown(monkeypatch):
    monkeypatch.setattr(services, "COUNTDOWN", dt.timedelta(0))


class Frames(Socket):
    """A socket that keeps every frame, with when it came, each checked cardless."""

    async def recv(self, timeout: float = TIMEOUT) -> dict[str, Any]:
        message = await super().recv(timeout)
        check_cardless(message, "race frame")
        self.__dict__.setdefault("frames", []).append((time.monotonic(), message))
        return message


@pytest_asyncio.fixture
async def sockets():
    opened: list[Socket] = []

    async def open_socket(slug: str, client: Any = None) -> Frames:
        sock = socket_for(f"/ws/races/{slug}/", client)
        sock.__class__ = Frames
        opened.append(sock)
        connected, _ = await sock.connect()
        assert connected
        return sock  # type: ignore[return-value]

    yield open_socket
    await asyncio.gather(*(sock.disconnect() for sock in opened), return_exceptions=True)


def send(client: Any, path: str, body: Any = None, status: int = 200) -> dict[str, Any]:
    response = client.send(path, body)
    assert response.status_code == status, response.content
    return response.json()


async def test_a_race_over_the_socket(make_player, anon, no_countdown, sockets):
    host, rival = await new_player(make_player), await new_player(make_player)
    race = await sync_to_async(send)(host, "/api/races/", {"code": WIN_CODE}, 201)
    slug = race["id"]
    mine = await sockets(slug, host)
    first = await mine.recv()
    assert first["type"] == "race" and first["v"] == 0
    assert first["race"]["you"] == {"racer": True, "host": True, "attempt": None}
    spectator = await sockets(slug)  # signed out
    assert (await spectator.recv())["race"]["you"] == {
        "racer": False,
        "host": False,
        "attempt": None,
    }
    theirs = await sockets(slug, rival)
    assert (await theirs.recv())["race"]["you"]["racer"] is False
    await sync_to_async(send)(rival, f"/api/races/{slug}/join/")
    joined = await theirs.until(lambda m: m["type"] == "race")
    assert joined["v"] == 1 and joined["race"]["you"]["racer"] is True
    assert [r["player"] for r in joined["race"]["racers"]] == [host.username, rival.username]

    await sync_to_async(send)(host, f"/api/races/{slug}/start/")
    starts = {}
    for sock in (mine, theirs, spectator):
        start = await sock.until(lambda m: m["type"] == "start")
        starts[sock] = start
    assert len({s["starts_at"] for s in starts.values()}) == 1
    assert starts[spectator]["attempt"] is None
    attempt = starts[mine]["attempt"]
    assert attempt and starts[theirs]["attempt"] not in (None, attempt)
    # The room's change came first (its race frame), then the start.
    running = next(
        m for _, m in mine.frames if m["type"] == "race" and m["race"]["status"] == "running"
    )
    assert running["race"]["you"]["attempt"] == attempt
    assert running["race"]["code"] == WIN_CODE
    # Placed live by the server from the start: no card home yet, a tie.
    assert [r["place"] for r in running["race"]["racers"]] == [1, 1]

    # The host plays the whole winning line as fast as HTTP goes.
    line = [m.to_json() for m in win_line()]
    began = time.monotonic()

    def play() -> None:
        for seq, move in enumerate(line[:-1]):
            assert act(host, attempt, seq, move).status_code == 200

    await sync_to_async(play, thread_sensitive=False)()
    played = time.monotonic() - began
    moves = len(line) - 1
    last = await spectator.until(
        lambda m: m["type"] == "progress" and m["racers"][0]["progress"]["moves"] == moves
    )
    assert last["racers"][0]["player"] == host.username
    assert last["racers"][0]["status"] == "racing"
    assert last["racers"][0]["seq"] == moves
    progress = [m for _, m in spectator.frames if m["type"] == "progress"]
    # Coalesced: one frame per 500 ms gate at most, plus the trailing one.
    assert len(progress) <= int(played / 0.5) + 2 + 1, (len(progress), played)
    assert len(progress) < moves
    assert [set(m) for m in progress] == [{"type", "racers", "v", "places"}] * len(progress)
    assert all(len(m["racers"][0]["progress"]["home"]) == 4 for m in progress)
    # Each frame names the racer who moved, and places the whole field: the rival,
    # who never moved, too — behind the host once the host has a card home.
    assert all(set(m["places"]) == {host.username, rival.username} for m in progress)
    assert last["places"] == {host.username: 1, rival.username: 2}

    # A reconnect keeps the racer's place: the same game, its progress.
    await theirs.disconnect()
    again = await sockets(slug, rival)
    snapshot = await again.recv()
    assert snapshot["race"]["you"]["attempt"] == starts[theirs]["attempt"]
    assert snapshot["race"]["racers"][0]["progress"]["moves"] == moves

    await sync_to_async(act)(host, attempt, moves, line[-1])  # the winning move
    won = await spectator.until(
        lambda m: m["type"] == "race" and m["race"]["racers"][0]["status"] == "won"
    )
    assert won["race"]["status"] == "running"
    await sync_to_async(send)(rival, f"/api/races/{slug}/leave/")
    over = await again.until(lambda m: m["type"] == "race" and m["race"]["status"] == "finished")
    assert [(r["player"], r["place"], r["status"]) for r in over["race"]["racers"]] == [
        (host.username, 1, "won"),
        (rival.username, 2, "left"),
    ]
    assert over["race"]["racers"][0]["attempt"] == attempt


async def test_only_ping_is_taken_and_an_unknown_race_is_refused(make_player, sockets):
    host = await new_player(make_player)
    race = await sync_to_async(send)(host, "/api/races/", {"code": WIN_CODE}, 201)
    sock = await sockets(race["id"], host)
    await sock.recv()
    await sock.send({"type": "ping"})
    assert (await sock.recv())["type"] == "pong"
    await sock.send({"type": "start"})
    error = await sock.recv()
    assert error["type"] == "error" and error["error"]["code"] == "bad_type"
    lost = socket_for("/ws/races/nosuchrace/")
    await lost.connect()
    assert (await lost.recv())["error"]["code"] == "not_found"
    assert (await lost.receive_output(TIMEOUT))["code"] == 4404
    await lost.disconnect()
