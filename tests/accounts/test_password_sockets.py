"""The websockets of ended sessions (issue 28): sign out everywhere closes every
game socket of the account (4401 ``signed_out``); a password changed closes
those of the other sessions and spares the session it was changed from; a
socket of an ended session that connects again is refused."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async

from tests.support.api import Client
from tests.support.sockets import new_player, socket_for, start

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]

CODE = "SH1-C4-AAAAAAE"
PASSWORD = "correct horse battery"


async def opened(sock) -> None:
    connected, _ = await sock.connect()
    assert connected
    await sock.recv()  # the snapshot


async def closed_signed_out(sock) -> None:
    message = await sock.recv()
    while message["type"] != "error":
        message = await sock.recv()
    assert message["error"]["code"] == "signed_out", message
    assert await sock.receive_output(timeout=3) == {"type": "websocket.close", "code": 4401}


async def still_open(sock) -> None:
    await sock.send({"type": "ping"})
    assert await sock.recv() == {"type": "pong"}


async def second_session(client) -> Client:
    other = Client()
    response = await sync_to_async(other.send)(
        "/api/auth/login/", {"username": client.username, "password": PASSWORD}
    )
    assert response.status_code == 200, response.content
    return other


async def test_sign_out_everywhere_closes_every_socket_of_the_account(make_player):
    here = await new_player(make_player)
    phone = await second_session(here)
    game = await start(here, code=CODE)
    sockets = [socket_for(f"/ws/games/{game['id']}/", c) for c in (here, phone)]
    for sock in sockets:
        await opened(sock)
    response = await sync_to_async(here.send)("/api/auth/logout/everywhere/")
    assert response.status_code == 200, response.content
    for sock in sockets:
        await closed_signed_out(sock)
    # The phone's session is over: its socket coming back is refused.
    again = socket_for(f"/ws/games/{game['id']}/", phone)
    assert (await again.connect())[0]
    output = await again.receive_output(timeout=3)
    while output["type"] != "websocket.close":
        output = await again.receive_output(timeout=3)
    assert output["code"] == 4401, output


async def test_a_password_change_spares_its_own_sessions_sockets(make_player):
    here = await new_player(make_player)
    phone = await second_session(here)
    game = await start(here, code=CODE)
    mine = socket_for(f"/ws/games/{game['id']}/", here)
    theirs = socket_for(f"/ws/games/{game['id']}/", phone)
    for sock in (mine, theirs):
        await opened(sock)
    response = await sync_to_async(here.send)(
        "/api/auth/password/", {"old": PASSWORD, "new": "staple battery horse"}
    )
    assert response.status_code == 200, response.content
    await closed_signed_out(theirs)
    await still_open(mine)
    await mine.disconnect()
