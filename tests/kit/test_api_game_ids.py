"""A game id beyond the database's 64-bit ids is no game: 404, never a 500 (issue
25: on SQLite a huge id on the actions endpoint overflowed in the query)."""

from __future__ import annotations

from pathlib import Path

import pytest

from deploy.client import Client as ServerClient
from kit.api import GameIdConverter
from tests.support.api import assert_error
from tests.support.daphne import sqlite_daphne

LARGEST = 2**63 - 1
HUGE = ("9223372036854775808", "99999999999999999999", "9" * 5000)
ACTION = {"seq": 0, "action": {"type": "stock"}}


def test_the_converter_takes_64_bit_ids_only():
    converter = GameIdConverter()
    assert converter.to_python(str(LARGEST)) == LARGEST
    assert converter.to_python("1") == 1
    with pytest.raises(ValueError):
        converter.to_python(str(LARGEST + 1))


@pytest.mark.django_db
@pytest.mark.parametrize("huge", HUGE)
def test_huge_game_ids_are_404_on_every_path(player, huge):
    for suffix in ("", "replay/", "last-winnable/"):
        assert_error(player.get(f"/api/games/{huge}/{suffix}"), 404)
    for suffix in ("actions/", "resign/"):
        assert_error(player.send(f"/api/games/{huge}/{suffix}", ACTION), 404)
    for page in ("play", "watch", "replay"):
        assert player.get(f"/{page}/{huge}/").status_code == 404
    # The largest id that fits is simply no game.
    assert_error(player.send(f"/api/games/{LARGEST}/actions/", ACTION), 404, "not_found")


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_a_huge_game_id_on_a_socket_is_not_found(make_player):
    """As any id of no game: an error ``not_found``, then 4404 (websocket.md)."""
    from asgiref.sync import sync_to_async

    from tests.support.sockets import socket_for

    player = await sync_to_async(make_player)()
    socket = socket_for(f"/ws/games/{HUGE[1]}/", player)
    connected, _ = await socket.connect()
    assert connected  # accepted, then closed with the code (games/consumers.py)
    said = await socket.recv()
    assert said["type"] == "error" and said["error"]["code"] == "not_found", said
    closed = await socket.receive_output(timeout=5)
    assert closed == {"type": "websocket.close", "code": 4404}
    await socket.wait()


def test_sqlite_answers_a_huge_game_id_404(tmp_path: Path) -> None:
    """The embedded default (SQLite), on a real daphne, where it was a 500."""
    with sqlite_daphne(tmp_path, LOG_LEVEL="WARNING") as (port, log):
        player = ServerClient(port)
        player.sign_up("bigid", "a long passphrase")
        for huge in HUGE[:2]:
            answer = player.request("POST", f"/api/games/{huge}/actions/", ACTION)
            assert answer.status == 404, (answer.status, log.read_text()[-2000:])
            assert player.request("GET", f"/api/games/{huge}/").status == 404
        player.close()
