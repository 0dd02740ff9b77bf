"""Issue 7: over 1 000 random games, no face-down card and no stock card ever
reaches a client — not in an HTTP response, not in a websocket message
(PRODUCT.md, "Anti-cheat": "The client never receives a face-down card or the
stock's order, in any message, page, API or error").

How. A fixed seed plays 1 000 short games over the four variants — Easy Harp,
where the face-down cards and the stock are, gets two in three; Seahaven deals
everything face up, so there the checks prove the view complete and exact —
daily (ranked) and practice, owned by 40 players. Each game is played
by its owner with random legal and illegal actions, undos, resends, stale and
future ``seq``, malformed actions and frames, reloads (``GET``, a snapshot
request, a reconnect) and resignations: a few actions over HTTP, then a few on
the play socket, sometimes an HTTP action while the socket listens, a spectator
socket on some games (trying to play, too), and the day's four leaderboard
sockets open throughout. Today's daily deals are prepared as the job does
(secret long codes, proven), and a veteran wins each of them by its proof
first: only a winner may watch a running daily's games (PRODUCT.md, anti-cheat).
Players who resigned their ranked attempt ask to practise that daily too: the
API refuses it (409 ``daily_running``, issue 36), and they play a practice game
of it as the API dealt one before that rule (such games exist). Two Easy
Harp games draw the whole stock and turn it over (one over HTTP, one on the
socket). Besides: the replay of a game in progress (refused, to its owner and
to others), another player's ``GET``, the play page, ``/api/live/``,
``/api/daily/``, leaderboards and player records.

Every HTTP body and every websocket message received is checked against the
state the server stored for that game at that moment — for an event, at its
``v``: the view is exactly the engine's redacted view, and nothing anywhere
(card text in any field, error messages and params included) names a card
whose every copy is hidden or shows hidden cards in their order
(``tests/support/hidden.py``). Bodies about no one game (leaderboards, the live list,
the daily list, player records) name no card at all. Nothing at all — body,
message or page — names a running daily's code or key (PRODUCT.md, "Fair
daily deals"). Finished games' replays show everything by design (PRODUCT.md)
and are not checked.

Four streams of games run side by side to fit the time budget, each with
players of its own and each game with a random generator seeded by its number,
so what each stream sends is the same on every run.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from asgiref.sync import sync_to_async

from games.dailies import daily_deal_prepare, utc_today
from games.engine import ALL_VARIANTS, Game, GameCode, encode_deal, load_game, new_game
from games.models import Attempt
from tests.support.api import Client, assert_error, legacy_daily_practice
from tests.support.hidden import (
    CARD,
    check_cardless,
    check_hidden,
    check_view,
    hidden_only,
    odd_actions,
)
from tests.support.sockets import Socket, socket_for

SEED = 20_260_701
GAMES = 1_000
STREAMS = 4  # games played side by side, each stream by its own players
PLAYERS = 10  # per stream; the veteran (who won every daily) is the day's
# Easy Harp is where the hidden cards are: two games in three. Seahaven has none,
# and each of its actions that leaves every cell full (the one-cell and two-cell
# deals start so) has the solver search the position (issue 5): few of those.
VARIANTS = ["EH1-N"] * 8 + ["SH1-C4"] * 2 + ["SH1-C2", "SH1-C1"]
TIMEOUT = 10  # seconds to wait for a message that must come: a failure, never a pace
MALFORMED = [
    {"type": "move", "from": "t99", "to": "t1"},
    {"type": "move", "from": "t1", "to": "t2", "count": "2"},
    {"type": "fly", "from": "t1"},
    {"type": "move", "from": "s", "to": "x"},
]
# Reaching for the stock and the waste: each refusal must say no more than the view.
AT_THE_STOCK = [
    {"type": "move", "from": "s", "to": "t1"},
    {"type": "move", "from": "s", "to": "f"},
    {"type": "move", "from": "s", "to": "w", "count": 3},
    {"type": "tap", "from": "s"},
    {"type": "double_tap", "from": "s", "count": 2},
    {"type": "move", "from": "w", "to": "s"},
    {"type": "move", "from": "t9", "to": "s", "count": 9},
    {"type": "move", "from": "w", "to": "t5", "count": 2},
]
BAD_FRAMES = ['{"seq": 0, "action": ', "[]", "7", '{"type": "action", "seq": "1"}']

in_thread = sync_to_async(thread_sensitive=False)
"""Each stream's HTTP calls (and database reads) on a worker thread, so that
streams overlap; a stream's own calls still run one after the other."""


