"""End to end: two real daphne processes on one PostgreSQL database and one Redis.

The production shape (``games/websocket.md``: "any number of daphne processes:
groups span them through Redis"), built for real: a fresh database
``patience_e2e_<random>`` migrated with ``manage.py migrate``, a ``redis-server``
of its own, and two daphnes A and B on free ports. Clients talk plain HTTP (``deploy/client.py``:
cookies and the ``X-CSRFToken`` header) and real websockets (``websockets`` sync
client).

A player P plays a winnable Seahaven deal over A's game socket while a
spectator S watches on B and a leaderboard subscriber listens on B. Half way, A
is killed with SIGKILL right after an action is sent (its fate unknown to the
client), started again on the same port, and P reconnects, resends the
in-flight action with the same ``seq`` and plays on to the win. Then: the game
(read through B), its replay and the database's action log hold the winning
line exactly once; S saw every version in order (healing a gap with a snapshot
if the kill lost one); a ranked daily resigned through the restarted A reaches
B's leaderboard subscriber.

This test does not use pytest-django's test database: the servers are other
processes, so it makes (and drops) its own.
"""

from __future__ import annotations

import datetime as dt
import json
import secrets
import time
from pathlib import Path
from typing import Any

import psycopg
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus
from websockets.sync.client import ClientConnection

from deploy.client import Client
from games.engine import new_game
from tests.support.api import requires_postgres, requires_redis
from tests.support.daphne import two_daphnes
from tests.support.players import WAIT, Player, close_quietly, messages, open_socket, sign_up
from tests.support.search import find_win

pytestmark = [requires_postgres, requires_redis]

CODE = "SH1-C4-AAAAAAE"  # a Seahaven deal that can be won
VARIANT = "SH1-C4"


# --- websockets --------------------------------------------------------------------


