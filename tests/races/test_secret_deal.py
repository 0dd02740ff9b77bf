"""Issue 36, played as an attacker: an Easy Harp race is dealt from a fresh
secret key (RULES.md C2b) and names no code to anyone until it ends
(PRODUCT.md, anti-cheat). A numbered deal's code is all an attacker needs:
``python -m games.engine deal CODE`` prints every face-down and stock card.

Three racers race a random Easy Harp deal, watched by a signed-in spectator
and a signed-out visitor on the room's socket; each racer also plays on their
own game's socket. The racers play random legal moves over HTTP and the socket,
send an illegal action and a stale ``seq``, one resigns and asks for their own
replay, analysis and data export; everyone reads the race JSON and the racers
their rooms list and their own game. Every byte of every answer and frame is
kept, and none names the deal's code or key (in any case, nor the key's number)
while the race runs; a racer's own game shows no card hidden from them at that
moment, and nothing else names a card. Once the race is over the race, each
game and every replay name the code, and it deals the very cards raced."""

from __future__ import annotations

import datetime as dt
import io
import json
import random
from typing import Any

import pytest
from asgiref.sync import sync_to_async

from games.engine import GameCode, load_game, new_game
from games.engine.cli import main as engine_cli
from games.models import Attempt
from races import services
from races.models import Race
from tests.support.api import Client, act, assert_error
from tests.support.hidden import (
    Wire,
    check_cardless,
    check_hidden,
    code_secrets,
    engine_state,
)
from tests.support.sockets import Socket, new_player, socket_for

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]

TIMEOUT = 10
ACTIONS = 12  # per racer, over HTTP


def call(method: Any, *args: Any) -> Any:
    return sync_to_async(method, thread_sensitive=False)(*args)


async def drain(wire: Wire, sock: Socket, where: str) -> list[dict[str, Any]]:
    """Every frame waiting on ``sock``, kept on the wire, until it is quiet."""
    frames = []
    while not await sock.receive_nothing(timeout=0.7):
        frames.append(wire.frame(where, await sock.receive_from(timeout=TIMEOUT)))
    return frames


def legal_move(attempt_id: int, rng: random.Random) -> tuple[int, dict[str, Any]]:
    """A legal move of the stored game (no undo: a card once seen stays seen)."""
    row = Attempt.objects.values("seq", "state").get(pk=attempt_id)
    return row["seq"], rng.choice(list(load_game(row["state"]).legal_moves)).to_json()


def own_game_checked(wire: Wire, where: str, response: Any, attempt_id: int) -> dict[str, Any]:
    """A racer's answer about their own game: kept, no code, nothing hidden shown."""
    wire.http(where, response)
    assert response.status_code == 200, (where, response.content[:300])
    body = response.json()
    assert body["code"] is None and body["view"]["code"] is None, (where, body["code"])
    check_hidden(body, engine_state(attempt_id), where)
    return body