# --- the truth: the state the server stored, after each accepted action --------------------


@dataclass
class Table:
    """One attempt, and the server's stored game after each accepted action (``v``)."""

    id: int
    code: str  # a running daily's is never sent: "daily EH1-N" names those here
    variant: str
    owner: Client
    ranked: bool
    daily: bool  # on today's daily deal, ranked or a practice of it: its day runs
    view: dict[str, Any]  # the owner's latest view: what the next action is chosen from
    states: dict[int, Game] = field(default_factory=dict)
    seq: int = 0
    last: tuple[int, dict[str, Any]] | None = None  # the last accepted (seq, action)

    @property
    def easy_harp(self) -> bool:
        return self.variant.startswith("EH1")

    @property
    def game(self) -> Game:
        return self.states[self.seq]

    def refresh(self) -> Game:
        """Read the stored state (the database: call it on a thread)."""
        row = Attempt.objects.values("seq", "state").get(pk=self.id)
        self.seq = row["seq"]
        self.states[self.seq] = load_game(row["state"])
        return self.states[self.seq]

    def at(self, v: int) -> Game:
        """The stored game after ``v`` actions, read when ``v`` is new: once reached,
        a position never changes (every action, an undo too, makes a new ``v``; a
        refusal makes none, which the ``seq`` of every later answer confirms)."""
        if v not in self.states:
            self.refresh()
            assert self.seq == v, f"#{self.id}: stored seq {self.seq}, answered about {v}"
        return self.states[v]


def check_unnamed(body: Any, never: tuple[str, ...], where: str) -> None:
    """Nothing of ``body`` (a page, or JSON) names a running daily's code or key."""
    text = (body if isinstance(body, str) else json.dumps(body)).upper()
    for secret in never:
        assert secret not in text, f"{where}: names a running daily deal ({secret})"


def check_body(body: Any, game: Game, where: str, owner: bool = True) -> None:
    """An HTTP body or websocket message about ``game``: exact views, no hidden card.
    Only the player (``owner``) gets its targets (a spectator none: issue 25)."""
    attempt = body.get("game", body) if isinstance(body, dict) else None
    if isinstance(attempt, dict) and "view" in attempt:
        playing = owner and attempt["status"] == "playing"
        check_view(attempt["view"], game, owner_playing=playing, where=where)
    check_hidden(body, game, where)


@dataclass
class Tally:
    never: tuple[str, ...] = ()
    """Today's daily codes and keys (read from the database: the API never sends
    them): nothing received may name one."""
    games: Counter[str] = field(default_factory=Counter)
    http: Counter[str] = field(default_factory=Counter)
    ws: Counter[str] = field(default_factory=Counter)
    accepted: Counter[str] = field(default_factory=Counter)
    unwinnable: int = 0  # of the "state" events: a Seahaven position proven lost

    def add(self, other: Tally) -> None:
        for name in ("games", "http", "ws", "accepted"):
            getattr(self, name).update(getattr(other, name))
        self.unwinnable += other.unwinnable

    def summary(self) -> str:
        return (
            f"{sum(self.games.values())} games {dict(self.games)}\n"
            f"{sum(self.http.values())} HTTP bodies {dict(self.http)}\n"
            f"{sum(self.ws.values())} websocket messages {dict(self.ws)}, "
            f"{self.unwinnable} of the states unwinnable\n"
            f"accepted actions {dict(self.accepted)}"
        )


# --- HTTP (sync: on a worker thread) --------------------------------------------------------


def http_checked(tally: Tally, table: Table, response: Any, kind: str) -> dict[str, Any]:
    """Check one response about ``table`` against the stored state right after it."""
    assert response.status_code < 500, (kind, response.content[:300])
    body = response.json()
    # An attempt object shows the game after its seq; a refusal, the game as it is.
    game = table.at(body["seq"] if "view" in body else table.seq)
    check_body(body, game, f"HTTP {kind} #{table.id} {table.code}")
    check_unnamed(response.content.decode(), tally.never, f"HTTP {kind} #{table.id}")
    tally.http[kind] += 1
    return body


