"""A database stall behind PgBouncer (issue 25): the production process set
(``deploy/stack.py --pgbouncer``) with a few players at work, then PgBouncer's
admin console ``PAUSE``: the TCP connections stay up, PgBouncer takes every
query and holds it, and no PostgreSQL timeout can fire on a query that never
reached PostgreSQL. ``tests/system/faults/test_database_away.py`` is the other case,
the database gone (connections refused).

Three players play over HTTP and three over their game sockets, each one
action in flight, retrying an ``unavailable`` refusal with the same ``seq``
(what the client does). During the pause, every request and frame sent is
answered within ``BOUND`` seconds — a 503 with ``Retry-After`` (an ``error``
frame on a socket) or success — not held for the whole stall; ``/readyz``
says 503 within the same bound, ``/livez`` 200; a game socket opened in the
pause is told why and closed with 4503 (try again later). After ``RESUME``:
``/readyz`` 200 and every player's retries succeed. Nothing is lost or
doubled: every acknowledged ``seq`` is one row, as sent, and no row was not
acknowledged.

Before the fix, every request of the pause hung until ``RESUME`` and
``/readyz`` answered 200 then (the issue measured 30 s; here the pause is
``PAUSE_S``, longer than ``BOUND``).
"""

from __future__ import annotations

import json
import random
import secrets
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psycopg
import pytest
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus

from deploy.client import Client
from deploy.processes import PGBOUNCER
from deploy.stack import Stack
from tests.support.api import requires_postgres, requires_redis
from tests.support.players import close_quietly, open_socket, sign_up
from tests.support.stack import throwaway_stack

pytestmark = [
    requires_postgres,
    requires_redis,
    pytest.mark.skipif(not Path(PGBOUNCER).exists(), reason="no pgbouncer (apt install)"),
]

PAUSE_S = 12.0  # the stall; longer than BOUND, so a request held through it fails
BOUND = 10.0  # every answer during the stall comes within this (generous: ~5 s expected)
PLAYERS = 6  # half over HTTP, half over their game sockets
WARM = 3  # acks each player has before the stall, and must have after it
WAIT = 60.0  # bound of the phases (warming up, recovering)
CLOSE_UNAVAILABLE = 4503  # games/websocket.md
REFUSED_NOT_CHANGED = {"server_error", "seq_conflict", "finished", "throttled", "not_yours"}
"""Error codes no player here may meet (the engine's refusals are expected)."""


@dataclass
class Player:
    number: int
    browser: Client
    attempt_id: int
    game: dict[str, Any]
    over_socket: bool
    rng: random.Random
    acked: dict[int, dict[str, Any]] = field(default_factory=dict)  # seq → action sent
    answers: list[tuple[float, float, str]] = field(default_factory=list)  # sent, took, what
    unexpected: list[str] = field(default_factory=list)
    undoable: int = 0
    refusals: int = 0

    def choose(self) -> dict[str, Any]:
        view = self.game["view"]
        if self.undoable and (self.refusals > 2 or not view["targets"]):
            return {"type": "undo"}
        if view["code"].startswith("EH1") and (self.rng.random() < 0.3 or not view["targets"]):
            return {"type": "stock"}
        target = self.rng.choice(view["targets"])
        return {
            "type": "move",
            "from": target["from"],
            "to": self.rng.choice(target["to"]),
            "count": target["count"],
        }

    def accepted(self, seq: int, action: dict[str, Any], game: dict[str, Any]) -> None:
        if game["seq"] != seq + 1:
            self.unexpected.append(f"seq {seq} answered at seq {game['seq']}")
        if seq in self.acked:
            self.unexpected.append(f"seq {seq} acknowledged twice")
        self.acked[seq] = action
        self.undoable += -1 if action["type"] == "undo" else 1
        self.game, self.refusals = game, 0