async def test_an_easy_harp_race_names_no_code_to_anyone_until_it_ends(make_player, monkeypatch):
    monkeypatch.setattr(services, "COUNTDOWN", dt.timedelta(0))
    rng = random.Random(36)
    wire = Wire()
    racers = [await new_player(make_player) for _ in range(3)]
    watcher = await new_player(make_player)  # signed in, not racing
    anon = await call(Client)
    host, quitter = racers[0], racers[2]

    created = await call(host.send, "/api/races/", {"random": "EH1-N", "capacity": 3})
    assert wire.http("create", created).status_code == 201, created.content
    slug = created.json()["id"]
    room = {
        "visitor": socket_for(f"/ws/races/{slug}/"),
        "watcher": socket_for(f"/ws/races/{slug}/", watcher),
        **{f"racer{i}": socket_for(f"/ws/races/{slug}/", r) for i, r in enumerate(racers)},
    }
    for sock in room.values():
        assert (await sock.connect())[0]
    for racer in racers[1:]:
        wire.http("join", await call(racer.send, f"/api/races/{slug}/join/"))
    wire.http("start", await call(host.send, f"/api/races/{slug}/start/"))

    # The attacker's best case: the key, read where only the server has it.
    race = await call(lambda: Race.objects.select_related("deal").get(slug=slug))
    code = race.deal.code
    parsed = GameCode.parse(code)
    assert parsed.long and race.deal.number is None, code  # a fresh 26-character key
    others = await call(lambda: Race.objects.exclude(pk=race.pk).filter(deal=race.deal).exists())
    assert not others
    ids = []
    for index, racer in enumerate(racers):
        body = wire.http(f"racer{index} race", await call(racer.get, f"/api/races/{slug}/"))
        ids.append(body.json()["you"]["attempt"])
    games = {i: socket_for(f"/ws/games/{ids[i]}/", r) for i, r in enumerate(racers)}
    for index, sock in games.items():
        assert (await sock.connect())[0]
        snapshot = wire.frame(f"racer{index} snapshot", await sock.receive_from(TIMEOUT))
        assert snapshot["game"]["code"] is None
        check_hidden(snapshot, await call(engine_state, ids[index]), "snapshot")

    # The racers play over HTTP; each answer is their own game, as they see it.
    for step in range(ACTIONS):
        for index, racer in enumerate(racers):
            seq, move = await call(legal_move, ids[index], rng)
            response = await call(act, racer, ids[index], seq, move)
            await call(own_game_checked, wire, f"racer{index} action {step}", response, ids[index])
    # … and on their game's socket: the ack is their own game too.
    for index, sock in games.items():
        seq, move = await call(legal_move, ids[index], rng)
        await sock.send({"type": "action", "seq": seq, "action": move})
        while (frame := wire.frame("ack", await sock.receive_from(TIMEOUT)))["type"] != "ack":
            pass
        assert frame["game"]["code"] is None
        check_hidden(frame, await call(engine_state, ids[index]), f"racer{index} ack")
    # Refusals name no code either: a move the rules refuse, a stale seq, a code room.
    for index, racer in enumerate(racers):
        bad = {"type": "move", "from": "w", "to": "t1", "count": 5}
        wire.http("illegal", await call(act, racer, ids[index], 0, bad))
        seq, move = await call(legal_move, ids[index], rng)
        wire.http("stale seq", await call(act, racer, ids[index], seq + 7, move))
    refused = await call(host.send, "/api/races/", {"code": "EH1-N-AAAAAJ2"})
    assert_error(wire.http("code room", refused), 409, "secret_deal")

    # The quitter resigns, then asks for all they could read their game with.
    gone = await call(quitter.send, f"/api/games/{ids[2]}/resign/")
    await call(own_game_checked, wire, "quitter resigns", gone, ids[2])
    for path in (f"/api/games/{ids[2]}/replay/", f"/api/games/{ids[2]}/analysis/"):
        assert_error(wire.http(path, await call(quitter.get, path)), 403, "sealed")
    own = await call(quitter.get, f"/api/games/{ids[2]}/")
    await call(own_game_checked, wire, "quitter's game", own, ids[2])
    exported = await call(quitter.get, "/api/auth/export/")
    assert wire.http("export", exported).status_code == 200, exported.content[:300]
    # Everyone reads the room; the racers their rooms and their own game.
    for who, client in (
        ("visitor", anon),
        ("watcher", watcher),
        *zip(("r0", "r1", "r2"), racers, strict=True),
    ):
        body = wire.http(f"{who} race", await call(client.get, f"/api/races/{slug}/")).json()
        assert body["status"] == "running" and body["code"] is None and body["daily"] is None
        check_cardless(body, who)
    for index, racer in enumerate(racers):
        wire.http("rooms", await call(racer.get, "/api/races/"))
        response = await call(racer.get, f"/api/games/{ids[index]}/")
        await call(own_game_checked, wire, f"racer{index} game", response, ids[index])
    frames = []
    for name, sock in room.items():
        frames += [(name, f) for f in await drain(wire, sock, name)]
    for index, sock in games.items():
        for frame in await drain(wire, sock, f"racer{index} game socket"):
            assert frame.get("game", {}).get("code") is None, frame
    assert any(f["type"] == "progress" for _, f in frames), "no progress frame: nothing tested"
    for name, frame in frames:
        check_cardless(frame, name)

    secrets = code_secrets(code)
    assert len(wire.received) > 80
    for where, blob in wire.received:
        text = blob.decode("utf-8", "replace").upper()
        for secret in secrets:
            assert secret.upper() not in text, f"{where} names the race's deal ({secret!r})"

    # The race ends (the others resign): the code is shown, and deals the cards raced.
    for index in (0, 1):
        assert (await call(racers[index].send, f"/api/games/{ids[index]}/resign/")).status_code
    over = (await call(anon.get, f"/api/races/{slug}/")).json()
    assert over["status"] == "finished" and over["code"] == code
    said = json.loads(await room["visitor"].receive_from(TIMEOUT))
    while said["type"] != "race" or said["race"]["status"] != "finished":
        said = json.loads(await room["visitor"].receive_from(TIMEOUT))
    assert said["race"]["code"] == code
    out = io.StringIO()
    assert engine_cli(["deal", code], stdout=out) == 0
    dealt = json.loads(out.getvalue())
    for index, racer in enumerate(racers):
        game = (await call(racer.get, f"/api/games/{ids[index]}/")).json()
        assert game["code"] == code and game["view"]["code"] == code
        replay = (await call(watcher.get, f"/api/games/{ids[index]}/replay/")).json()
        assert replay["code"] == code and replay["deal"] == new_game(code).view(full=True)
        assert replay["deal"]["piles"] == dealt["piles"]
    for sock in (*room.values(), *games.values()):
        await sock.disconnect()