def http_cardless(tally: Tally, client: Client, url: str, kind: str) -> None:
    response = client.get(url)
    assert response.status_code == 200, (url, response.content[:300])
    check_cardless(response.json(), f"HTTP {kind} {url}")
    check_unnamed(response.content.decode(), tally.never, f"HTTP {kind} {url}")
    tally.http[kind] += 1


def http_start(tally: Tally, owner: Client, body: dict[str, Any]) -> Table:
    response = owner.send("/api/games/", body)
    if body.get("practice"):
        # No practice copy of a running daily (issue 36); one dealt before that rule.
        assert_error(response, 409, "daily_running")
        check_unnamed(response.content.decode(), tally.never, "HTTP practice refused")
        attempt = legacy_daily_practice(owner, body["daily"])
    else:
        assert response.status_code == 201, (body, response.content)
        attempt = response.json()
    variant, daily = attempt["variant"], "daily" in body
    assert attempt["ranked"] is (daily and not body.get("practice")), attempt
    if daily:  # today's daily, ranked or practice: it says which, never its code
        today = utc_today().isoformat()
        assert attempt["code"] is None and attempt["view"]["code"] is None, attempt
        assert attempt["daily"] == today, attempt
        assert attempt["view"]["daily"] == {"date": today, "variant": variant}, attempt
    else:
        assert attempt["code"] == body["code"] and attempt["daily"] is None, attempt
    table = Table(
        id=attempt["id"],
        code=attempt["code"] or f"daily {variant}",
        variant=variant,
        owner=owner,
        ranked=attempt["ranked"],
        daily=daily,
        view=attempt["view"],
    )
    http_checked(tally, table, response, "start")
    return table


def pick_action(table: Table, rng: random.Random) -> dict[str, Any]:
    """What a player (or a cheat) might send next, from what they see."""
    view, roll = table.view, rng.random()
    if roll < 0.22:
        return rng.choice(odd_actions(view, rng))
    if roll < 0.25:
        return rng.choice(MALFORMED)
    if roll < 0.3:
        return rng.choice(AT_THE_STOCK)
    if roll < 0.37 and table.seq:
        return {"type": "undo"}
    if roll < 0.6 and table.easy_harp:
        return {"type": "stock"}
    if view["targets"]:
        target = rng.choice(view["targets"])
        to = rng.choice(target["to"])
        return {"type": "move", "from": target["from"], "to": to, "count": target["count"]}
    return {"type": "undo"} if table.seq else {"type": "stock"}


def http_act(tally: Tally, table: Table, seq: int, action: dict[str, Any], kind: str) -> bool:
    """POST one action; True when a new action was applied (the sockets hear of it)."""
    before = table.seq
    response = table.owner.send(f"/api/games/{table.id}/actions/", {"seq": seq, "action": action})
    body = http_checked(tally, table, response, kind)
    if response.status_code != 200:
        if body["error"]["code"] == "seq_conflict":
            assert body["error"]["seq"] == before, (kind, body)  # a refusal changes nothing
        return False
    table.view = body["view"]
    if body["duplicate"]:
        assert table.seq == before, body
        return False
    assert table.seq == before + 1 == body["seq"], body
    table.last = (before, action)
    # The veteran's winning lines are counted apart: the counts below are random play.
    tally.accepted["proof" if kind == "proof" else "http"] += 1
    return True


def http_step(tally: Tally, table: Table, rng: random.Random) -> bool:
    """One random HTTP step by the owner; True when an action was applied."""
    roll = rng.random()
    if roll < 0.1:  # a reload
        response = table.owner.get(f"/api/games/{table.id}/")
        table.view = http_checked(tally, table, response, "get")["view"]
        return False
    if roll < 0.16 and table.last:  # the last action sent again: nothing applied twice
        return http_act(tally, table, *table.last, "resend")
    if roll < 0.22:  # a seq from the past or the future
        seq = table.seq + rng.choice([-1, 1, 5]) if table.seq else 3
        return http_act(tally, table, seq, {"type": "undo"}, "stale seq")
    return http_act(tally, table, table.seq, pick_action(table, rng), "action")


def http_resign(tally: Tally, table: Table) -> None:
    response = table.owner.send(f"/api/games/{table.id}/resign/")
    assert response.status_code == 200, response.content
    table.view = http_checked(tally, table, response, "resign")["view"]


def prefill_of(page: Any) -> dict[str, Any]:
    """The API answers a page embeds (``<script type="application/json" id="api-prefill">``)."""
    found = re.search(
        r'<script type="application/json" id="api-prefill">(.*?)</script>', page.content.decode()
    )
    return json.loads(found[1]) if found else {}


