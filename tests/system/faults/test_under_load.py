"""Processes dying under load (issue 7), on the production process set started by
``deploy/stack.py``: a fresh PostgreSQL database, a Redis of the stack's own,
two daphnes, a Celery worker.

Twenty-four players sign up (half on each daphne), start practice games over the
four variants and play them over their game sockets at once: random legal
moves from ``view.targets``, stock taps, undos — one action in flight each, the
next sent when the ack comes; four of the games are watched by a spectator on
the other daphne. Mid-load (once the players have had a number of
acks, not after a time):

- **a daphne is SIGKILLed.** Its players' sockets drop with actions in flight,
  their fate unknown. Half of them reconnect to the other daphne at once, the
  other half wait for the killed one to be started again and reconnect there;
  each resends its in-flight action with the same ``seq`` (websocket.md,
  Reconnecting) and plays on.
- **Redis is restarted** (a clean shutdown and start on the same port, its
  append-only file kept, as in the compose file). While it is away an action
  may be refused with the error shape — never half-applied; sockets that drop
  reconnect; play goes on.

Then, for every player: each acknowledged action is in PostgreSQL at its
``seq`` with what was sent, the database holds no action that was not
acknowledged and none twice, the game read back over HTTP is the state of
the last ack, every player had acks after the fault, every spectator heard
``state`` broadcasts again after it and knows the last version, and the worker's replay
check (every game is resigned at the end) finds each game equal to replaying
its accepted actions.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import re
import secrets
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import psycopg
import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import InvalidStatus, WebSocketException
from websockets.typing import Origin

from deploy.client import Client
from deploy.stack import Stack
from games.engine import ALL_VARIANTS
from tests.support.api import requires_postgres, requires_redis
from tests.support.players import session_cookie, sign_up
from tests.support.stack import throwaway_stack

pytestmark = [requires_postgres, requires_redis]

PLAYERS = 24
VARIANTS = ALL_VARIANTS
BEFORE = 8  # acks each player has had, on average, when the fault strikes
AFTER = 10  # acks each player must have once the fault is over
WATCHED = 4  # players whose game a spectator on the other daphne follows
WAIT = 30.0  # every bounded wait, in seconds (a restart included)
RETRY_CODES = {"unavailable"}  # the refusal an outage may cause: nothing was changed


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    with throwaway_stack(
        "faults",
        daphnes=2,
        beat=False,
        extra={"REGISTER_RATE": "1000/min", "LOG_LEVEL": "WARNING"},
        logs=tmp_path_factory.mktemp("stack"),
    ) as running:
        yield running


@dataclass
class Player:
    """One player: a cookie jar, a practice game, its socket and what was acked."""

    number: int
    browser: Client
    home: int  # index of the daphne it plays on
    attempt_id: int
    game: dict[str, Any]
    rng: random.Random
    ws: ClientConnection | None = None
    acked: dict[int, dict[str, Any]] = field(default_factory=dict)  # seq → action sent
    in_flight: tuple[int, dict[str, Any]] | None = None
    dropped: int = 0  # sockets that failed under it
    refused: list[str] = field(default_factory=list)  # error codes met (retried)
    acks_after_fault: int = 0
    undoable: int = 0  # accepted actions an undo could take back (a guess: moves)
    refusals: int = 0  # engine refusals in a row

    def choose(self) -> dict[str, Any]:
        view = self.game["view"]
        roll = self.rng.random()
        if self.undoable and (roll < 0.1 or not view["targets"]):
            return {"type": "undo"}
        if view["code"].startswith("EH1") and roll < 0.35:
            return {"type": "stock"}
        if not view["targets"]:
            return {"type": "stock"}
        target = self.rng.choice(view["targets"])
        to = self.rng.choice(target["to"])
        return {"type": "move", "from": target["from"], "to": to, "count": target["count"]}


@dataclass
class Watcher:
    """A spectator of one player's game on the other daphne, keeping the highest
    ``v`` (websocket.md, Versions) and healing a gap with a snapshot."""

    browser: Client
    target: Player
    daphne: int
    ws: ClientConnection | None = None
    v: int = 0
    states_after_fault: int = 0  # state events of actions acked once the fault was over
    healed: int = 0


class Load:
    """The players and the stack; ``fault`` runs once the players are warm."""

    def __init__(self, stack: Stack, fault: Callable[[Load], None]) -> None:
        self.stack = stack
        self.fault = fault
        self.players: list[Player] = []
        self.acks = 0
        self.faulted = asyncio.Event()
        self.fault_done = asyncio.Event()
        self.restart_waiters: set[int] = set()  # players who wait for their daphne
        self.watchers: list[Watcher] = []
        self.done: set[int] = set()  # players who have finished
        self.seq_at_recovery: dict[int, int] = {}  # each game's seq when the fault was over
        self.unexpected: list[str] = []
        self.loop: asyncio.AbstractEventLoop | None = None
        self.recovered_at = 0.0

    # --- set-up (HTTP) ------------------------------------------------------------

    def sign_up(self) -> None:
        tag = secrets.token_hex(3)
        for n in range(PLAYERS):
            home = n % 2
            port = self.stack.ports[home]
            browser = sign_up(f"load{n}_{tag}", port)
            variant = VARIANTS[n % len(VARIANTS)]
            game = browser.expect(
                "POST", "/api/games/", {"random": variant, "any": True}, status=201
            )
            while not game["view"]["targets"] and variant.startswith("SH1"):
                # A Seahaven deal with no move at all from the start (the 1-cell
                # game has them): nothing to play, not even an undo. Deal again.
                game = browser.expect(
                    "POST", "/api/games/", {"random": variant, "any": True}, status=201
                )
            self.players.append(Player(n, browser, home, game["id"], game, random.Random(1000 + n)))
        for target in self.players[:WATCHED]:
            daphne = 1 - target.home
            browser = sign_up(f"watch{target.number}_{tag}", self.stack.ports[daphne])
            self.watchers.append(Watcher(browser, target, daphne))

    # --- sockets ------------------------------------------------------------------

    async def open(self, player: Player, daphne: int) -> None:
        path = f"/ws/games/{player.attempt_id}/"
        player.ws = await self.connect_to(daphne, path, player.browser)
        first = await self.receive(player)
        assert first["type"] == "snapshot", first
        player.game = first["game"]

    async def reconnect(self, player: Player) -> None:
        """The other daphne at once, or (a restart waiter) its own once it is back."""
        player.dropped += 1
        with contextlib.suppress(Exception):
            await player.ws.close()  # type: ignore[union-attr]
        player.ws = None
        waits = player.number in self.restart_waiters
        daphne = player.home if waits else 1 - player.home
        deadline = time.monotonic() + WAIT
        while True:
            try:
                await self.open(player, daphne)
                break
            except (OSError, WebSocketException, TimeoutError, AssertionError) as exc:
                if isinstance(exc, InvalidStatus) and exc.response.status_code == 403:
                    raise
                if time.monotonic() > deadline:
                    raise AssertionError(f"player {player.number}: no reconnect") from exc
                await asyncio.sleep(0.1)
        if not waits:
            player.home = daphne
        if player.in_flight is not None:  # resend it with the same seq
            seq, action = player.in_flight
            await self.send(player, seq, action)

    @staticmethod
    async def receive(player: Player) -> dict[str, Any]:
        assert player.ws is not None
        try:
            async with asyncio.timeout(WAIT):
                return json.loads(await player.ws.recv())
        except TimeoutError:
            raise AssertionError(
                f"player {player.number}: nothing within {WAIT} s, in flight {player.in_flight}"
            ) from None

    @staticmethod
    async def send(player: Player, seq: int, action: dict[str, Any]) -> None:
        assert player.ws is not None
        await player.ws.send(json.dumps({"seq": seq, "action": action}))

    # --- play ---------------------------------------------------------------------

    async def step(self, player: Player) -> None:
        """One action, sent and acknowledged (through drops and retries)."""
        if player.in_flight is None:
            action = player.choose()
            player.in_flight = (player.game["seq"], action)
            await self.send(player, *player.in_flight)
        seq, action = player.in_flight
        while True:
            message = await self.receive(player)
            kind = message["type"]
            if kind == "ack" and message["seq"] == seq:
                break
            if kind == "error" and message.get("seq") == seq:
                code = message["error"]["code"]
                if code in RETRY_CODES and self.faulted.is_set():
                    player.refused.append(code)
                    await asyncio.sleep(0.2)
                    await self.send(player, seq, action)
                    continue
                if code in ("server_error", "seq_conflict") or code in RETRY_CODES:
                    self.unexpected.append(f"player {player.number} seq {seq}: {message}")
                # Else the engine refused it (a stock tap in an empty stock): nothing
                # changed; the next choice is drawn afresh.
                player.in_flight = None
                player.refusals += 1
                assert player.refusals < 50, f"player {player.number} is stuck: {message}"
                return
            if kind not in ("state", "snapshot", "ack"):
                self.unexpected.append(f"player {player.number}: {message}")
        game = message["game"]
        assert message["v"] == seq + 1 == game["seq"], (player.number, message)
        assert seq not in player.acked, f"player {player.number}: seq {seq} acked twice"
        player.acked[seq] = action
        player.undoable = player.undoable - 1 if action["type"] == "undo" else player.undoable + 1
        player.game = game
        player.in_flight = None
        player.refusals = 0
        self.acks += 1
        if self.fault_done.is_set():  # the daphne restarted, Redis back
            player.acks_after_fault += 1

    async def play(self, player: Player) -> None:
        await self.open(player, player.home)
        while not (
            self.fault_done.is_set()
            and player.acks_after_fault >= AFTER
            and (self.broadcasts_flow() or time.monotonic() - self.recovered_at > WAIT)
        ):
            if player.game["status"] != "playing":
                raise AssertionError(f"player {player.number}'s game ended: {player.game}")
            try:
                await self.step(player)
            except (WebSocketException, OSError):
                await self.reconnect(player)
            if not self.faulted.is_set() and self.acks >= BEFORE * PLAYERS:
                self.faulted.set()
                asyncio.get_running_loop().run_in_executor(None, self.strike)
        self.done.add(player.number)
        assert player.ws is not None
        await player.ws.close()

    async def watch(self, watcher: Watcher) -> None:
        """Follow the game until the player is done and its last ``v`` is known."""
        path = f"/ws/games/{watcher.target.attempt_id}/"
        final: float | None = None
        while True:
            if watcher.target.number in self.done:
                if watcher.v >= watcher.target.game["seq"]:
                    break
                final = final or time.monotonic()
                assert time.monotonic() - final < WAIT, (
                    f"watcher of player {watcher.target.number} stuck at v {watcher.v}, "
                    f"the game is at {watcher.target.game['seq']}"
                )
            try:
                if watcher.ws is None:
                    watcher.ws = await self.connect_to(watcher.daphne, path, watcher.browser)
                    first = json.loads(await watcher.ws.recv())
                    assert first["type"] == "snapshot", first
                    watcher.v = max(watcher.v, first["v"])
                try:
                    async with asyncio.timeout(0.5):
                        message = json.loads(await watcher.ws.recv())
                except TimeoutError:
                    if watcher.target.number in self.done:  # the last event may be lost
                        await watcher.ws.send(json.dumps({"type": "snapshot"}))
                    continue
            except (WebSocketException, OSError):
                watcher.ws = None
                watcher.daphne = 1 - watcher.daphne  # the other one may be down
                await asyncio.sleep(0.1)
                continue
            if message["type"] == "state":
                if message["v"] > self.seq_at_recovery.get(watcher.target.number, 1 << 30):
                    watcher.states_after_fault += 1
                if message["v"] > watcher.v + 1:  # an event was lost: heal
                    await watcher.ws.send(json.dumps({"type": "snapshot"}))
                watcher.v = max(watcher.v, message["v"])
            elif message["type"] == "snapshot":
                watcher.healed += message["v"] > watcher.v
                watcher.v = max(watcher.v, message["v"])
            else:
                self.unexpected.append(f"watcher of {watcher.target.number}: {message}")
        assert watcher.ws is not None
        await watcher.ws.close()

    async def connect_to(self, daphne: int, path: str, browser: Client) -> ClientConnection:
        port = self.stack.ports[daphne]
        return await connect(
            f"ws://127.0.0.1:{port}{path}",
            origin=Origin(f"http://127.0.0.1:{port}"),
            additional_headers=session_cookie(browser),
            open_timeout=5,
            close_timeout=1,
            max_queue=None,
        )

    def broadcasts_flow(self) -> bool:
        """Every spectator has heard of an action acked after the fault: play
        goes on until then (bounded by ``WAIT``; ``check_watchers`` says if not)."""
        return all(watcher.states_after_fault for watcher in self.watchers)

    def strike(self) -> None:
        try:
            self.fault(self)
        finally:
            assert self.loop is not None
            self.loop.call_soon_threadsafe(self.recovered)

    def recovered(self) -> None:
        self.seq_at_recovery = {p.number: p.game["seq"] for p in self.players}
        self.recovered_at = time.monotonic()
        self.fault_done.set()

    async def run(self) -> None:
        self.loop = asyncio.get_running_loop()
        try:
            async with asyncio.timeout(180):
                await asyncio.gather(
                    *(self.play(p) for p in self.players), *(self.watch(w) for w in self.watchers)
                )
        except TimeoutError:
            raise AssertionError(f"the load did not end within 180 s: {self.progress()}") from None

    def progress(self) -> str:
        players = ", ".join(
            f"{p.number}: {len(p.acked)} acks ({p.acks_after_fault} after), "
            f"in flight {p.in_flight}, dropped {p.dropped}"
            for p in self.players
        )
        fault = "done" if self.fault_done.is_set() else "struck" if self.faulted.is_set() else "no"
        return f"{self.acks} acks, fault {fault}; {players}"

    # --- what must hold -----------------------------------------------------------

    def check(self) -> None:
        assert not self.unexpected, "\n".join(self.unexpected[:10])
        url = self.stack.database_url.replace("postgres://", "postgresql://", 1)
        with psycopg.connect(url, connect_timeout=5) as conn:
            for player in self.players:
                rows = conn.execute(
                    "SELECT seq, sent FROM games_action WHERE attempt_id = %s ORDER BY seq",
                    [player.attempt_id],
                ).fetchall()
                (seq,) = conn.execute(
                    "SELECT seq FROM games_attempt WHERE id = %s", [player.attempt_id]
                ).fetchone()
                where = f"player {player.number} (#{player.attempt_id})"
                # Every acknowledged action is there, at its seq, as sent; nothing
                # is there that was not acknowledged; nothing twice (seqs 0..n-1).
                assert [row[0] for row in rows] == list(range(len(rows))), where
                assert sorted(player.acked) == list(range(len(rows))) == list(range(seq)), where
                for stored_seq, sent in rows:
                    assert sent["type"] == player.acked[stored_seq]["type"], (where, stored_seq)
                    for key in ("from", "to", "count"):
                        if key in sent:
                            assert sent[key] == player.acked[stored_seq][key], (where, stored_seq)
                assert player.acks_after_fault >= AFTER, where
                # The game read back (through either daphne) is the last ack's state.
                port = self.stack.ports[player.number % 2]
                now = player.browser.at(port).expect("GET", f"/api/games/{player.attempt_id}/")
                assert now["seq"] == seq and now["view"] == player.game["view"], where

    def check_watchers(self) -> None:
        """Broadcasts flow again after the fault: each spectator heard ``state``
        events once it was over, and knows the game's last version."""
        for watcher in self.watchers:
            where = f"watcher of player {watcher.target.number}"
            assert watcher.v == watcher.target.game["seq"], where
            assert watcher.states_after_fault >= 1, (where, watcher)

    def resign_and_verify(self) -> None:
        """The worker replays every game from its actions; each must match."""
        for player in self.players:
            port = self.stack.ports[player.number % 2]
            path = f"/api/games/{player.attempt_id}/resign/"
            assert player.browser.at(port).expect("POST", path)["status"] == "resigned"
        ids = [player.attempt_id for player in self.players]
        url = self.stack.database_url.replace("postgres://", "postgresql://", 1)
        deadline = time.monotonic() + 60
        with psycopg.connect(url, connect_timeout=5, autocommit=True) as conn:
            while True:
                rows = conn.execute(
                    "SELECT id, verified FROM games_attempt WHERE id = ANY(%s)", [ids]
                ).fetchall()
                pending = [i for i, verified in rows if verified is None]
                if not pending:
                    break
                assert time.monotonic() < deadline, (
                    f"never verified: {pending}\n" + (self.stack.log("worker")[-3000:])
                )
                time.sleep(0.2)
        failed = [i for i, verified in rows if verified is not True]
        assert not failed, f"replay check failed for {failed}"


