"""End to end (issue 29): a race on two real daphnes sharing one PostgreSQL and
one Redis (``tests/support/daphne.py``'s ``two_daphnes``).

The host opens a room on A and plays a winnable Seahaven deal on A's game
socket; the rival joins on B, follows the room on B's race socket and leaves;
a spectator, signed out, follows on B. What it shows that only real processes
show: every racer's game starts at the one server instant ``starts_at``; the
progress of actions committed on A reaches B's sockets through Redis,
coalesced by a gate both processes share (at most one frame a racer per
500 ms, counted from when they arrive), with the last progress always
arriving (its trailing frame sent by A's timer thread); the finish order and
the standings reach every socket; the replays open after the end; a reconnect
on B keeps the racer's place."""

from __future__ import annotations

import datetime as dt
import time
from pathlib import Path
from typing import Any

from tests.support.api import requires_postgres, requires_redis
from tests.support.daphne import two_daphnes
from tests.support.players import WAIT, Player, close_quietly, messages, open_socket, sign_up
from tests.support.search import find_win

pytestmark = [requires_postgres, requires_redis]

CODE = "SH1-C4-AAAAAAE"


def until(ws: Any, what: str, test: Any, seen: list[tuple[float, dict[str, Any]]]) -> dict:
    for message in messages(ws, what, wait=WAIT + 10):
        seen.append((time.monotonic(), message))
        if test(message):
            return message
    raise AssertionError("unreachable")


def test_a_race_across_two_daphnes(tmp_path: Path) -> None:
    line = find_win(CODE)
    assert line is not None
    winning = [action.to_json() for action in line]
    with two_daphnes(tmp_path) as (a, b):
        host = sign_up("racehost", a.port)
        rival = sign_up("racerival", b.port)
        race = host.expect("POST", "/api/races/", {"code": CODE}, status=201)
        slug = race["id"]
        sockets = []
        try:
            watch = open_socket(b.port, f"/ws/races/{slug}/", None)
            theirs = open_socket(b.port, f"/ws/races/{slug}/", rival)
            sockets += [watch, theirs]
            watched: list[tuple[float, dict[str, Any]]] = []
            first = until(watch, "race", lambda m: m["type"] == "race", watched)
            assert first["race"]["code"] is None and first["race"]["you"]["racer"] is False
            rival.expect("POST", f"/api/races/{slug}/join/")
            started = host.expect("POST", f"/api/races/{slug}/start/")
            mine = started["you"]["attempt"]
            start = until(watch, "start", lambda m: m["type"] == "start", watched)
            assert start["attempt"] is None and start["starts_at"] == started["starts_at"]
            theirs_seen: list[tuple[float, dict[str, Any]]] = []
            own = until(theirs, "start", lambda m: m["type"] == "start", theirs_seen)
            assert own["attempt"] not in (None, mine)
            game = host.expect("GET", f"/api/games/{mine}/")
            rivals = rival.expect("GET", f"/api/games/{own['attempt']}/")
            assert game["started_at"] == rivals["started_at"] == started["starts_at"]
            # The countdown: wait it out (the server refuses a move before it).
            starts = dt.datetime.fromisoformat(started["starts_at"].replace("Z", "+00:00"))
            assert host.request(
                "POST", f"/api/games/{mine}/actions/", {"seq": 0, "action": winning[0]}
            ).status in (200, 409)
            while dt.datetime.now(dt.UTC) < starts + dt.timedelta(milliseconds=100):
                time.sleep(0.1)
            done = host.request("GET", f"/api/games/{mine}/").body["seq"]

            play = Player(open_socket(a.port, f"/ws/games/{mine}/", host))
            sockets.append(play.ws)
            play.snapshot()
            began = time.monotonic()
            for seq in range(done, len(winning) - 1):
                play.play(seq, winning[seq])
            moves = len(winning) - 1
            last = until(
                watch,
                "the last progress",
                lambda m: m["type"] == "progress" and m["racers"][0]["progress"]["moves"] == moves,
                watched,
            )
            assert last["racers"][0]["player"] == "racehost"
            progress = [(t, m) for t, m in watched if m["type"] == "progress"]
            # One frame a racer per 500 ms gate, plus the trailing one.
            arrivals = [t for t, _ in progress]
            spread = arrivals[-1] - began
            assert len(progress) <= int(spread / 0.5) + 2, (len(progress), spread)
            assert len(progress) < moves - done

            # A reconnect on B keeps the rival's place.
            close_quietly(theirs)
            again = open_socket(b.port, f"/ws/races/{slug}/", rival)
            sockets.append(again)
            snapshot = until(again, "race", lambda m: m["type"] == "race", [])
            assert snapshot["race"]["you"]["attempt"] == own["attempt"]
            assert snapshot["race"]["racers"][0]["progress"]["moves"] == moves

            play.play(moves, winning[-1])  # the win, on A
            until(
                watch,
                "the win",
                lambda m: m["type"] == "race" and m["race"]["racers"][0]["status"] == "won",
                watched,
            )
            rival.expect("POST", f"/api/races/{slug}/leave/")
            over = until(
                again,
                "the end",
                lambda m: m["type"] == "race" and m["race"]["status"] == "finished",
                [],
            )
            assert [(r["player"], r["place"], r["status"]) for r in over["race"]["racers"]] == [
                ("racehost", 1, "won"),
                ("racerival", 2, "left"),
            ]
            replay = rival.expect("GET", f"/api/games/{mine}/replay/")
            assert replay["won"] is True
        finally:
            for ws in sockets:
                close_quietly(ws)