class Stall:
    def __init__(self, stack: Stack) -> None:
        self.stack = stack
        self.port = stack.ports[0]
        self.players: list[Player] = []
        self.stop = threading.Event()
        self.stalled = (0.0, 0.0)  # monotonic times of PAUSE done and RESUME sent
        self.resumed = threading.Event()

    def sign_up(self) -> None:
        tag = secrets.token_hex(3)
        for n in range(PLAYERS):
            browser = sign_up(f"stall{n}_{tag}", self.port)
            browser.timeout = 3 * PAUSE_S  # a request held through the stall is measured, not cut
            game = browser.expect("POST", "/api/games/", {"random": "EH1-N", "any": True}, 201)
            rng = random.Random(2500 + n)
            self.players.append(Player(n, browser, game["id"], game, n % 2 == 1, rng))

    # --- players --------------------------------------------------------------------

    def play_http(self, player: Player) -> None:
        path = f"/api/games/{player.attempt_id}/actions/"
        while not self.stop.is_set():
            seq, action = player.game["seq"], player.choose()
            while not self.stop.is_set():
                sent = time.monotonic()
                answer = player.browser.request("POST", path, {"seq": seq, "action": action})
                code = answer.body.get("error", {}).get("code") if answer.status >= 400 else ""
                player.answers.append((sent, time.monotonic() - sent, f"{answer.status} {code}"))
                if answer.status == 200:
                    player.accepted(seq, action, answer.body)
                    break
                if answer.status == 503 and code == "unavailable":
                    if not answer.headers.get("Retry-After"):
                        player.unexpected.append(f"503 without Retry-After: {answer.body}")
                    time.sleep(0.3)  # the client's retry, the same seq (sooner than Retry-After)
                    continue
                if answer.status in (400, 422):  # the engine refused it: nothing changed
                    player.refusals += 1
                    break
                player.unexpected.append(f"seq {seq}: {answer.status} {answer.body}")
                return

    def play_socket(self, player: Player) -> None:
        path = f"/ws/games/{player.attempt_id}/"
        ws = None
        try:
            while not self.stop.is_set():
                if ws is None:
                    ws = self.connect(player, path)
                    if ws is None:
                        continue
                seq, action = player.game["seq"], player.choose()
                while not self.stop.is_set():
                    sent = time.monotonic()
                    try:
                        ws.send(json.dumps({"seq": seq, "action": action}))
                        reply = self.answer_to(ws, seq)
                    except ConnectionClosed:
                        close_quietly(ws)
                        ws = None
                        while ws is None and not self.stop.is_set():
                            ws = self.connect(player, path)
                        continue  # the same seq again, on the new socket
                    what = reply["type"] if reply["type"] == "ack" else reply["error"]["code"]
                    player.answers.append((sent, time.monotonic() - sent, what))
                    if reply["type"] == "ack":
                        player.accepted(seq, action, reply["game"])
                        break
                    if what == "unavailable":
                        time.sleep(0.3)
                        continue
                    if what in REFUSED_NOT_CHANGED:
                        player.unexpected.append(f"seq {seq}: {reply}")
                        return
                    player.refusals += 1  # the engine refused it: nothing changed
                    break
        finally:
            close_quietly(ws)

    def connect(self, player: Player, path: str) -> Any:
        """The game socket, past its snapshot; None (after a pause) when it was
        refused for now (4503 during the stall)."""
        try:
            ws = open_socket(self.port, path, player.browser, wait=3 * PAUSE_S)
            first = json.loads(ws.recv(timeout=3 * PAUSE_S))
            if first["type"] == "snapshot":
                player.game = first["game"]
                return ws
            close_quietly(ws)
        except (ConnectionClosed, InvalidStatus, OSError, TimeoutError):
            pass
        time.sleep(0.3)
        return None

    @staticmethod
    def answer_to(ws: Any, seq: int) -> dict[str, Any]:
        while True:
            message = json.loads(ws.recv(timeout=3 * PAUSE_S))
            if message["type"] in ("ack", "error") and message.get("seq") == seq:
                return message

    # --- the stall ------------------------------------------------------------------

    def console(self, command: str) -> None:
        url = f"postgresql://postgres@127.0.0.1:{self.stack.pgbouncer_port}/pgbouncer"
        with psycopg.connect(url, autocommit=True, connect_timeout=5) as conn:
            conn.execute(command)

    def pause_for(self, seconds: float) -> None:
        """PAUSE now, RESUME ``seconds`` later on a timer of its own (a request
        held through the stall must not hold the RESUME back)."""
        self.console(f"PAUSE {self.stack.database}")
        started = time.monotonic()

        def resume() -> None:
            self.console(f"RESUME {self.stack.database}")
            self.stalled = (started, time.monotonic())
            self.resumed.set()

        threading.Timer(seconds, resume).start()

    def wait_until(self, what: str, done: Any) -> None:
        deadline = time.monotonic() + WAIT
        while not done():
            assert time.monotonic() < deadline, f"{what}: not within {WAIT} s; {self.progress()}"
            assert all(p.unexpected == [] for p in self.players), self.progress()
            time.sleep(0.2)

    def progress(self) -> str:
        return "; ".join(
            f"player {p.number}: {len(p.acked)} acks, unexpected {p.unexpected[:3]}"
            for p in self.players
        )


def refused_socket(port: int, player: Player) -> tuple[dict[str, Any], int | str]:
    """A game socket opened now: its first frame and its close code (what went
    wrong instead, when the handshake itself failed)."""
    try:
        ws = open_socket(port, f"/ws/games/{player.attempt_id}/", player.browser, wait=BOUND)
    except (InvalidHandshake, OSError, TimeoutError) as exc:
        return {}, f"no handshake: {exc!r}"
    said: dict[str, Any] = {}
    try:
        said = json.loads(ws.recv(timeout=3 * PAUSE_S))
        ws.recv(timeout=3 * PAUSE_S)
    except ConnectionClosed as closed:
        return said, closed.rcvd.code if closed.rcvd is not None else "closed without a code"
    except TimeoutError:
        return said, "not closed"
    finally:
        close_quietly(ws)
    return said, "not closed"