def run_load(stack: Stack, fault: Callable[[Load], None]) -> Load:
    load = Load(stack, fault)
    load.sign_up()
    asyncio.run(load.run())
    load.check()
    load.check_watchers()
    load.resign_and_verify()
    return load


# --- the faults ----------------------------------------------------------------------


def test_a_daphne_sigkilled_under_load_loses_nothing(stack: Stack) -> None:
    def kill_first_daphne(load: Load) -> None:
        victims = [p.number for p in load.players if p.home == 0]
        load.restart_waiters.update(victims[::2])  # the others move to daphne 2
        load.stack.kill_daphne(0)
        load.stack.start_daphne(0)

    load = run_load(stack, kill_first_daphne)
    hit = [p for p in load.players if p.dropped]
    assert {p.number for p in hit} == {p.number for p in load.players if p.number % 2 == 0}
    # Those who failed over now play on daphne 2; the waiters came back to daphne 1.
    assert all(p.home == (0 if p.number in load.restart_waiters else 1) for p in hit)
    print(f"{load.acks} acks; {len(hit)} players reconnected after the kill")


def test_redis_restarted_under_load_loses_nothing(stack: Stack) -> None:
    def restart_redis(load: Load) -> None:
        load.stack.stop_redis()
        time.sleep(1)  # away for a while: actions meet the outage
        load.stack.start_redis()

    load = run_load(stack, restart_redis)
    drops = sum(p.dropped for p in load.players)
    refusals = [code for p in load.players for code in p.refused]
    print(f"{load.acks} acks; {drops} sockets dropped, refusals while away: {refusals}")


def test_the_stack_logged_no_error(stack: Stack) -> None:
    """Runs last: the service itself logged no error — no 500 (``django.request``),
    no exception in a consumer, a view or on commit, no failed task — while the
    faults struck. The libraries log the outage their own way (channels_redis
    and Celery's consumer as errors, before they reconnect): those lines are
    not ours."""
    for name in ("daphne1", "daphne2", "worker"):
        errors = [line for line in stack.log(name).splitlines() if is_our_error(line)]
        assert not errors, f"{name}: {errors[:5]}"


OURS = re.compile(r"(games|config|accounts|leaderboard|frontend|django)\.")


def is_our_error(line: str) -> bool:
    """A JSON log line (``kit/logs.py``) of an error of ours, an exception
    in the application or a failed task. Celery's own shutdown words are not JSON."""
    try:
        record = json.loads(line)
    except ValueError:
        return False
    event = str(record.get("event", ""))
    error = record.get("level") in ("error", "critical")
    return (error and bool(OURS.match(str(record.get("logger", ""))))) or any(
        words in event for words in ("Exception inside application", "raised unexpected")
    )