def http_look(tally: Tally, table: Table, other: Client, rng: random.Random) -> None:
    """One look at a game in progress: its replay (refused to its owner and to
    others alike), someone else's GET of it (refused), or its play page."""
    # Not over (409); on a running daily, first: not for those who have not won it
    # (403) — its owner and the other players never have, only the veteran.
    refused = 403 if table.daily else 409
    look = rng.randrange(4)
    if look == 0:
        response = table.owner.get(f"/api/games/{table.id}/replay/")
        assert response.status_code == refused, response.content
        http_checked(tally, table, response, "replay refused")
    elif look == 1:
        flag = rng.choice(["", "?positions=1"])
        response = other.get(f"/api/games/{table.id}/replay/{flag}")
        assert response.status_code == refused, response.content
        http_checked(tally, table, response, "replay refused (other)")
    elif look == 2:
        response = other.get(f"/api/games/{table.id}/")
        assert response.status_code in (403, 404), response.content
        http_checked(tally, table, response, "get (other)")
        # Their play page embeds nothing of it (the client gets the API's refusal).
        embedded = prefill_of(other.get(f"/play/{table.id}/"))
        assert f"/api/games/{table.id}/" not in embedded, f"play page (other) #{table.id}"
        check_hidden(embedded, table.game, f"play page (other) #{table.id}")
        tally.http["play page (other)"] += 1
    else:
        page = table.owner.get(f"/play/{table.id}/")
        assert page.status_code == 200
        # The first answer embedded in the page (issue 24): the owner's view, redacted.
        embedded = prefill_of(page)[f"/api/games/{table.id}/"]
        check_view(embedded["view"], table.game, owner_playing=True, where="embedded")
        check_hidden(embedded, table.game, f"embedded attempt #{table.id}")
        # Percent-escapes (the icon's data URL has "%3C") are not card names.
        html = re.sub(r"%[0-9A-F]{2}", " ", page.content.decode())
        check_hidden(html, table.game, f"play page #{table.id}")
        check_unnamed(page.content.decode(), tally.never, f"play page #{table.id}")
        tally.http["play page"] += 1


def http_overview(tally: Tally, client: Client, usernames: list[str], rng: random.Random) -> None:
    """Pages about no one game: they name no card at all."""
    http_cardless(tally, client, "/api/live/", "live")
    http_cardless(tally, client, "/api/daily/", "daily")
    today, variant = utc_today().isoformat(), rng.choice(VARIANTS)
    http_cardless(tally, client, f"/api/leaderboard/{today}/{variant}/", "leaderboard")
    http_cardless(tally, client, f"/api/players/{rng.choice(usernames)}/", "player")


# --- websockets -----------------------------------------------------------------------------


