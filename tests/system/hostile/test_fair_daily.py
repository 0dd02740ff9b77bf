"""Issue 13, attacking the daily deal (PRODUCT.md, "Fair daily deals", "Anti-cheat").

Played as an attacker with any number of accounts, reading every byte we send:

(a) a running daily played and watched over HTTP and websockets by its player,
    a spectator who won it, a player who resigned at once, and anonymous
    visitors: no answer, frame or page carries its code or key, and no view
    shows a card the viewer has not uncovered in their own game;
(b) the enumeration attack that broke numbered dailies — index numbered deals
    by their face-up cards — finds the numbered deal it is given (the attack is
    real) and nothing for a running daily;
(d) after the day, anyone checks it: sha256 of the revealed code is the
    commitment published during the day, and the proof replays to a win with
    the engine's command line;
(f) a second account that resigns at once reads no replay, watches no live
    game and gets no practice copy of the running daily (HTTP and websocket),
    while a winner can watch it.

The fair-play review's attacks (c, e) are in ``test_fairplay_bot.py``.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import random
import subprocess
import sys
from typing import Any

import pytest
from asgiref.sync import sync_to_async

from games.dailies import Effort, daily_deal_prepare, utc_today
from games.engine import GameCode, new_game
from games.models import Attempt, DailyDeal
from tests.support.api import Client, assert_error, legacy_daily_practice
from tests.support.hidden import (
    Wire,
    check_cardless,
    check_hidden,
    check_view,
    engine_state,
    prepared,
)
from tests.support.sockets import socket_for

TIMEOUT = 10


async def call(wire: Wire, where: str, method: Any, *args: Any) -> Any:
    return wire.http(where, await sync_to_async(method)(*args))


async def receive(wire: Wire, sock: Any, where: str) -> dict[str, Any]:
    return wire.frame(where, await sock.receive_from(timeout=TIMEOUT))


async def open_socket(wire: Wire, path: str, client: Client, where: str) -> tuple[Any, dict]:
    sock = socket_for(path, client)
    connected, _ = await sock.connect()
    assert connected, path
    return sock, await receive(wire, sock, where)


async def closed_with(sock: Any) -> int:
    out = await sock.receive_output(timeout=TIMEOUT)
    assert out["type"] == "websocket.close", out
    return out["code"]


def legal(game_state: Any, rng: random.Random) -> dict[str, Any]:
    targets = game_state.targets_json()
    if not targets or rng.random() < 0.3:
        return {"type": "stock"}
    move = rng.choice(targets)
    return {"type": "move", "from": move["from"], "to": move["to"][0], "count": move["count"]}


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)  # socket handlers run on threads of their own
async def test_a_running_daily_is_never_named_nor_its_hidden_cards_shown(make_player):
    """(a) and (f): every byte to every role, and who may see what."""
    wire = Wire()
    daily = await sync_to_async(prepared)("EH1-N")
    await sync_to_async(prepared)("SH1-C4")
    make = sync_to_async(make_player)
    player, winner, quitter, anon = await make(), await make(), await make(), Client()
    today = utc_today().isoformat()
    rng = random.Random(13)

    # The quitter: a second account that resigns at once, then tries everything.
    quit_game = (await call(wire, "start", quitter.send, "/api/games/", {"daily": "EH1-N"})).json()
    await call(wire, "resign", quitter.send, f"/api/games/{quit_game['id']}/resign/")

    # The player: the ranked daily over HTTP, then over the play socket.
    game = (await call(wire, "start", player.send, "/api/games/", {"daily": "EH1-N"})).json()
    gid = game["id"]
    assert game["code"] is None and game["view"]["code"] is None
    assert game["view"]["daily"] == {"date": today, "variant": "EH1-N"}
    for _ in range(15):
        state = await sync_to_async(engine_state)(gid)
        body = {"seq": game["seq"], "action": legal(state, rng)}
        response = await call(wire, "action", player.send, f"/api/games/{gid}/actions/", body)
        game = response.json()
        state = await sync_to_async(engine_state)(gid)
        check_view(game["view"], state, owner_playing=True, where="http action")
        check_hidden(game, state, "http action")

    play, snapshot = await open_socket(wire, f"/ws/games/{gid}/", player, "play socket")
    check_hidden(snapshot, await sync_to_async(engine_state)(gid), "snapshot")

    # The winner: wins the daily on the socket, then watches the player live.
    won = (await call(wire, "start", winner.send, "/api/games/", {"daily": "EH1-N"})).json()
    wsock, _ = await open_socket(wire, f"/ws/games/{won['id']}/", winner, "winner's socket")
    for seq, action in enumerate(daily.proof):
        await wsock.send({"type": "action", "seq": seq, "action": action})
        while (reply := await receive(wire, wsock, "winner's socket"))["type"] != "ack":
            pass
    assert reply["game"]["won"] is True and reply["game"]["code"] is None
    await wsock.disconnect()
    watch, first = await open_socket(wire, f"/ws/games/{gid}/", winner, "winner watching")
    assert first["type"] == "snapshot" and first["game"]["code"] is None

    # The player moves on the socket: its acks; the spectator hears every move.
    for _ in range(15):
        state = await sync_to_async(engine_state)(gid)
        await play.send({"type": "action", "seq": game["seq"], "action": legal(state, rng)})
        while (reply := await receive(wire, play, "play socket"))["type"] != "ack":
            pass
        game = reply["game"]
        state = await sync_to_async(engine_state)(gid)
        check_hidden(reply, state, "ack")
        event = await receive(wire, watch, "spectator")
        while event.get("v") != game["seq"]:
            event = await receive(wire, watch, "spectator")
        check_view(event["game"]["view"], state, owner_playing=False, where="spectator")
        check_hidden(event, state, "spectator")
    await play.disconnect()
    await watch.disconnect()

    # (f) The quitter can read nothing of the running daily, over HTTP or socket...
    for target in (gid, won["id"], quit_game["id"]):
        response = await call(wire, "quitter replay", quitter.get, f"/api/games/{target}/replay/")
        assert response.status_code == 403 and response.json()["error"]["code"] == "spoiler"
        check_cardless(response.json(), "quitter replay")
    live = (await call(wire, "quitter live", quitter.get, "/api/live/")).json()
    assert gid not in {g["id"] for g in live}
    sock, said = await open_socket(wire, f"/ws/games/{gid}/", quitter, "quitter watching")
    assert said["type"] == "error" and said["error"]["code"] == "spoiler", said
    assert await closed_with(sock) == 4403
    board = f"/api/leaderboard/{today}/EH1-N/"
    rows = (await call(wire, "quitter board", quitter.get, board)).json()
    assert rows["replays_open"] is False and rows["replays_closed_reason"]
    assert all(row["replay"] is None for row in rows["results"]) and rows["results"]
    # ...and gets no practice copy of the deal to learn it with undo (issue 36).
    practice = await call(
        wire, "practice", quitter.send, "/api/games/", {"daily": "EH1-N", "practice": True}
    )
    assert_error(practice, 409, "daily_running")
    # A practice game of it dealt before that rule keeps the daily's: no code, and
    # its replay stays closed to the quitter too.
    old = await sync_to_async(legacy_daily_practice)(quitter, "EH1-N")
    assert old["ranked"] is False and old["code"] is None
    assert old["view"]["daily"] == {"date": today, "variant": "EH1-N"}
    await call(wire, "resign practice", quitter.send, f"/api/games/{old['id']}/resign/")
    response = await call(wire, "own practice", quitter.get, f"/api/games/{old['id']}/replay/")
    assert response.status_code == 403

    # The winner may: replays (without the code), the live list, the board's links.
    replay = await call(
        wire, "winner replay", winner.get, f"/api/games/{won['id']}/replay/?positions=1"
    )
    assert replay.status_code == 200
    body = replay.json()
    assert body["code"] is None and body["deal"]["code"] is None
    assert body["deal"]["daily"] == {"date": today, "variant": "EH1-N"}
    assert all(p["code"] is None for p in body["positions"])
    assert gid in {
        g["id"] for g in (await call(wire, "winner live", winner.get, "/api/live/")).json()
    }
    rows = (await call(wire, "winner board", winner.get, board)).json()
    assert rows["replays_open"] is True and all(r["replay"] for r in rows["results"])

    # Everyone's lists and pages (the pages are shells: their data comes from the API).
    for who, client in (("anonymous", anon), ("quitter", quitter), ("player", player)):
        for path in (
            "/api/daily/",
            f"/api/daily/{today}/",
            board,
            f"/api/players/{player.username}/",
        ):
            response = await call(wire, f"{who} {path}", client.get, path)
            assert response.status_code == 200, response.content
            check_cardless(response.json(), path)
        for path in ("/", f"/leaderboard/{today}/EH1-N/", f"/play/{gid}/", f"/watch/{gid}/"):
            await call(wire, f"{who} page {path}", client.get, path)
    daily_list = (await call(wire, "daily", anon.get, "/api/daily/")).json()
    entry = next(d for d in daily_list["deals"] if d["variant"] == "EH1-N")
    assert "code" not in entry and "proof" not in entry
    assert entry["commitment"] == hashlib.sha256(daily.deal.code.encode()).hexdigest()
    assert entry["par"] == len(daily.proof)

    wire.assert_never_named(daily)
    assert len(wire.received) > 100


def fingerprint(view: dict[str, Any]) -> tuple[Any, ...]:
    """What the first view of an Easy Harp deal shows: each column's face-up cards."""
    return tuple(tuple(view["piles"][t][view["down"][t] :]) for t in sorted(view["down"]))


