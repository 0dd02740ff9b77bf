"""Issue 38, deliverable 2: a snapshot asked for over ``/ws/games/{id}/`` is
served from the one kept in the process while nothing has told the socket of a
change — no database query — and read again after any change it hears of (a
broadcast, its own action), for a spectator also once its access is a while
old or the UTC day has turned (the spoiler rule is checked again)."""

from __future__ import annotations

import datetime as dt
import threading
from collections.abc import Iterator
from typing import Any

import pytest
import pytest_asyncio
from asgiref.sync import sync_to_async
from django.db.backends.utils import CursorWrapper

from games import consumers
from kit import sockets as kit_sockets
from tests.support.api import act as http_act
from tests.support.sockets import Socket, new_player, socket_for, start

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]

CODE = "SH1-C4-AAAAAAE"
FIRST = {"type": "move", "from": "t4", "to": "f3", "count": 1}  # AD home: legal at the start


@pytest.fixture(autouse=True)
def _fresh_budgets():
    kit_sockets.FRAMES.forget()
    kit_sockets.SNAPSHOTS.forget()


class Queries:
    """SQL statements run on any thread (the sockets' work runs on pools of their own)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.sql: list[str] = []

    def take(self) -> list[str]:
        with self.lock:
            taken, self.sql = self.sql, []
        return taken


@pytest.fixture
def queries(monkeypatch) -> Iterator[Queries]:
    seen = Queries()
    execute = CursorWrapper.execute

    def counted(self: Any, sql: str, params: Any = None) -> Any:
        with seen.lock:
            seen.sql.append(sql)
        return execute(self, sql, params)

    monkeypatch.setattr(CursorWrapper, "execute", counted)
    yield seen


@pytest_asyncio.fixture
async def sockets():
    opened: list[Socket] = []

    async def open_socket(attempt_id: int, client: Any) -> Socket:
        sock = socket_for(f"/ws/games/{attempt_id}/", client)
        opened.append(sock)
        connected, _ = await sock.connect()
        assert connected
        first = await sock.recv()
        assert first["type"] == "snapshot", first
        return sock

    yield open_socket
    for sock in opened:
        await sock.disconnect()


async def snapshot(sock: Socket) -> dict[str, Any]:
    await sock.send({"type": "snapshot"})
    message = await sock.recv()
    assert message["type"] == "snapshot", message
    return message


def same_but_clock(a: dict[str, Any], b: dict[str, Any]) -> bool:
    def strip(m: dict[str, Any]) -> dict[str, Any]:
        return {**m, "game": {k: v for k, v in m["game"].items() if k != "elapsed_ms"}}

    return strip(a) == strip(b)


async def test_a_snapshot_of_an_unchanged_game_does_no_database_query(
    make_player, sockets, queries
):
    alice, bob = await new_player(make_player), await new_player(make_player)
    attempt = await start(alice, code=CODE)
    player = await sockets(attempt["id"], alice)
    watcher = await sockets(attempt["id"], bob)  # a practice game: anyone may watch
    first = {sock: await snapshot(sock) for sock in (player, watcher)}
    queries.take()
    for _ in range(5):
        for sock in (player, watcher):
            again = await snapshot(sock)
            assert same_but_clock(again, first[sock])
    assert queries.take() == []
    assert first[player]["game"]["view"]["targets"]  # the player's copy ...
    assert first[watcher]["game"]["view"]["targets"] == []  # ... and a spectator's


async def test_the_kept_snapshot_runs_its_clock(make_player, sockets, monkeypatch):
    alice = await new_player(make_player)
    attempt = await start(alice, code=CODE)
    player = await sockets(attempt["id"], alice)
    first = await snapshot(player)
    later = dt.datetime.now(dt.UTC) + dt.timedelta(seconds=42)
    monkeypatch.setattr("games.selectors.timezone.now", lambda: later)
    again = await snapshot(player)
    assert again["game"]["elapsed_ms"] >= first["game"]["elapsed_ms"] + 41_000
    assert same_but_clock(again, first)


async def test_a_change_heard_of_means_a_fresh_read(make_player, sockets, queries):
    """The player's own action, one made over HTTP (heard as a broadcast): the
    next snapshot of every socket is of the game after it."""
    alice, bob = await new_player(make_player), await new_player(make_player)
    attempt = await start(alice, code=CODE)
    player = await sockets(attempt["id"], alice)
    watcher = await sockets(attempt["id"], bob)
    for sock in (player, watcher):
        assert (await snapshot(sock))["v"] == 0
    await player.send({"seq": 0, "action": FIRST})
    assert (await player.recv())["type"] == "ack"
    assert (await watcher.recv())["type"] == "state"
    for sock in (player, watcher):
        assert (await snapshot(sock))["v"] == 1
    game = await sync_to_async(lambda: http_act(alice, attempt["id"], 1, {"type": "undo"}))()
    assert game.status_code == 200, game.content
    for sock in (player, watcher):
        assert (await sock.recv())["type"] == "state"
        assert (await snapshot(sock))["v"] == 2
    # A resignation keeps ``v``: heard of, it is read again all the same.
    await player.send({"type": "resign"})
    assert (await player.recv())["type"] == "ack"
    assert (await watcher.recv())["type"] == "state"
    queries.take()
    for sock in (player, watcher):
        assert (await snapshot(sock))["game"]["status"] == "resigned"
    assert queries.take()


async def test_a_spectators_access_is_checked_again_after_a_while_and_at_the_days_turn(
    make_player, sockets, queries, monkeypatch
):
    alice, bob = await new_player(make_player), await new_player(make_player)
    attempt = await start(alice, code=CODE)
    watcher = await sockets(attempt["id"], bob)
    await snapshot(watcher)
    queries.take()
    await snapshot(watcher)
    assert queries.take() == []
    tomorrow = dt.datetime.now(dt.UTC).date() + dt.timedelta(days=1)
    monkeypatch.setattr(consumers, "_utc_day", lambda: tomorrow)
    await snapshot(watcher)
    assert queries.take()  # the spoiler rule asked again
    await snapshot(watcher)
    assert queries.take() == []
    monkeypatch.setattr(consumers, "ACCESS_KEEP_S", 0.0)
    await snapshot(watcher)
    assert queries.take()