class Watch:
    """A socket on one game: every message it receives is checked against the
    stored state at the message's ``v`` (an error: at the position it refused)."""

    def __init__(self, tally: Tally, table: Table, client: Client, role: str) -> None:
        self.tally, self.table, self.role = tally, table, role
        self.socket: Socket = socket_for(f"/ws/games/{table.id}/", client)
        self.backlog: list[dict[str, Any]] = []

    async def open(self) -> dict[str, Any]:
        connected, _ = await self.socket.connect(timeout=TIMEOUT)
        assert connected
        snapshot = await self.reply()
        assert snapshot["type"] == "snapshot" and snapshot["v"] == self.table.seq, snapshot
        return snapshot

    async def recv(self) -> dict[str, Any]:
        message = await self.socket.recv(timeout=TIMEOUT)
        table = self.table
        # An event shows the game after its v; an error, the game as it is.
        v = message["v"] if "game" in message else table.seq
        game = table.states[v] if v in table.states else await in_thread(table.at)(v)
        owner = self.role != "spectator"
        check_body(message, game, f"ws {self.role} #{table.id} {table.code}", owner)
        check_unnamed(message, self.tally.never, f"ws {self.role} #{table.id}")
        self.tally.ws[f"{self.role} {message['type']}"] += 1
        self.tally.unwinnable += bool(message.get("game", {}).get("unwinnable"))
        return message

    async def wait(self, wanted: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        """The first message (received before or now) that is ``wanted``."""
        for i, message in enumerate(self.backlog):
            if wanted(message):
                return self.backlog.pop(i)
        while not wanted(message := await self.recv()):
            self.backlog.append(message)
        return message

    async def reply(self) -> dict[str, Any]:
        """The answer to this socket's last frame (broadcasts may come between)."""
        return await self.wait(lambda m: m["type"] in ("ack", "error", "snapshot"))

    async def close(self) -> None:
        await self.socket.disconnect()


def state_at(v: int, status: str | None = None) -> Callable[[dict[str, Any]], bool]:
    def wanted(message: dict[str, Any]) -> bool:
        if message["type"] != "state" or message["v"] != v:
            return False
        return status is None or message["game"]["status"] == status

    return wanted


async def everyone_hears(watches: list[Watch], v: int, status: str | None = None) -> None:
    """An applied action or a resignation is broadcast to every socket of the game
    (but the one that sent it: ``others``)."""
    for watch in watches:
        await watch.wait(state_at(v, status))


def others(play: Watch, watches: list[Watch]) -> list[Watch]:
    """The sockets that hear of what ``play`` sent: its answer is its ``ack``."""
    return [watch for watch in watches if watch is not play]


async def ws_act(
    play: Watch, watches: list[Watch], seq: int, action: dict[str, Any], kind: str
) -> None:
    table = play.table
    before = table.seq
    await play.socket.send({"seq": seq, "action": action})
    reply = await play.reply()
    if reply["type"] == "error":
        if reply["error"]["code"] == "seq_conflict":
            assert reply["error"]["seq"] == before, (kind, reply)  # a refusal changes nothing
        return
    assert reply["type"] == "ack", reply
    table.view = reply["game"]["view"]
    if reply["duplicate"]:
        assert reply["v"] == before, reply
        return
    assert reply["v"] == table.seq == before + 1, reply
    table.last = (before, action)
    play.tally.accepted["ws"] += 1
    await everyone_hears(others(play, watches), reply["v"])


async def ws_step(play: Watch, watches: list[Watch], rng: random.Random) -> None:
    """One random step on the play socket (or the spectator trying to play)."""
    table, roll = play.table, rng.random()
    if roll < 0.08:  # a reload without reconnecting
        await play.socket.send({"type": "snapshot"})
        table.view = (await play.reply())["game"]["view"]
    elif roll < 0.14 and table.last:
        await ws_act(play, watches, *table.last, "resend")
    elif roll < 0.2:
        seq = table.seq + rng.choice([-1, 1, 5]) if table.seq else 2
        await ws_act(play, watches, seq, {"type": "undo"}, "stale seq")
    elif roll < 0.24:
        await play.socket.send_to(text_data=rng.choice(BAD_FRAMES))
        assert (await play.reply())["type"] == "error"
    elif roll < 0.32 and len(watches) > 1:  # the spectator acts: refused, nothing applied
        spectator = watches[1]
        await spectator.socket.send({"seq": table.seq, "action": pick_action(table, rng)})
        assert (await spectator.reply())["error"]["code"] == "spectator"
    else:
        await ws_act(play, watches, table.seq, pick_action(table, rng), "action")


async def ws_resign(play: Watch, watches: list[Watch]) -> None:
    await play.socket.send({"type": "resign"})
    reply = await play.reply()
    assert reply["type"] == "ack" and reply["game"]["status"] == "resigned", reply
    play.table.view = reply["game"]["view"]
    await everyone_hears(others(play, watches), play.table.seq, "resigned")


class Boards:
    """The day's four leaderboard sockets, open throughout: they name no card.
    One reader at a time per socket; rows read are remembered for any waiter."""

    def __init__(self, tally: Tally) -> None:
        today = utc_today().isoformat()
        variants = sorted(set(VARIANTS))
        self.tally = tally
        self.sockets = {v: socket_for(f"/ws/leaderboard/{today}/{v}/") for v in variants}
        self.locks = {v: asyncio.Lock() for v in variants}
        self.seen: set[tuple[str, str]] = set()

    async def open(self) -> None:
        for variant, socket in self.sockets.items():
            assert (await socket.connect(timeout=TIMEOUT))[0]
            assert (await self.recv(variant))["type"] == "subscribed"

    async def recv(self, variant: str) -> dict[str, Any]:
        message = await self.sockets[variant].recv(timeout=TIMEOUT)
        check_cardless(message, "leaderboard socket")
        check_unnamed(message, self.tally.never, "leaderboard socket")
        self.tally.ws[f"leaderboard {message['type']}"] += 1
        for row in message.get("rows", []):
            self.seen.add((variant, row["player"]))
        return message

    async def finished(self, variant: str, player: str) -> None:
        """A ranked attempt ended: its row comes."""
        async with self.locks[variant]:
            while (variant, player) not in self.seen:
                await self.recv(variant)

    async def close(self) -> None:
        await asyncio.gather(*(s.disconnect() for s in self.sockets.values()))


# --- a stream of games ----------------------------------------------------------------------


@dataclass
class Stream:
    """Players of their own, and what they did with today's daily deals."""

    number: int
    players: list[Client]
    veteran: Client  # won every daily deal of the day first: may watch any of its games
    boards: Boards
    tally: Tally
    started_daily: set[tuple[str, str]] = field(default_factory=set)  # (player, variant)
    finished_daily: dict[str, set[str]] = field(default_factory=dict)  # variant -> players

    def practice_code(self, variant: str, rng: random.Random) -> str:
        """A numbered deal: never a daily deal (those are long codes, checked at the
        start), so it is never one still running (those wait: anti-cheat)."""
        return f"{variant}-{encode_deal(rng.randint(1, 999_999))}"

    def plan_start(self, rng: random.Random) -> tuple[Client, dict[str, Any]]:
        owner, variant = rng.choice(self.players), rng.choice(VARIANTS)
        if rng.random() < 0.3:
            if (owner.username, variant) not in self.started_daily:
                self.started_daily.add((owner.username, variant))
                return owner, {"daily": variant}
            if owner.username in self.finished_daily.get(variant, set()):
                # Their ranked attempt is over: they ask to practise its deal.
                return owner, {"daily": variant, "practice": True}
        return owner, {"code": self.practice_code(variant, rng)}

    def spectator(self, table: Table, rng: random.Random) -> Client:
        """Someone allowed to watch: anyone on a numbered practice deal; on today's
        daily deal (ranked or a practice of it) only a player who won their own
        ranked attempt on it — the veteran (PRODUCT.md, anti-cheat)."""
        everyone = [self.veteran, *self.players]
        allowed = [
            p for p in everyone if p is not table.owner and (not table.daily or p is self.veteran)
        ]
        return rng.choice(allowed)

    def other(self, table: Table, rng: random.Random) -> Client:
        return rng.choice([p for p in self.players if p is not table.owner])

    async def resigned_daily(self, table: Table) -> None:
        await self.boards.finished(table.variant, table.owner.username)
        self.finished_daily.setdefault(table.variant, set()).add(table.owner.username)


async def win_every_daily(tally: Tally, veteran: Client, boards: Boards) -> None:
    """The veteran wins every daily deal of the day by the solver's line (its
    proof, read from the database), over HTTP, every answer checked."""
    for variant in sorted(set(VARIANTS)):
        daily = await in_thread(daily_deal_prepare)(date=utc_today(), variant=variant)
        table = await in_thread(http_start)(tally, veteran, {"daily": variant})
        for seq, action in enumerate(daily.proof):
            assert await in_thread(http_act)(tally, table, seq, action, "proof")
        assert table.game.won and table.view["won"], table.view
        await boards.finished(variant, veteran.username)


async def start_stream(
    number: int, make_player: Any, boards: Boards, veteran: Client, never: tuple[str, ...]
) -> Stream:
    """Players sign up; the day's veteran (who won every daily) watches their games."""
    players = [await in_thread(make_player)() for _ in range(PLAYERS)]
    return Stream(number, players, veteran, boards, Tally(never))


async def play_game(stream: Stream, index: int) -> None:
    """One game: started and played a little over HTTP, then on the sockets."""
    rng = random.Random(f"{SEED}/{index}")  # each game replays alone from its number
    owner, body = stream.plan_start(rng)
    table = await in_thread(http_start)(stream.tally, owner, body)
    kind = "daily" if table.ranked else "daily practice" if table.daily else "practice"
    stream.tally.games[f"{table.variant} {kind}"] += 1
    steps = 3 if table.easy_harp else 2
    for _ in range(rng.randint(1, steps)):
        await in_thread(http_step)(stream.tally, table, rng)
    watches = [Watch(stream.tally, table, owner, "player")]
    if rng.random() < 0.2:
        watches.append(Watch(stream.tally, table, stream.spectator(table, rng), "spectator"))
    try:
        await play_on_sockets(stream, table, watches, rng, steps)
    finally:
        await asyncio.gather(*(watch.close() for watch in watches), return_exceptions=True)


async def play_on_sockets(
    stream: Stream, table: Table, watches: list[Watch], rng: random.Random, steps: int
) -> None:
    play = watches[0]
    table.view = (await play.open())["game"]["view"]
    for spectator in watches[1:]:
        await spectator.open()
    for _ in range(rng.randint(1, steps)):
        await ws_step(play, watches, rng)
        # Now and then an HTTP action while the sockets listen: they hear of it too.
        if rng.random() < 0.15 and await in_thread(http_step)(stream.tally, table, rng):
            await everyone_hears(watches, table.seq)
    if rng.random() < 0.05:  # a reconnect: the snapshot comes first
        await play.close()
        play = watches[0] = Watch(stream.tally, table, table.owner, "player")
        table.view = (await play.open())["game"]["view"]
    if rng.random() < 0.25:
        await in_thread(http_look)(stream.tally, table, stream.other(table, rng), rng)
    await finish(stream, table, play, watches, rng)


async def finish(
    stream: Stream, table: Table, play: Watch, watches: list[Watch], rng: random.Random
) -> None:
    """Resign (over HTTP or on the socket) or leave the game playing; a game
    over refuses any further action, without saying more."""
    if rng.random() >= (0.4 if table.ranked else 0.12):
        return
    if rng.random() < 0.5:
        await ws_resign(play, watches)
    else:
        await in_thread(http_resign)(stream.tally, table)
        await everyone_hears(watches, table.seq, "resigned")
    if table.ranked:
        await stream.resigned_daily(table)
    await ws_act(play, watches, table.seq, pick_action(table, rng), "after the end")


async def whole_stock_game(stream: Stream, *, socket: bool) -> None:
    """Easy Harp through the whole stock and over again, undoing now and then
    (across the turn-over too): the stock's order never shows."""
    rng = random.Random(f"{SEED}/stock/{stream.number}")
    owner = stream.players[0]
    body = {"code": stream.practice_code("EH1-N", rng)}
    table = await in_thread(http_start)(stream.tally, owner, body)
    stream.tally.games["EH1-N practice, whole stock"] += 1
    play = Watch(stream.tally, table, owner, "player")
    try:
        table.view = (await play.open())["game"]["view"]
        turned, after = False, 0
        while after < 6:
            action = {"type": "undo"} if rng.random() < 0.08 and table.seq else {"type": "stock"}
            turned |= not table.game.piles["s"] and action["type"] == "stock"
            after += turned
            if socket:
                await ws_act(play, [play], table.seq, action, "stock")
            elif await in_thread(http_act)(stream.tally, table, table.seq, action, "stock"):
                await everyone_hears([play], table.seq)
    finally:
        await play.close()


async def run_stream(stream: Stream, games: range) -> None:
    if stream.number < 2:
        await whole_stock_game(stream, socket=stream.number == 1)
    names = [p.username for p in stream.players]
    for index in games:
        await play_game(stream, index)
        if index // STREAMS % 40 == 0:
            rng = random.Random(f"{SEED}/overview/{index}")
            await in_thread(http_overview)(stream.tally, rng.choice(stream.players), names, rng)


# --- the test -------------------------------------------------------------------------------


@in_thread
def prepare_dailies() -> tuple[str, ...]:
    """Today's daily deals, prepared as the job does (before anyone asks for one:
    asking first would make it unproven), and what would name each: its code, its
    key, the key's number. Read from the database: the API never sends them."""
    never: list[str] = []
    for variant in ALL_VARIANTS:
        daily = daily_deal_prepare(date=utc_today(), variant=variant)
        code = GameCode.parse(daily.deal.code)
        assert code.long and daily.proof, daily  # a secret key, and a line that wins it
        never += [str(code), code.deal, str(code.number)]
    return tuple(never)


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)  # socket handlers run on threads of their own
async def test_no_hidden_card_reaches_any_client_over_a_thousand_games(make_player):
    """The module docstring says how; the counts it prints say how much."""
    began = time.monotonic()
    never = await prepare_dailies()
    tally = Tally(never)
    boards = Boards(tally)
    await boards.open()
    veteran = await in_thread(make_player)()
    try:
        await win_every_daily(tally, veteran, boards)
        streams = [
            await start_stream(n, make_player, boards, veteran, never) for n in range(STREAMS)
        ]
        async with asyncio.TaskGroup() as group:
            for stream in streams:
                group.create_task(run_stream(stream, range(stream.number, GAMES, STREAMS)))
    except ExceptionGroup as failed:  # the first stream to fail, and why
        raise failed.exceptions[0] from None
    finally:
        await boards.close()
    for stream in streams:
        tally.add(stream.tally)
    print(f"\n{tally.summary()}\nin {time.monotonic() - began:.1f} s")

    played = sum(n for kind, n in tally.games.items() if "whole stock" not in kind)
    assert played == GAMES >= 1_000
    assert await in_thread(Attempt.objects.count)() >= GAMES
    for variant in set(VARIANTS):
        assert tally.games[f"{variant} daily"] and tally.games[f"{variant} practice"], tally.games
    practised = sum(n for kind, n in tally.games.items() if kind.endswith("daily practice"))
    assert practised >= 40, tally.games  # today's deals practised after a resignation
    # What the run exercised: about one and a half times each of these when written.
    assert tally.accepted["http"] >= 900 and tally.accepted["ws"] >= 700, tally.accepted
    # The player's socket hears of actions sent over HTTP and of proofs, not of its own.
    assert tally.ws["player ack"] >= GAMES and tally.ws["player state"] >= 240, tally.ws
    assert tally.ws["spectator state"] >= 150, tally.ws
    assert tally.ws["player error"] >= 500 and tally.http["action"] >= GAMES, tally
    assert tally.ws["leaderboard rows"] >= 80, tally.ws