def probe(browser: Client, path: str) -> tuple[float, float, int]:
    """(sent at, seconds taken, status) of a ``GET path``."""
    sent = time.monotonic()
    answer = browser.request("GET", path)
    return sent, time.monotonic() - sent, answer.status


def test_a_stall_behind_pgbouncer_is_answered_quickly_and_loses_nothing(
    tmp_path: Path,
) -> None:
    with throwaway_stack(
        "stall",
        daphnes=1,
        worker=False,
        beat=False,
        pgbouncer=True,
        extra={"REGISTER_RATE": "1000/min", "LOG_LEVEL": "WARNING"},
        logs=tmp_path / "stack",
    ) as stack:
        load = Stall(stack)
        load.sign_up()
        threads = [
            threading.Thread(
                target=load.play_socket if p.over_socket else load.play_http, args=(p,), daemon=True
            )
            for p in load.players
        ]
        for thread in threads:
            thread.start()
        try:
            load.wait_until("warm", lambda: all(len(p.acked) >= WARM for p in load.players))
            before = {p.number: len(p.acked) for p in load.players}
            probes = Client(load.port, timeout=3 * PAUSE_S, keep_alive=False)
            stranger = load.players[0]
            load.pause_for(PAUSE_S)
            readyz = [probe(probes, "/readyz")]
            livez = probe(probes, "/livez")
            # A game socket opened in the stall: told why, closed with 4503.
            opened = time.monotonic()
            said, code = refused_socket(load.port, stranger)
            socket_took = time.monotonic() - opened
            while not load.resumed.is_set():
                readyz.append(probe(probes, "/readyz"))
                time.sleep(0.5)
            assert load.resumed.wait(3 * PAUSE_S), "no RESUME"
            load.wait_until("readyz 200 after RESUME", lambda: probe(probes, "/readyz")[2] == 200)
            load.wait_until(
                "acks after RESUME",
                lambda: all(len(p.acked) >= before[p.number] + WARM for p in load.players),
            )
        finally:
            load.stop.set()
            for thread in threads:
                thread.join(timeout=3 * PAUSE_S)

        started, ended = load.stalled
        during = [
            (p.number, round(took, 2), what)
            for p in load.players
            for sent, took, what in p.answers
            if started <= sent < ended
        ]
        # (seconds, status, whether it was answered before RESUME) of each probe sent in it.
        readyz = [
            (round(took, 2), status, sent + took < ended)
            for sent, took, status in readyz
            if sent < ended
        ]
        slowest = max((took for _, took, _ in during), default=None)
        print(
            f"stall of {ended - started:.1f} s: {len(during)} answers, the slowest {slowest} s;"
            f" /readyz (s, status) {readyz}; a socket opened: {socket_took:.2f} s, {code}"
        )
        assert all(p.unexpected == [] for p in load.players), load.progress()
        # Every request and frame sent in the stall was answered within BOUND.
        assert during, "no player sent anything during the stall"
        slow = [answer for answer in during if answer[1] > BOUND]
        assert not slow, f"answered after more than {BOUND} s in the stall: {slow}"
        assert any("unavailable" in what for _, _, what in during), during
        # /readyz: 503 in the stall, within the bound; /livez never asks the database.
        assert all(took < BOUND for took, _, _ in readyz), readyz
        assert readyz[0][2] and all(status == 503 for _, status, paused in readyz if paused), readyz
        assert livez[2] == 200 and livez[1] < BOUND, livez
        # The socket opened in the stall was told why and closed with "try again later".
        assert said.get("error", {}).get("code") == "unavailable", said
        assert code == CLOSE_UNAVAILABLE, code
        assert socket_took < BOUND, socket_took
        check_rows(stack, load.players)


def check_rows(stack: Stack, players: list[Player]) -> None:
    """Every acknowledged action is one row at its seq, as sent; no other row."""
    url = stack.database_url.replace("postgres://", "postgresql://", 1)
    with psycopg.connect(url, connect_timeout=5) as conn:
        for player in players:
            rows = conn.execute(
                "SELECT seq, sent FROM games_action WHERE attempt_id = %s ORDER BY seq",
                [player.attempt_id],
            ).fetchall()
            where = f"player {player.number} (#{player.attempt_id})"
            assert [seq for seq, _ in rows] == sorted(player.acked), where
            for seq, sent in rows:
                for key in ("type", "from", "to", "count"):
                    if key in sent:
                        assert sent[key] == player.acked[seq][key], (where, seq, key)
