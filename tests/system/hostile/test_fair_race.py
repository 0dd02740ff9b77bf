"""Issue 29, attackers in a race room: a race shows its racers as counts, never
a card; nobody moves another racer's progress; a rival's game cannot be
watched, replayed or analysed while the race runs (nor by a second account);
a closed room takes nobody.

An Easy Harp race (face-down cards and a stock) of three racers, a spectator
signed out and a second account of a racer who is not in the race. The racers
play random legal moves (chosen from the stored game, as
``test_hidden_information.py`` does) over HTTP, and a few actions on their game
socket. Every byte of every race frame any of the five sockets receives, and
of every race JSON any of them fetches, is collected and checked: no card is
named at all (``tests/support/hidden.py``: ``check_cardless``), the progress
objects hold counts and nothing else, and no code is named before the start."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import random
from typing import Any

import pytest
from asgiref.sync import sync_to_async

from games.engine import load_game
from games.models import Attempt
from races import services
from tests.support.api import act, assert_error
from tests.support.hidden import CARD, check_cardless, hidden_only
from tests.support.sockets import Socket, new_player, socket_for

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]

SEED = 29
ACTIONS = 40  # per racer
TIMEOUT = 10
PROGRESS_KEYS = {"home", "uncovered", "moves", "elapsed_ms", "home_ms"}


def check_race(body: Any, where: str, *, started: bool) -> None:
    """A race JSON: no card anywhere, progress as counts only, no code before the start."""
    check_cardless(body, where)
    if not started:
        assert body["code"] is None and body["daily"] is None, where
    for racer in body["racers"]:
        shown = racer["progress"]
        assert set(shown) == PROGRESS_KEYS, (where, shown)
        assert all(type(n) is int for n in shown["home"]), where
        counts = ("uncovered", "moves", "elapsed_ms", "home_ms")
        assert all(type(shown[k]) is int for k in counts), where


def check_frame(frame: dict[str, Any], where: str, *, started: bool) -> None:
    check_cardless(frame, where)
    if frame["type"] == "race":
        check_race(frame["race"], where, started=started)
    elif frame["type"] == "progress":
        assert set(frame) == {"type", "racers", "v", "places"}, where
        for racer in frame["racers"]:
            assert set(racer) == {"player", "progress", "status", "seq"}, where
            assert set(racer["progress"]) == PROGRESS_KEYS, where
        # Every racer's place: a name and a number, nothing else.
        assert all(type(p) is str and type(n) is int for p, n in frame["places"].items()), where
    else:
        assert frame["type"] in ("start", "pong"), (where, frame)


async def drain(sock: Socket) -> list[str]:
    """Every frame waiting on ``sock`` (raw text), until it is quiet for a moment."""
    texts = []
    while not await sock.receive_nothing(timeout=0.7):
        texts.append(await sock.receive_from(timeout=TIMEOUT))
    return texts


def choose(attempt_id: int, rng: random.Random) -> tuple[int, dict[str, Any]]:
    """A legal move of the stored game (the database: on a thread)."""
    row = Attempt.objects.values("seq", "state").get(pk=attempt_id)
    game = load_game(row["state"])
    moves = list(game.legal_moves)
    return row["seq"], rng.choice(moves).to_json()


async def test_race_frames_show_counts_only_and_rivals_stay_out(make_player, monkeypatch):
    monkeypatch.setattr(services, "COUNTDOWN", dt.timedelta(0))
    rng = random.Random(SEED)
    racers = [await new_player(make_player) for _ in range(3)]
    second = await new_player(make_player)  # another account of racers[1]'s owner
    host = racers[0]
    call = sync_to_async(lambda f, *a: f(*a), thread_sensitive=False)

    created = await call(lambda: host.send("/api/races/", {"random": "EH1-N", "capacity": 3}))
    assert created.status_code == 201, created.content
    slug = created.json()["id"]
    check_race(created.json(), "create", started=False)
    spectator = socket_for(f"/ws/races/{slug}/")
    socks = {"spectator": spectator, "second": socket_for(f"/ws/races/{slug}/", second)}
    for index, racer in enumerate(racers):
        socks[f"racer{index}"] = socket_for(f"/ws/races/{slug}/", racer)
    for sock in socks.values():
        assert (await sock.connect())[0]
    collected: list[tuple[str, str, bool]] = []  # (where, text, started)
    for racer in racers[1:]:
        joined = await call(lambda r=racer: r.send(f"/api/races/{slug}/join/"))
        assert joined.status_code == 200
        collected.append(("join answer", joined.content.decode(), False))
    for name, sock in socks.items():
        collected += [(name, text, False) for text in await drain(sock)]
    for client in (*racers, second):
        got = await call(lambda c=client: c.get(f"/api/races/{slug}/"))
        collected.append(("GET before start", got.content.decode(), False))

    started = await call(lambda: host.send(f"/api/races/{slug}/start/"))
    assert started.status_code == 200
    ids = [
        (await call(lambda r=r: r.get(f"/api/races/{slug}/"))).json()["you"]["attempt"]
        for r in racers
    ]
    assert all(ids) and len(set(ids)) == 3

    # Nobody but its player sees a racer's game while the race runs.
    rival = ids[1]
    for client in (host, second):
        assert_error(await call(lambda c=client: c.get(f"/api/games/{rival}/replay/")), 403)
        assert_error(await call(lambda c=client: c.get(f"/api/games/{rival}/analysis/")), 403)
        assert_error(await call(lambda c=client: c.get(f"/api/games/{rival}/")), 403)
        live = (await call(lambda c=client: c.get("/api/live/"))).json()
        assert rival not in [g["id"] for g in live]
        watch = socket_for(f"/ws/games/{rival}/", client)
        await watch.connect()
        refused = json.loads(await watch.receive_from(TIMEOUT))
        assert refused["error"]["code"] == "sealed", refused
        assert (await watch.receive_output(TIMEOUT))["code"] == 4403
        await watch.disconnect()
    # … and nobody moves it: refused on every door, its progress unchanged.
    before = await call(lambda: Attempt.objects.values("seq", "state").get(pk=rival))
    seq, move = await call(choose, rival, rng)
    for client in (host, second):
        assert_error(await call(act, client, rival, seq, move), 403, "not_yours")
    intruder = socket_for(f"/ws/games/{rival}/", host)
    await intruder.connect()
    await intruder.receive_from(TIMEOUT)
    await intruder.disconnect()
    after = await call(lambda: Attempt.objects.values("seq", "state").get(pk=rival))
    assert after == before
    # A closed room takes nobody.
    for client in (second,):
        assert_error(await call(lambda c=client: c.send(f"/api/races/{slug}/join/")), 409)

    # The racers play; what each rival has not uncovered is what must never show.
    secrets: set[str] = set()
    for _ in range(ACTIONS):
        for index, racer in enumerate(racers):
            seq, move = await call(choose, ids[index], rng)
            response = await call(act, racer, ids[index], seq, move)
            assert response.status_code == 200, response.content
        for attempt_id in ids:
            game = await call(lambda a=attempt_id: load_game(Attempt.objects.get(pk=a).state))
            secrets |= hidden_only(game)
    # One racer plays a few on the game socket too.
    play = socket_for(f"/ws/games/{ids[2]}/", racers[2])
    await play.connect()
    await play.receive_from(TIMEOUT)
    for _ in range(5):
        seq, move = await call(choose, ids[2], rng)
        await play.send_to(text_data=json.dumps({"type": "action", "seq": seq, "action": move}))
        assert json.loads(await play.receive_from(TIMEOUT))["type"] == "ack"
    await play.disconnect()
    await asyncio.sleep(0.6)  # the trailing progress frames
    for name, sock in socks.items():
        collected += [(name, text, True) for text in await drain(sock)]
    for client in (*racers, second):
        got = await call(lambda c=client: c.get(f"/api/races/{slug}/"))
        collected.append(("GET while running", got.content.decode(), True))

    assert secrets, "the racers' games hid no card: nothing was tested"
    progress = 0
    for where, text, started_yet in collected:
        body = json.loads(text)
        if "type" in body:
            check_frame(body, where, started=started_yet)
            progress += body["type"] == "progress"
        else:
            check_race(body, where, started=started_yet)
        assert not CARD.findall(text), (where, text)  # not even in the raw bytes
    assert progress > 0, "no progress frame was seen: nothing was tested"
    for sock in socks.values():
        await sock.disconnect()