def test_indexing_numbered_deals_by_their_face_up_cards_finds_no_running_daily(make_player):
    """(b) The attack that broke numbered dailies: deal numbered Easy Harp deals,
    index them by the face-up cards of their first view, look the daily up. The
    test samples 20 000 of the 999 999 deals (all of them take about a minute);
    every deal in the sample is told apart by its face-up cards, so a numbered
    daily in the sample would be found — the daily is a long-code deal, outside
    the numbered deals altogether."""
    daily = prepared("EH1-N")
    player = make_player()
    first = player.send("/api/games/", {"daily": "EH1-N"}).json()
    rng = random.Random(2026)
    numbers = rng.sample(range(1, 1_000_000), 20_000)
    index: dict[tuple[Any, ...], int] = {}
    for number in numbers:
        index[fingerprint(new_game(GameCode("EH1", "N", number)).view())] = number
    assert len(index) == len(numbers), "two numbered deals share their face-up cards"

    # The attack works on a numbered deal: its first view, as served, finds it.
    victim = numbers[1234]
    practice = player.send("/api/games/", {"code": str(GameCode("EH1", "N", victim))}).json()
    assert index.get(fingerprint(practice["view"])) == victim
    # A running daily matches none, and its code is not a numbered deal's.
    assert fingerprint(first["view"]) not in index
    assert GameCode.parse(daily.deal.code).long