# --- the checker itself catches leaks -------------------------------------------------------


def player_view(game: Game) -> dict[str, Any]:
    return {"status": "playing", "view": {**game.view(), "targets": game.targets_json()}}


def leaky_bodies(game: Game) -> dict[str, tuple[Any, str]]:
    """Bodies that each leak one thing of ``game`` (an Easy Harp deal at the
    start), with what the checker must say of it."""
    secret = hidden_only(game)
    column = next(t for t in game.columns if game.down[t] >= 2)
    down_card = next(c.text for c in game.piles[column][: game.down[column]] if c.text in secret)
    shown = player_view(game)
    shown["view"]["piles"][column] = [c.text for c in game.piles[column]]
    stock = [c.text for c in game.piles["s"]]
    named = "hidden card"
    return {
        "a face-down card in the view": (shown, "shows hidden cards"),
        "a face-down card in an event": ({"type": "state", "game": {"x": down_card}}, named),
        "a face-down card in an error": ({"error": {"message": f"not {down_card}"}}, named),
        "a face-down card in error params": ({"error": {"params": {"card": down_card}}}, named),
        "the stock as a list": ({"type": "state", "hint": stock}, "hidden order"),
        "the stock's order in a string": ({"message": " ".join(stock[::-1])}, named),
    }