class Spectator:
    """A watcher keeping the highest ``v`` (websocket.md, Versions): a ``state``
    more than one above it means an event was lost, healed with a snapshot."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.v = 0
        self.states: list[int] = []  # every state event's v, as received
        self.healed: list[tuple[int, int]] = []  # (v before, snapshot v) after a gap
        self.covered: set[int] = set()  # versions seen, by an event or a snapshot

    def first_snapshot(self) -> dict[str, Any]:
        message = next(messages(self.ws, "spectator snapshot"))
        assert message["type"] == "snapshot", message
        self.v = message["v"]
        return message

    def sync_to(self, target: int, *, heal: bool) -> None:
        """Read until version ``target`` is known; a gap fails unless ``heal``."""
        if self.v >= target:
            return
        asked = False
        for message in messages(self.ws, f"spectator v {target} (at v {self.v})"):
            kind = message["type"]
            if kind == "state":
                v = message["v"]
                self.states.append(v)
                if v > self.v + 1 and not asked:
                    assert heal, f"spectator missed versions {self.v + 1}..{v - 1}"
                    self.ws.send(json.dumps({"type": "snapshot"}))
                    asked = True
                if v == self.v + 1:
                    self.covered.add(v)
                    self.v = v
            elif kind == "snapshot":
                assert asked, f"a snapshot nobody asked for: {message}"
                asked = False
                if message["v"] > self.v:
                    self.healed.append((self.v, message["v"]))
                    self.covered.update(range(self.v + 1, message["v"] + 1))
                    self.v = message["v"]
            else:
                raise AssertionError(f"spectator got {message}")
            if self.v >= target and not asked:
                return


def reconnect(port: int, path: str, browser: Client) -> ClientConnection:
    """Connect again, retrying until the restarted server takes it."""
    limit = time.monotonic() + WAIT
    while True:
        try:
            return open_socket(port, path, browser)
        except (OSError, InvalidHandshake, TimeoutError) as exc:
            if isinstance(exc, InvalidStatus) and exc.response.status_code == 403:
                raise  # a refusal, not a server still starting
            if time.monotonic() > limit:
                raise AssertionError(f"could not reconnect to :{port} within {WAIT} s") from exc
            time.sleep(0.1)


# --- the test ----------------------------------------------------------------------


def test_two_daphnes_kill_one_mid_game(tmp_path: Path) -> None:
    line = find_win(CODE)
    assert line is not None, f"the search found no win for {CODE}"
    winning = [action.to_json() for action in line]
    half = len(winning) // 2
    assert 2 <= half < len(winning) - 1

    sockets: list[ClientConnection] = []
    with two_daphnes(tmp_path) as (a, b):
        try:
            # 2. P on A starts a practice game; S and T sign up on B.
            tag = secrets.token_hex(3)
            p = sign_up(f"p_{tag}", a.port)
            s = sign_up(f"s_{tag}", b.port)
            t = sign_up(f"t_{tag}", b.port)
            game = p.expect("POST", "/api/games/", {"code": CODE}, status=201)
            game_id = game["id"]
            assert game["status"] == "playing" and game["seq"] == 0 and game["ranked"] is False
            game_path = f"/ws/games/{game_id}/"
            today = dt.datetime.now(dt.UTC).date().isoformat()

            # 3. P's socket on A; S's socket and a leaderboard subscriber on B.
            p_ws = open_socket(a.port, game_path, p)
            sockets.append(p_ws)
            player = Player(p_ws)
            assert player.snapshot()["v"] == 0
            s_ws = open_socket(b.port, game_path, s)
            sockets.append(s_ws)
            watcher = Spectator(s_ws)
            assert watcher.first_snapshot()["v"] == 0
            board_ws = open_socket(b.port, f"/ws/leaderboard/{today}/{VARIANT}/", None)
            sockets.append(board_ws)
            subscribed = next(messages(board_ws, "subscribed"))
            assert subscribed == {"type": "subscribed", "date": today, "variant": VARIANT}

            # 4. The first half, each action acknowledged; S sees v = 1, 2, … from B.
            for seq in range(half):
                player.play(seq, winning[seq])
                watcher.sync_to(seq + 1, heal=False)
            assert watcher.states == list(range(1, half + 1))

            # 5. A dies with an action in flight; P reconnects to the restarted A and
            # resends it with the same seq: applied once, whatever happened.
            def crash_and_resume(seq: int, *, committed: bool) -> bool:
                """Send action ``seq`` and SIGKILL A: at once (``committed`` False: its
                fate unknown), or once B has broadcast its commit but before P read
                the ack. Returns whether it had been applied before the kill."""
                nonlocal p_ws, player
                player.send(seq, winning[seq])
                if committed:
                    watcher.sync_to(seq + 1, heal=False)
                a.kill()
                close_quietly(p_ws)
                sockets.remove(p_ws)
                a.start()
                a.wait_until_up()
                p_ws = reconnect(a.port, game_path, p)
                sockets.append(p_ws)
                player = Player(p_ws)
                v = player.snapshot()["v"]
                assert v in (seq, seq + 1), f"snapshot v {v} after sending seq {seq}"
                assert v == seq + 1 or not committed, f"B showed v {seq + 1}, A's snapshot {v}"
                applied = v == seq + 1
                player.send(seq, winning[seq])  # the same seq again: applied at most once
                ack = player.ack(seq)
                assert ack["duplicate"] is applied, (v, ack)
                assert ack["v"] == seq + 1 and ack["game"]["seq"] == seq + 1, ack
                # An older action resent is acknowledged as a duplicate too, changing nothing.
                player.send(seq - 1, winning[seq - 1])
                again = player.ack(seq - 1)
                assert again["duplicate"] is True, again
                assert again["v"] == seq + 1 and again["game"]["seq"] == seq + 1, again
                watcher.sync_to(seq + 1, heal=True)
                return applied

            applied = crash_and_resume(half, committed=False)
            later = (half + len(winning)) // 2
            for seq in range(half + 1, later):
                player.play(seq, winning[seq])
                watcher.sync_to(seq + 1, heal=True)
            assert crash_and_resume(later, committed=True) is True
            print(f"in flight at the first kill: applied {applied}; healed {watcher.healed}")

            # The rest of the line, through the restarted A, to the win.
            for seq in range(later + 1, len(winning)):
                last = player.play(seq, winning[seq])
                watcher.sync_to(seq + 1, heal=True)
            assert last["game"]["status"] == "won" and last["game"]["score"] == 520, last["game"]

            # 6. Read back through B: won, the replay is exactly the line, once.
            final = p.at(b.port).expect("GET", f"/api/games/{game_id}/")
            assert final["status"] == "won" and final["won"] is True
            assert final["score"] == 520 and final["seq"] == len(winning)
            replay = p.at(b.port).expect("GET", f"/api/games/{game_id}/replay/")
            assert replay["actions"] == winning
            assert len(replay["log"]) == len(winning) and replay["log"][-1]["score"] == 520
            # S: versions strictly increasing, every one of 1..N seen (or healed by a snapshot).
            assert watcher.states == sorted(set(watcher.states)), watcher.states
            assert watcher.covered == set(range(1, len(winning) + 1)), watcher.healed
            assert watcher.v == len(winning)
            with psycopg.connect(
                a.env["DATABASE_URL"].replace("postgres://", "postgresql://"), connect_timeout=5
            ) as c:
                count, distinct, low, high = c.execute(
                    "SELECT count(*), count(DISTINCT seq), min(seq), max(seq)"
                    " FROM games_action WHERE attempt_id = %s",
                    [game_id],
                ).fetchone()
            assert (count, distinct, low, high) == (len(winning), len(winning), 0, len(winning) - 1)

            # 7. T's ranked daily: started on B, resigned through the restarted A; the
            # subscriber on B hears of it (A → Redis → B).
            daily = t.at(b.port).expect("POST", "/api/games/", {"daily": VARIANT}, status=201)
            assert daily["ranked"] is True and daily["daily"] == today
            resigned = t.at(a.port).expect("POST", f"/api/games/{daily['id']}/resign/")
            assert resigned["status"] == "resigned"
            for message in messages(board_ws, f"leaderboard rows for {t.username}"):
                assert message["type"] == "rows", message
                mine = [row for row in message["rows"] if row["player"] == t.username]
                if mine:
                    break
            assert message["date"] == today and message["variant"] == VARIANT
            assert message["count"] >= 1
            row = mine[0]
            assert row["status"] == "resigned" and row["won"] is False and row["rank"] >= 1
            assert row["replay"] is None
        except ConnectionClosed as exc:
            logs = f"--- A ---\n{a.tail()}\n--- B ---\n{b.tail()}"
            raise AssertionError(f"a socket closed unexpectedly: {exc!r}\n{logs}") from exc
        finally:
            for ws in sockets:
                close_quietly(ws)


def test_a_game_played_through_both_daphnes_in_turn_is_never_served_stale(
    tmp_path: Path,
) -> None:
    """Each process keeps the games it played (``games.services.GameCache``). P
    plays one game over a socket on A and one on B in turn, so each process's
    cached game is one action behind at every action it gets: every answer
    must still be the engine's position after the whole line so far."""
    line = find_win(CODE)
    assert line is not None, f"the search found no win for {CODE}"
    sockets: list[ClientConnection] = []
    with two_daphnes(tmp_path) as (a, b):
        try:
            p = sign_up(f"p_{secrets.token_hex(3)}", a.port)
            game_id = p.expect("POST", "/api/games/", {"code": CODE}, status=201)["id"]
            players = []
            for daphne in (a, b):
                sockets.append(open_socket(daphne.port, f"/ws/games/{game_id}/", p))
                players.append(Player(sockets[-1]))
                players[-1].snapshot()
            expected = new_game(CODE)
            for seq, action in enumerate(line):
                ack = players[seq % 2].play(seq, action.to_json())
                expected.apply(action)
                view = {k: v for k, v in ack["game"]["view"].items() if k != "targets"}
                assert view == expected.view(), f"seq {seq} through {'AB'[seq % 2]}"
            assert ack["game"]["status"] == "won"
            # Read back through each process: the stored game, not a cached one.
            for daphne in (a, b):
                assert p.at(daphne.port).expect("GET", f"/api/games/{game_id}/")["seq"] == len(line)
        finally:
            for ws in sockets:
                close_quietly(ws)