def test_anyone_checks_a_past_day_with_the_engine_command_line(make_player, anon):
    """(d) Commit during the day, reveal after it: the code revealed hashes to the
    commitment published while the day ran, the engine deals it, and the proof
    replays to a win with ``python -m games.engine replay``."""
    today = utc_today()
    dailies = [prepared("EH1-N"), prepared("SH1-C4")]
    hopeless = Effort(nodes=1, candidates=2, seconds=60)
    daily_deal_prepare(date=today, variant="SH1-C2", effort=hopeless)  # nothing proven
    during = anon.get(f"/api/daily/{today}/").json()
    assert during["over"] is False
    committed = {d["variant"]: d["commitment"] for d in during["deals"]}
    assert all("code" not in d and "proof" not in d for d in during["deals"])

    # The day goes by.
    yesterday = today - dt.timedelta(days=1)
    DailyDeal.objects.filter(date=today).update(date=yesterday)
    after = anon.get(f"/api/daily/{yesterday}/")
    assert after.status_code == 200, after.content
    revealed = {d["variant"]: d for d in after.json()["deals"]}
    assert after.json()["over"] is True
    for daily in dailies:
        entry = revealed[daily.variant]
        code = entry["code"]
        assert hashlib.sha256(code.encode()).hexdigest() == committed[daily.variant]
        assert entry["commitment"] == committed[daily.variant]
        assert entry["par"] == len(entry["proof"])
        dealt = subprocess.run(
            [sys.executable, "-m", "games.engine", "deal", code],
            capture_output=True,
            text=True,
            check=False,
        )
        assert dealt.returncode == 0, dealt.stderr
        assert json.loads(dealt.stdout)["code"] == code
        lines = "".join(json.dumps(action) + "\n" for action in entry["proof"])
        replayed = subprocess.run(
            [sys.executable, "-m", "games.engine", "replay", code],
            input=lines,
            check=False,
            capture_output=True,
            text=True,
        )
        assert replayed.returncode == 0, replayed.stderr
        final = json.loads(replayed.stdout)
        assert final["won"] is True and final["moves"] == entry["par"]
    unproven = revealed["SH1-C2"]
    assert unproven["proven"] is False and unproven["proof"] is None and unproven["par"] is None
    assert hashlib.sha256(unproven["code"].encode()).hexdigest() == committed["SH1-C2"]

    # The day's games now show their code to everyone.
    player = make_player()
    assert Attempt.objects.count() == 0
    DailyDeal.objects.filter(date=yesterday).update(date=today)
    game = player.send("/api/games/", {"daily": "EH1-N"}).json()
    assert game["code"] is None
    DailyDeal.objects.filter(date=today).update(date=yesterday)
    shown = player.get(f"/api/games/{game['id']}/").json()
    assert shown["code"] == revealed["EH1-N"]["code"] == shown["view"]["code"]