@pytest.mark.parametrize("leak", list(leaky_bodies(new_game("EH1-N-AAAAAAF"))))
def test_the_checker_flags_each_kind_of_leak(leak):
    game = new_game("EH1-N-AAAAAAF")
    body, says = leaky_bodies(game)[leak]
    with pytest.raises(AssertionError, match=says):
        check_body(body, game, leak)
    check_body(player_view(game), game, "the player's view is no leak")


def test_naming_a_running_daily_is_flagged():
    code = GameCode("EH1", "N", 0x1234_5678_9ABC_DEF0_1234_5678_9ABC_DEF0, long=True)
    never = (str(code), code.deal, str(code.number))
    for leak in (str(code), code.deal.lower(), f"key {code.number}"):
        with pytest.raises(AssertionError, match="names a running daily"):
            check_unnamed({"type": "state", "game": {"hint": leak}}, never, leak)
    check_unnamed({"code": None, "daily": {"date": "2026-07-01", "variant": "EH1-N"}}, never, "ok")


def test_bodies_about_no_game_may_name_no_card():
    with pytest.raises(AssertionError):
        check_cardless({"rows": [{"player": "ada", "hint": "QS"}]}, "leaderboard")
    check_cardless({"code": "EH1-N-AAAAAAF", "date": "2026-07-01", "variant": "SH1-C2"}, "ok")
    assert not CARD.findall("EH1-N-AAAAAJ2 SH1-C4 2026-07-01 player12")