@pytest.mark.parametrize(
    ("path", "status", "code"),
    [
        ("/api/daily/2026-13-01/", 400, "bad_date"),
        ("/api/daily/20261201/", 400, "bad_date"),
        ("/api/daily/yesterday/", 400, "bad_date"),
        ("/api/daily/9999-12-31/", 404, "no_daily"),
        ("/api/daily/2001-01-01/", 404, "no_daily"),
    ],
)
def test_bad_days_get_the_error_shape(anon, path, status, code):
    assert_error(anon.get(path), status, code)


def test_tomorrow_is_not_published(anon):
    tomorrow = utc_today() + dt.timedelta(days=1)
    prepared("SH1-C4", tomorrow)
    assert_error(anon.get(f"/api/daily/{tomorrow}/"), 404, "no_daily")


@pytest.mark.parametrize(
    "code",
    [
        "EH1-N-AAAAAAAAAAAAAAAAAAAAAAAAA1",  # a 1 is no deal digit
        "EH1-N-IAAAAAAAAAAAAAAAAAAAAAAAAA",  # 2^128 and above
        "EH1-N-AAAAAAAAAAAAAAAAAAAAAAAAAA",  # key 0
        "EH1-N-AAAAAAAAAAAAAAAAAAAAAAAAAAA",  # 27 characters
        "SH1-C4-AAAAAAAAAAAAAAAAAAAAAAAAA",  # 25 characters
    ],
)
def test_bad_long_codes_are_refused_clearly(player, code):
    error = assert_error(player.send("/api/games/", {"code": code}), 400, "bad_code")
    assert "deal" in error["message"].lower()
    assert Attempt.objects.count() == 0


def test_no_practice_of_the_daily_while_its_day_runs(player):
    prepared("SH1-C4")
    body = {"daily": "SH1-C4", "practice": True}
    assert_error(player.send("/api/games/", body), 409, "daily_running")
    assert_error(player.send("/api/games/", {"random": "SH1-C4", "practice": True}), 400)
    assert_error(player.send("/api/games/", {"daily": "SH1-C4", "practice": 1}), 400)
    assert not Attempt.objects.exists()
