"""Access matrix (issue 7): who may do what to whose game, on every endpoint, socket and page.

What it proves. Five roles meet the games of one player, the *owner*:

- ``anonymous`` — not signed in;
- ``other`` — signed in, has opened today's daily of the subject's variant but
  not finished it;
- ``resigned`` — signed in, has finished today's dailies by resigning: its
  replays and live games stay closed to them until the day is over, and no
  practice copy of it is dealt to them (PRODUCT.md, anti-cheat: a second
  account that resigns at once must not read the deal);
- ``winner`` — signed in, has won today's dailies (SH1-C4 and EH1-N): the
  spoiler rule lets them see every replay and live game of those deals;
- ``owner`` — the player of the subject, who resigned today's EH1-N daily
  and is playing today's SH1-C4 one.

The subjects are the owner's games: today's daily in progress and finished, a
practice game in progress and finished, yesterday's finished daily, a practice
game on today's (finished) daily deal in progress (made as the API made one
before issue 36 closed running dailies to practice), the owner's sealed game of a
race still running and their game of a race over (issue 29: a race's games are
their players' alone until it ends, then practice games like any other), and a
game id that does not exist. Each line of ``TABLE`` gives, for one endpoint (or socket, or page) and
one subject, what each role gets — a status and error code, a socket accepted
as the player or as a spectator or closed with a code, a game listed or not —
as PRODUCT.md ("Anti-cheat", "HTTP API", "Errors") and games/websocket.md say.
Where they say nothing and the product's behaviour is sensible, the cell
encodes the behaviour and a comment says so. Every cell is its own test.

How. The world is built once for the module through the real API and
committed, because a socket's handlers run on threads of their own and only see
committed rows; the module flushes the database when it ends, as a
transactional test does. Each row signs in as its role (the role's client, its
session and CSRF cookies reset). An HTTP row runs inside a transaction rolled
back after it (pytest-django ``db``), so a row that plays, resigns, signs up or
changes a setting leaves the world as it was for the next. A socket row goes
through the real ASGI app (Channels' communicator) and only probes: once
connected it sends an action with a ``seq`` far ahead, which the player is
refused as ``seq_conflict`` and a spectator as ``spectator`` — neither applies
anything. Every refusal must have the error shape (``assert_error``); every row
but an allowed write must leave accounts, games and actions exactly as they
were, and an allowed write must have its effect.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
from collections.abc import Callable
from dataclasses import dataclass
from http.cookies import SimpleCookie
from typing import Any
from urllib.parse import urlencode

import pytest
from django.core.management import call_command
from django.urls import reverse

from accounts.models import User
from games.dailies import daily_deal_prepare, utc_today
from games.engine import load_game
from games.models import Action, Attempt, DailyDeal
from races import services as race_services
from tests.support.api import (
    Client,
    assert_error,
    legacy_daily_practice,
    sign_up,
    start,
    win_daily,
)
from tests.support.races import create as race_create
from tests.support.races import get as race_get
from tests.support.races import post as race_post
from tests.support.sockets import socket_for

PASSWORD = "correct horse battery"
ROLES = ("anonymous", "other", "resigned", "winner", "owner")
PRACTICE = "SH1-C4-AAAAAAE"  # practice deals: no daily deal of these numbers is running
PRACTICE_DONE = "SH1-C2-AAAAAJ2"
RACE_RUNNING, RACE_OVER = PRACTICE, PRACTICE_DONE  # raced too, in games of their own
FAR_AHEAD = 10**6  # a seq no game has reached: refused as a conflict, so nothing is applied

# --- the world --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Subject:
    id: int
    code: str = ""  # the deal's code as stored: a running daily's is never sent
    variant: str = ""
    date: str = ""  # the daily's date, for its leaderboard
    secret: bool = False  # the deal is a daily whose day runs


@dataclass(frozen=True)
class World:
    cookies: dict[str, dict[str, str]]  # role -> its session (none when anonymous) and CSRF cookies
    clients: dict[str, Client]  # one per role, its cookies reset before each row
    usernames: dict[str, str]
    user_ids: dict[str, int]
    subjects: dict[str, Subject]


def legal_action(attempt_id: int) -> dict[str, Any]:
    """An action the engine accepts in the attempt's stored position, so that a
    refusal of it is about who sends it, not what."""
    game = load_game(Attempt.objects.get(pk=attempt_id).state)
    targets = game.targets_json()
    if not targets and "s" in game.pile_ids:
        return {"type": "stock"}  # Easy Harp: the stock can always be tapped
    if not targets:  # a 1-cell deal may start without one (its cell full): refused anyway
        return {"type": "move", "from": "t1", "to": "t2", "count": 1}
    first = targets[0]
    return {"type": "move", "from": first["from"], "to": first["to"][0], "count": first["count"]}


def _play(client: Client, attempt: dict[str, Any]) -> None:
    body = {"seq": attempt["seq"], "action": legal_action(attempt["id"])}
    response = client.send(f"/api/games/{attempt['id']}/actions/", body)
    assert response.status_code == 200, response.content


def _resign(client: Client, attempt: dict[str, Any]) -> None:
    response = client.send(f"/api/games/{attempt['id']}/resign/")
    assert response.status_code == 200, response.content


def _subject(attempt: dict[str, Any]) -> Subject:
    code = Attempt.objects.get(pk=attempt["id"]).deal.code
    secret = attempt["code"] is None
    assert secret == (attempt["daily"] == utc_today().isoformat()), attempt
    return Subject(attempt["id"], code, attempt["variant"], attempt["daily"] or "", secret)


def _race(owner: Client, rival: Client, code: str, *, end: bool) -> Subject:
    """The owner's game of a race on ``code`` against ``rival``, in which the owner
    made a move; with ``end`` both resign and the race is over, else it runs."""
    slug = race_create(owner, {"code": code})["id"]
    race_post(rival, slug, "join")
    with pytest.MonkeyPatch.context() as patch:  # the clocks start at once
        patch.setattr(race_services, "COUNTDOWN", dt.timedelta(0))
        race_post(owner, slug, "start")
    game = race_get(owner, slug)["you"]["attempt"]
    _play(owner, {"id": game, "seq": 0})
    if end:
        race_post(rival, slug, "leave")
        _resign(owner, {"id": game})
        assert race_get(owner, slug)["status"] == "finished"
    attempt = Attempt.objects.get(pk=game)
    assert attempt.sealed is not end and attempt.finished is end
    return Subject(game, code, attempt.deal.variant)


def build_world() -> World:
    roles = ("owner", "other", "resigned", "winner")
    clients = {role: sign_up(f"matrix-{role}", PASSWORD) for role in roles}
    owner = clients["owner"]
    for variant in ("SH1-C4", "EH1-N"):  # proven, so that the winner can win them
        assert daily_deal_prepare(date=utc_today(), variant=variant).proof

    # Yesterday's daily, played and resigned; then the day goes by (as in test_anticheat).
    past = start(owner, daily="SH1-C1")
    if load_game(Attempt.objects.get(pk=past["id"]).state).targets_json():
        _play(owner, past)  # a 1-cell deal may start without a move (its cell full)
    _resign(owner, past)
    yesterday = utc_today() - dt.timedelta(days=1)
    DailyDeal.objects.filter(date=utc_today(), variant="SH1-C1").update(date=yesterday)
    past = owner.get(f"/api/games/{past['id']}/").json()
    assert past["daily"] == yesterday.isoformat() and past["code"], past  # revealed now

    daily = start(owner, daily="SH1-C4")
    _play(owner, daily)
    daily_done = start(owner, daily="EH1-N")
    _play(owner, daily_done)
    _resign(owner, daily_done)
    practice = start(owner, code=PRACTICE)
    _play(owner, practice)
    practice_done = start(owner, code=PRACTICE_DONE)
    _play(owner, practice_done)
    _resign(owner, practice_done)
    # A practice of today's deal, as dealt before issue 36 refused it to everyone.
    daily_practice = legacy_daily_practice(owner, "EH1-N")
    _play(owner, daily_practice)
    rival = sign_up("matrix-rival", PASSWORD)  # in the owner's races, no role of its own
    race_running = _race(owner, rival, RACE_RUNNING, end=False)
    race_over = _race(owner, rival, RACE_OVER, end=True)

    for variant in ("SH1-C4", "EH1-N"):
        start(clients["other"], daily=variant)
        _resign(clients["resigned"], start(clients["resigned"], daily=variant))
        win_daily(clients["winner"], variant)

    missing = Attempt.objects.order_by("-pk").values_list("pk", flat=True).first() + 1000
    users = {role: User.objects.get(username=f"matrix-{role}") for role in clients}
    clients["anonymous"] = Client()
    return World(
        cookies={role: {k: v.value for k, v in c.cookies.items()} for role, c in clients.items()},
        clients=clients,
        usernames={role: user.username for role, user in users.items()},
        user_ids={role: user.pk for role, user in users.items()},
        subjects={
            "daily_playing": _subject(daily),
            "daily_finished": _subject(daily_done),
            "practice_playing": _subject(practice),
            "practice_finished": _subject(practice_done),
            "past_daily": _subject(past),
            "daily_practice": _subject(daily_practice),
            "race_running": race_running,
            "race_over": race_over,
            "missing": Subject(missing),
        },
    )


@pytest.fixture(scope="module")
def world(django_db_setup, django_db_blocker):
    try:
        with django_db_blocker.unblock():
            built = build_world()
        yield built
    finally:  # what a transactional test does after itself, even if the build failed
        with django_db_blocker.unblock():
            call_command("flush", verbosity=0, interactive=False)


ATTEMPT_FIELDS = (
    "player_id", "ranked", "status", "seq", "state", "score", "moves", "won",
    "updated_at", "finished_at", "verified",
)  # fmt: skip
USER_FIELDS = (
    "username", "password", "language", "double_click", "interactive_rules",
    "theme", "deck", "sounds", "motion", "tap", "is_guest",
)  # fmt: skip


def stored() -> dict[str, Any]:
    """What a request could change: accounts and their settings, games, actions."""
    return {
        "users": {u["pk"]: u for u in User.objects.values("pk", *USER_FIELDS)},
        "attempts": {a["pk"]: a for a in Attempt.objects.values("pk", *ATTEMPT_FIELDS)},
        "actions": sorted(Action.objects.values_list("pk", "attempt_id", "seq")),
    }


# --- endpoints --------------------------------------------------------------------------------


@dataclass
class Ctx:
    world: World
    role: str
    subject: Subject | None
    client: Client

    @property
    def game(self) -> str:
        assert self.subject is not None
        return f"/api/games/{self.subject.id}/"

    @property
    def user_id(self) -> int:
        return self.world.user_ids[self.role]


def client_as(world: World, role: str) -> Client:
    """The role's client with the role's cookies, whatever the last row did to them.
    (The clients are reused: a new test client sets its middleware up again.)"""
    client = world.clients[role]
    client.cookies = SimpleCookie(world.cookies[role])
    return client


GAME_PROBE = {"seq": FAR_AHEAD, "action": {"type": "undo"}}


async def _open_socket(path: str, client: Client | None, probe: dict[str, Any]) -> dict[str, Any]:
    """Connect; a refusal is a close right after the handshake (websocket.md, close
    codes). An accepted socket's first message is kept, and its answer to ``probe``."""
    sock = socket_for(path, client)
    connected, _ = await sock.connect()
    try:
        assert connected, path
        first = await sock.receive_output(timeout=5)
        if first["type"] == "websocket.close":
            return {"closed": first["code"]}
        said = json.loads(first["text"])
        if said["type"] == "error":  # a refusal says why, then closes
            closing = await sock.receive_output(timeout=5)
            assert closing["type"] == "websocket.close", closing
            return {"closed": closing["code"], "why": said["error"]}
        await sock.send(probe)
        return {"first": json.loads(first["text"]), "reply": await sock.recv(timeout=5)}
    finally:
        await sock.disconnect()


def socket(path: Callable[[Ctx], str], probe: dict[str, Any]) -> Callable[[Ctx], Any]:
    def call(ctx: Ctx) -> dict[str, Any]:
        client = None if ctx.role == "anonymous" else ctx.client
        # Its own event loop, not asgiref's async_to_sync: that would run the socket's
        # session lookup on this thread, whose connection is inside the row's transaction
        # (which Channels would close). The socket's database work sees the committed world.
        return asyncio.run(_open_socket(path(ctx), client, probe))

    return call


def _one_more_action(ctx: Ctx, response: Any, before: dict, after: dict) -> None:
    seq = before["attempts"][ctx.subject.id]["seq"]
    assert response.json()["seq"] == after["attempts"][ctx.subject.id]["seq"] == seq + 1
    assert len(after["actions"]) == len(before["actions"]) + 1


def _resigned(ctx: Ctx, response: Any, before: dict, after: dict) -> None:
    assert response.json()["status"] == "resigned"
    assert after["attempts"][ctx.subject.id]["status"] == "resigned"
    assert after["actions"] == before["actions"]


def _new_practice(ctx: Ctx, response: Any, before: dict, after: dict) -> None:
    body = response.json()
    assert body["ranked"] is False and body["status"] == "playing"
    assert body["player"] == ctx.world.usernames[ctx.role]
    if ctx.subject is not None:
        assert Attempt.objects.get(pk=body["id"]).deal.code == ctx.subject.code
        # A running daily practised stays nameless (PRODUCT.md, fair daily deals).
        assert body["code"] == (None if ctx.subject.secret else ctx.subject.code)
        assert body["view"]["code"] == body["code"]
    assert set(after["attempts"]) - set(before["attempts"]) == {body["id"]}
    assert after["attempts"][body["id"]]["player_id"] == ctx.user_id


def _new_user(ctx: Ctx, response: Any, before: dict, after: dict) -> None:
    assert response.json()["username"] == "matrix-newcomer"
    new = [u["username"] for pk, u in after["users"].items() if pk not in before["users"]]
    assert new == ["matrix-newcomer"]
    assert after["attempts"] == before["attempts"]


def _new_guest(ctx: Ctx, response: Any, before: dict, after: dict) -> None:
    if response.status_code == 200:  # signed in: the same account, nothing made
        assert response.json()["username"] == ctx.world.usernames[ctx.role]
        assert after == before
        return
    assert response.json() == {
        "authenticated": False, "username": None, "settings": None, "guest": True,
        "email": None, "email_verified": False,
    }  # fmt: skip
    new = [u for pk, u in after["users"].items() if pk not in before["users"]]
    assert len(new) == 1 and new[0]["is_guest"] and new[0]["username"].startswith("guest-"), new
    assert after["attempts"] == before["attempts"]


def _setting_changed(ctx: Ctx, response: Any, before: dict, after: dict) -> None:
    assert response.json()["double_click"] is False
    assert User.objects.get(pk=ctx.user_id).double_click is False
    assert after["attempts"] == before["attempts"]


def _signed_in(ctx: Ctx, response: Any, before: dict, after: dict) -> None:
    name = ctx.world.usernames["owner" if ctx.role == "anonymous" else ctx.role]
    assert response.json()["username"] == name
    assert ctx.client.get("/api/auth/me/").json()["username"] == name
    assert after == before


def _signed_out(ctx: Ctx, response: Any, before: dict, after: dict) -> None:
    assert response.json()["authenticated"] is False
    assert ctx.client.get("/api/auth/me/").json()["authenticated"] is False
    assert after == before


def _same_daily(ctx: Ctx, response: Any, before: dict, after: dict) -> None:
    # "asking for the daily again returns the same attempt (200)": each role has opened it.
    body = response.json()
    assert body["ranked"] is True and body["player"] == ctx.world.usernames[ctx.role]
    assert after == before


@dataclass(frozen=True)
class Endpoint:
    what: str  # the method and path, for the reader
    call: Callable[[Ctx], Any]
    effect: Callable[[Ctx, Any, dict, dict], None] | None = None
    """For a write: what an allowed call changed (others must change nothing)."""


def _login_body(ctx: Ctx) -> dict[str, str]:
    name = ctx.world.usernames["owner" if ctx.role == "anonymous" else ctx.role]
    return {"username": name, "password": PASSWORD}


def _board(ctx: Ctx) -> str:
    return f"/api/leaderboard/{ctx.subject.date}/{ctx.subject.variant}/"


ENDPOINTS: dict[str, Endpoint] = {
    # -- per subject (the owner's game)
    "game": Endpoint("GET /api/games/{id}/", lambda c: c.client.get(c.game)),
    "actions": Endpoint(
        "POST /api/games/{id}/actions/ (a legal action, the current seq)",
        lambda c: c.client.send(
            c.game + "actions/",
            {
                "seq": Attempt.objects.get(pk=c.subject.id).seq if c.subject.code else 0,
                "action": legal_action(c.subject.id) if c.subject.code else {"type": "undo"},
            },
        ),
        _one_more_action,
    ),
    "resign": Endpoint(
        "POST /api/games/{id}/resign/", lambda c: c.client.send(c.game + "resign/"), _resigned
    ),
    "replay": Endpoint("GET /api/games/{id}/replay/", lambda c: c.client.get(c.game + "replay/")),
    "last_winnable": Endpoint(
        "GET /api/games/{id}/last-winnable/", lambda c: c.client.get(c.game + "last-winnable/")
    ),
    "analysis": Endpoint(
        "GET /api/games/{id}/analysis/", lambda c: c.client.get(c.game + "analysis/")
    ),
    "would_rank": Endpoint(
        "GET /api/leaderboard/would-rank/{id}/",
        lambda c: c.client.get(f"/api/leaderboard/would-rank/{c.subject.id}/"),
    ),
    "ws_game": Endpoint(
        "/ws/games/{id}/ (then an action far ahead)",
        socket(lambda c: f"/ws/games/{c.subject.id}/", GAME_PROBE),
    ),
    "live": Endpoint("GET /api/live/ (the subject listed?)", lambda c: c.client.get("/api/live/")),
    "practise": Endpoint(
        'POST /api/games/ {"code": the subject\'s deal}',
        lambda c: c.client.send("/api/games/", {"code": c.subject.code}),
        _new_practice,
    ),
    "board": Endpoint(
        "GET /api/leaderboard/{date}/{variant}/ (the subject's row)",
        lambda c: c.client.get(_board(c)),
    ),
    "page_play": Endpoint("GET /play/{id}/", lambda c: c.client.get(f"/play/{c.subject.id}/")),
    "page_watch": Endpoint("GET /watch/{id}/", lambda c: c.client.get(f"/watch/{c.subject.id}/")),
    "page_replay": Endpoint(
        "GET /replay/{id}/", lambda c: c.client.get(f"/replay/{c.subject.id}/")
    ),
    # -- per role only
    "me": Endpoint("GET /api/auth/me/", lambda c: c.client.get("/api/auth/me/")),
    "settings": Endpoint("GET /api/auth/settings/", lambda c: c.client.get("/api/auth/settings/")),
    "settings_patch": Endpoint(
        'PATCH /api/auth/settings/ {"double_click": false}',
        lambda c: c.client.patch("/api/auth/settings/", {"double_click": False}, format="json"),
        _setting_changed,
    ),
    "guest": Endpoint(
        "POST /api/auth/guest/", lambda c: c.client.send("/api/auth/guest/"), _new_guest
    ),
    "register": Endpoint(
        "POST /api/auth/register/ (a new name)",
        lambda c: c.client.send(
            "/api/auth/register/", {"username": "matrix-newcomer", "password": PASSWORD}
        ),
        _new_user,
    ),
    "login": Endpoint(
        "POST /api/auth/login/ (own name; anonymous: the owner's)",
        lambda c: c.client.send("/api/auth/login/", _login_body(c)),
        _signed_in,
    ),
    "logout": Endpoint(
        "POST /api/auth/logout/", lambda c: c.client.send("/api/auth/logout/"), _signed_out
    ),
    "daily": Endpoint("GET /api/daily/", lambda c: c.client.get("/api/daily/")),
    "start_daily": Endpoint(
        'POST /api/games/ {"daily": "SH1-C4"}',
        lambda c: c.client.send("/api/games/", {"daily": "SH1-C4"}),
        _same_daily,
    ),
    "practise_daily": Endpoint(
        'POST /api/games/ {"daily": "EH1-N", "practice": true}',
        lambda c: c.client.send("/api/games/", {"daily": "EH1-N", "practice": True}),
    ),
    "daily_day": Endpoint(
        "GET /api/daily/{yesterday}/",
        lambda c: c.client.get(f"/api/daily/{utc_today() - dt.timedelta(days=1)}/"),
    ),
    "start_random": Endpoint(
        'POST /api/games/ {"random": "SH1-C2"}',
        lambda c: c.client.send("/api/games/", {"random": "SH1-C2"}),
        _new_practice,
    ),
    "player": Endpoint(
        "GET /api/players/{owner}/",
        lambda c: c.client.get(f"/api/players/{c.world.usernames['owner']}/"),
    ),
    "calendar": Endpoint(
        "GET /api/players/{owner}/calendar/",
        lambda c: c.client.get(f"/api/players/{c.world.usernames['owner']}/calendar/"),
    ),
    "schema": Endpoint("GET /api/schema/", lambda c: c.client.get("/api/schema/")),
    "ws_board": Endpoint(
        "/ws/leaderboard/{today}/SH1-C4/ (then a ping)",
        socket(lambda c: f"/ws/leaderboard/{utc_today().isoformat()}/SH1-C4/", {"type": "ping"}),
    ),
    "page_live": Endpoint("GET /live/", lambda c: c.client.get("/live/")),
}


# --- outcomes ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Ok:
    status: int = 200

    def check(self, ctx: Ctx, response: Any) -> None:
        assert response.status_code == self.status, (response.status_code, response.content[:300])
        assert response["Content-Type"].startswith(
            ("application/json", "application/vnd.oai.openapi")
        ), response["Content-Type"]


@dataclass(frozen=True)
class Refused:
    status: int | tuple[int, ...]
    code: str

    def check(self, ctx: Ctx, response: Any) -> None:
        assert_error(response, self.status, self.code)


@dataclass(frozen=True)
class Page:
    """The page shell (no game data: the page's script asks the API and the socket)."""

    def check(self, ctx: Ctx, response: Any) -> None:
        assert response.status_code == 200, response.status_code
        assert response["Content-Type"].startswith("text/html"), response["Content-Type"]


@dataclass(frozen=True)
class ToLogin:
    """A page that needs a session sends the visitor to sign in, then back."""

    def check(self, ctx: Ctx, response: Any) -> None:
        assert response.status_code == 302, response.status_code
        back = urlencode({"next": response.wsgi_request.get_full_path()})
        assert response["Location"] == f"{reverse('frontend:login')}?{back}"


@dataclass(frozen=True)
class Ws:
    """A socket accepted: as the player, as a spectator, or on a leaderboard."""

    as_: str

    def check(self, ctx: Ctx, result: dict[str, Any]) -> None:
        assert "closed" not in result, f"closed with {result.get('closed')}"
        first, reply = result["first"], result["reply"]
        if self.as_ == "subscribed":
            assert first["type"] == "subscribed", first
            assert reply == {"type": "pong"}, reply
            return
        assert first["type"] == "snapshot", first
        assert first["game"]["id"] == ctx.subject.id
        assert first["game"]["player"] == ctx.world.usernames["owner"]
        # The far-ahead action: the player's is checked (and refused), a spectator's is not.
        expected = "seq_conflict" if self.as_ == "player" else "spectator"
        assert reply["type"] == "error" and reply["error"]["code"] == expected, reply


@dataclass(frozen=True)
class Closed:
    code: int
    why: str | None = None  # the error code the socket sends before closing

    def check(self, ctx: Ctx, result: dict[str, Any]) -> None:
        assert result.get("closed") == self.code, result
        if self.why is not None:
            assert result["why"]["code"] == self.why, result


@dataclass(frozen=True)
class Live:
    listed: bool

    def check(self, ctx: Ctx, response: Any) -> None:
        assert response.status_code == 200, response.content[:300]
        ids = [game["id"] for game in response.json()]
        assert (ctx.subject.id in ids) == self.listed, ids


@dataclass(frozen=True)
class Board:
    """The subject's row on its day's leaderboard: absent, or there with a replay link or not."""

    row: bool
    link: bool = False

    def check(self, ctx: Ctx, response: Any) -> None:
        assert response.status_code == 200, response.content[:300]
        rows = [r for r in response.json()["results"] if r["player"] == "matrix-owner"]
        assert len(rows) == int(self.row), rows
        if self.row:
            link = f"/api/games/{ctx.subject.id}/replay/"
            assert rows[0]["replay"] == (link if self.link else None), rows[0]


OK, NEW = Ok(200), Ok(201)
# PRODUCT.md, Errors: "an anonymous request to a game endpoint is 401 or 403", and
# "someone else's game is 403 or 404". The codes are the product's (clients translate them).
SIGN_IN = Refused((401, 403), "not_authenticated")
NOT_YOURS = Refused((403, 404), "not_yours")
NO_GAME = Refused(404, "not_found")
SPOILER = Refused(403, "spoiler")  # Anti-cheat: replays of today's daily wait for a win
SEALED = Refused(403, "sealed")  # a running race's games: their players' alone to play
DAY_RUNS = Refused(409, "daily_running")  # no practice copy of a running daily, for anyone
RUNNING = Refused(409, "not_finished")  # "a replay is available once the game is over"
OVER = Refused(409, "finished")  # a finished game takes no action and no resignation
NOT_LOST = Refused(409, "not_lost")  # last-winnable: the position can still be won
HIDDEN = Refused(409, "hidden_cards")  # last-winnable: never on a view that hides cards
PENDING = Refused(409, "analysis_pending")  # analysis: queued, not computed yet
RANKED = Refused(400, "ranked")  # would-rank: a ranked game's rank is on its board
NO_DAILY = Refused(404, "no_daily")  # would-rank: not a past daily's deal
PAGE, LOGIN = Page(), ToLogin()
PLAYER, WATCHER, SUBSCRIBED = Ws("player"), Ws("spectator"), Ws("subscribed")
WS_401, WS_403, WS_404 = Closed(4401), Closed(4403, "spoiler"), Closed(4404, "not_found")
WS_SEALED = Closed(4403, "sealed")
LISTED, UNLISTED = Live(True), Live(False)
LINK, NO_LINK, OFF_BOARD = Board(True, link=True), Board(True), Board(False)

D_PLAY, D_DONE = "daily_playing", "daily_finished"  # today's daily (SH1-C4, EH1-N)
P_PLAY, P_DONE = "practice_playing", "practice_finished"  # deals no daily is playing
PAST = "past_daily"  # yesterday's daily (SH1-C1), finished: the day is over
D_PRACT = "daily_practice"  # a practice game of today's EH1-N daily, in progress
R_RUN, R_DONE = "race_running", "race_over"  # the owner's game of a race running / over
MISSING = "missing"  # no such game
NONE = "-"  # the endpoint is not about a game

# fmt: off
TABLE = [
    # endpoint        subject   anonymous  other      resigned   winner     owner
    # GET /api/games/{id}/ is the player's own; others follow a game over its socket
    # (websocket.md) — a spectator's GET is refused even where they may watch.
    ("game",          D_PLAY,   SIGN_IN,   NOT_YOURS, NOT_YOURS, NOT_YOURS, OK),
    ("game",          D_DONE,   SIGN_IN,   NOT_YOURS, NOT_YOURS, NOT_YOURS, OK),
    ("game",          P_PLAY,   SIGN_IN,   NOT_YOURS, NOT_YOURS, NOT_YOURS, OK),
    ("game",          P_DONE,   SIGN_IN,   NOT_YOURS, NOT_YOURS, NOT_YOURS, OK),
    ("game",          PAST,     SIGN_IN,   NOT_YOURS, NOT_YOURS, NOT_YOURS, OK),
    ("game",          D_PRACT,  SIGN_IN,   NOT_YOURS, NOT_YOURS, NOT_YOURS, OK),
    ("game",          MISSING,  SIGN_IN,   NO_GAME,   NO_GAME,   NO_GAME,   NO_GAME),
    # Only the player acts; a finished game takes nothing more.
    ("actions",       D_PLAY,   SIGN_IN,   NOT_YOURS, NOT_YOURS, NOT_YOURS, OK),
    ("actions",       D_DONE,   SIGN_IN,   NOT_YOURS, NOT_YOURS, NOT_YOURS, OVER),
    ("actions",       P_PLAY,   SIGN_IN,   NOT_YOURS, NOT_YOURS, NOT_YOURS, OK),
    ("actions",       P_DONE,   SIGN_IN,   NOT_YOURS, NOT_YOURS, NOT_YOURS, OVER),
    ("actions",       PAST,     SIGN_IN,   NOT_YOURS, NOT_YOURS, NOT_YOURS, OVER),
    ("actions",       D_PRACT,  SIGN_IN,   NOT_YOURS, NOT_YOURS, NOT_YOURS, OK),
    ("actions",       MISSING,  SIGN_IN,   NO_GAME,   NO_GAME,   NO_GAME,   NO_GAME),
    ("resign",        D_PLAY,   SIGN_IN,   NOT_YOURS, NOT_YOURS, NOT_YOURS, OK),
    ("resign",        D_DONE,   SIGN_IN,   NOT_YOURS, NOT_YOURS, NOT_YOURS, OVER),
    ("resign",        P_PLAY,   SIGN_IN,   NOT_YOURS, NOT_YOURS, NOT_YOURS, OK),
    ("resign",        P_DONE,   SIGN_IN,   NOT_YOURS, NOT_YOURS, NOT_YOURS, OVER),
    ("resign",        PAST,     SIGN_IN,   NOT_YOURS, NOT_YOURS, NOT_YOURS, OVER),
    ("resign",        D_PRACT,  SIGN_IN,   NOT_YOURS, NOT_YOURS, NOT_YOURS, OK),
    ("resign",        MISSING,  SIGN_IN,   NO_GAME,   NO_GAME,   NO_GAME,   NO_GAME),
    # The spoiler rule first, then "once the game is over": a player who may not see
    # today's deal learns nothing, not even whether the game has ended. Only a win
    # opens a running daily's replays — not resigning, and not being its player.
    ("replay",        D_PLAY,   SIGN_IN,   SPOILER,   SPOILER,   RUNNING,   SPOILER),
    ("replay",        D_DONE,   SIGN_IN,   SPOILER,   SPOILER,   OK,        SPOILER),
    ("replay",        P_PLAY,   SIGN_IN,   RUNNING,   RUNNING,   RUNNING,   RUNNING),
    ("replay",        P_DONE,   SIGN_IN,   OK,        OK,        OK,        OK),
    ("replay",        PAST,     SIGN_IN,   OK,        OK,        OK,        OK),
    ("replay",        D_PRACT,  SIGN_IN,   SPOILER,   SPOILER,   RUNNING,   SPOILER),
    # A race's games while it runs: their players' alone to play (issue 29), nobody's
    # to replay — not even its player's, whose replay would show every card to pass
    # on (issue 36); then practice games.
    ("replay",        R_RUN,    SIGN_IN,   SEALED,    SEALED,    SEALED,    SEALED),
    ("replay",        R_DONE,   SIGN_IN,   OK,        OK,        OK,        OK),
    ("replay",        MISSING,  SIGN_IN,   NO_GAME,   NO_GAME,   NO_GAME,   NO_GAME),
    # websocket.md: the player plays, anyone allowed watches (finished games too),
    # close codes 4401 / 4403 / 4404, each after an error message saying why.
    ("ws_game",       D_PLAY,   WS_401,    WS_403,    WS_403,    WATCHER,   PLAYER),
    ("ws_game",       D_DONE,   WS_401,    WS_403,    WS_403,    WATCHER,   PLAYER),
    ("ws_game",       P_PLAY,   WS_401,    WATCHER,   WATCHER,   WATCHER,   PLAYER),
    ("ws_game",       P_DONE,   WS_401,    WATCHER,   WATCHER,   WATCHER,   PLAYER),
    ("ws_game",       PAST,     WS_401,    WATCHER,   WATCHER,   WATCHER,   PLAYER),
    ("ws_game",       D_PRACT,  WS_401,    WS_403,    WS_403,    WATCHER,   PLAYER),
    ("ws_game",       R_RUN,    WS_401,    WS_SEALED, WS_SEALED, WS_SEALED, PLAYER),
    ("ws_game",       R_DONE,   WS_401,    WATCHER,   WATCHER,   WATCHER,   PLAYER),
    ("ws_game",       MISSING,  WS_401,    WS_404,    WS_404,    WS_404,    WS_404),
    # Games in progress you may watch. Your own are not listed (current behaviour;
    # the spec is silent: the lobby shows your own games).
    ("live",          D_PLAY,   UNLISTED,   UNLISTED,  UNLISTED,  LISTED,    UNLISTED),
    ("live",          D_DONE,   UNLISTED,   UNLISTED,  UNLISTED,  UNLISTED,  UNLISTED),
    ("live",          P_PLAY,   LISTED,     LISTED,    LISTED,    LISTED,    UNLISTED),
    ("live",          P_DONE,   UNLISTED,   UNLISTED,  UNLISTED,  UNLISTED,  UNLISTED),
    ("live",          PAST,     UNLISTED,   UNLISTED,  UNLISTED,  UNLISTED,  UNLISTED),
    ("live",          D_PRACT,  UNLISTED,   UNLISTED,  UNLISTED,  LISTED,    UNLISTED),
    ("live",          R_RUN,    UNLISTED,   UNLISTED,  UNLISTED,  UNLISTED,  UNLISTED),
    # Playing the same deal by its code (which only the server knows while the day
    # runs: an attacker's best case): never today's daily deal while its day runs,
    # whoever asks — finished, won or not (issue 36).
    ("practise",      D_PLAY,   SIGN_IN,   DAY_RUNS,  DAY_RUNS,  DAY_RUNS,  DAY_RUNS),
    ("practise",      D_DONE,   SIGN_IN,   DAY_RUNS,  DAY_RUNS,  DAY_RUNS,  DAY_RUNS),
    ("practise",      P_PLAY,   SIGN_IN,   NEW,       NEW,       NEW,       NEW),
    ("practise",      P_DONE,   SIGN_IN,   NEW,       NEW,       NEW,       NEW),
    ("practise",      PAST,     SIGN_IN,   NEW,       NEW,       NEW,       NEW),
    ("practise",      D_PRACT,  SIGN_IN,   DAY_RUNS,  DAY_RUNS,  DAY_RUNS,  DAY_RUNS),
    # Anyone may read a leaderboard; replay links under the spoiler rule (a win, or
    # the day over), and only for signed-in players (the replay endpoint needs one).
    ("board",         D_PLAY,   OFF_BOARD, OFF_BOARD, OFF_BOARD, OFF_BOARD, OFF_BOARD),
    ("board",         D_DONE,   NO_LINK,   NO_LINK,   NO_LINK,   LINK,      NO_LINK),
    ("board",         PAST,     NO_LINK,   LINK,      LINK,      LINK,      LINK),
    # Page shells need a session; they hold no game data, so any id gets the shell
    # and its script meets the API's answer (current behaviour; the spec is silent).
    ("page_play",     D_PLAY,   LOGIN,     PAGE,      PAGE,      PAGE,      PAGE),
    ("page_play",     P_DONE,   LOGIN,     PAGE,      PAGE,      PAGE,      PAGE),
    ("page_play",     MISSING,  LOGIN,     PAGE,      PAGE,      PAGE,      PAGE),
    ("page_watch",    D_PLAY,   PAGE,      PAGE,      PAGE,      PAGE,      PAGE),
    ("page_watch",    P_PLAY,   PAGE,      PAGE,      PAGE,      PAGE,      PAGE),
    ("page_watch",    MISSING,  PAGE,      PAGE,      PAGE,      PAGE,      PAGE),
    ("page_replay",   D_DONE,   PAGE,      PAGE,      PAGE,      PAGE,      PAGE),
    ("page_replay",   PAST,     PAGE,      PAGE,      PAGE,      PAGE,      PAGE),
    ("page_replay",   MISSING,  PAGE,      PAGE,      PAGE,      PAGE,      PAGE),
    # The player's own lost position only (issue 24): a game still winnable, over, or
    # hiding cards (Easy Harp, the daily's practice included) is refused the same way.
    ("last_winnable", D_PLAY,   SIGN_IN,   NOT_YOURS, NOT_YOURS, NOT_YOURS, NOT_LOST),
    ("last_winnable", D_DONE,   SIGN_IN,   NOT_YOURS, NOT_YOURS, NOT_YOURS, OVER),
    ("last_winnable", P_PLAY,   SIGN_IN,   NOT_YOURS, NOT_YOURS, NOT_YOURS, NOT_LOST),
    ("last_winnable", P_DONE,   SIGN_IN,   NOT_YOURS, NOT_YOURS, NOT_YOURS, OVER),
    ("last_winnable", PAST,     SIGN_IN,   NOT_YOURS, NOT_YOURS, NOT_YOURS, OVER),
    ("last_winnable", D_PRACT,  SIGN_IN,   NOT_YOURS, NOT_YOURS, NOT_YOURS, HIDDEN),
    ("last_winnable", MISSING,  SIGN_IN,   NO_GAME,   NO_GAME,   NO_GAME,   NO_GAME),
    # Where it went wrong (issue 27): the replay's rule, and never while a daily
    # dealing its cards runs — not even to its winner; a day over is analysed by
    # the after-the-day job (not run here), a numbered deal when first asked (here
    # at once: tasks run in-process).
    ("analysis",      D_PLAY,   SIGN_IN,   SPOILER,   SPOILER,   SPOILER,   SPOILER),
    ("analysis",      D_DONE,   SIGN_IN,   SPOILER,   SPOILER,   SPOILER,   SPOILER),
    ("analysis",      P_PLAY,   SIGN_IN,   RUNNING,   RUNNING,   RUNNING,   RUNNING),
    ("analysis",      P_DONE,   SIGN_IN,   OK,        OK,        OK,        OK),
    ("analysis",      PAST,     SIGN_IN,   PENDING,   PENDING,   PENDING,   PENDING),
    ("analysis",      D_PRACT,  SIGN_IN,   SPOILER,   SPOILER,   SPOILER,   SPOILER),
    ("analysis",      R_RUN,    SIGN_IN,   SEALED,    SEALED,    SEALED,    SEALED),
    ("analysis",      R_DONE,   SIGN_IN,   OK,        OK,        OK,        OK),
    ("analysis",      MISSING,  SIGN_IN,   NO_GAME,   NO_GAME,   NO_GAME,   NO_GAME),
    # Where a practice of a past daily would have ranked (issue 27): the player's own
    # finished practice only; nothing of a running daily's board.
    ("would_rank",    D_PLAY,   SIGN_IN,   NOT_YOURS, NOT_YOURS, NOT_YOURS, RANKED),
    ("would_rank",    D_DONE,   SIGN_IN,   NOT_YOURS, NOT_YOURS, NOT_YOURS, RANKED),
    ("would_rank",    P_PLAY,   SIGN_IN,   NOT_YOURS, NOT_YOURS, NOT_YOURS, RUNNING),
    ("would_rank",    P_DONE,   SIGN_IN,   NOT_YOURS, NOT_YOURS, NOT_YOURS, NO_DAILY),
    ("would_rank",    PAST,     SIGN_IN,   NOT_YOURS, NOT_YOURS, NOT_YOURS, RANKED),
    ("would_rank",    D_PRACT,  SIGN_IN,   NOT_YOURS, NOT_YOURS, NOT_YOURS, RUNNING),
    ("would_rank",    MISSING,  SIGN_IN,   NO_GAME,   NO_GAME,   NO_GAME,   NO_GAME),
    # Not about a game.
    ("me",            NONE,     OK,        OK,        OK,        OK,        OK),
    # A visitor becomes a guest (issue 24); a signed-in session is left as it is.
    ("guest",         NONE,     NEW,       OK,        OK,        OK,        OK),
    ("settings",      NONE,     SIGN_IN,   OK,        OK,        OK,        OK),
    ("settings_patch", NONE,    SIGN_IN,   OK,        OK,        OK,        OK),
    # Signing up while signed in signs in as the new account (current behaviour;
    # the spec is silent, and it grants nothing the new account would not have).
    ("register",      NONE,     NEW,       NEW,       NEW,       NEW,       NEW),
    ("login",         NONE,     OK,        OK,        OK,        OK,        OK),
    ("logout",        NONE,     OK,        OK,        OK,        OK,        OK),
    ("daily",         NONE,     OK,        OK,        OK,        OK,        OK),
    ("daily_day",     NONE,     OK,        OK,        OK,        OK,        OK),
    ("start_daily",   NONE,     SIGN_IN,   OK,        OK,        OK,        OK),
    # Practising today's daily without its code: refused to everyone while it runs.
    ("practise_daily", NONE,    SIGN_IN,   DAY_RUNS,  DAY_RUNS,  DAY_RUNS,  DAY_RUNS),
    ("start_random",  NONE,     SIGN_IN,   NEW,       NEW,       NEW,       NEW),
    ("player",        NONE,     OK,        OK,        OK,        OK,        OK),
    ("calendar",      NONE,     OK,        OK,        OK,        OK,        OK),
    ("schema",        NONE,     OK,        OK,        OK,        OK,        OK),
    ("ws_board",      NONE,     SUBSCRIBED, SUBSCRIBED, SUBSCRIBED, SUBSCRIBED, SUBSCRIBED),
    ("page_live",     NONE,     PAGE,      PAGE,      PAGE,      PAGE,      PAGE),
]
# fmt: on


@dataclass(frozen=True)
class Row:
    endpoint: str
    subject: str
    role: str
    expected: Any


ROWS = [
    pytest.param(
        Row(endpoint, subject, role, outcome),
        id="-".join(part for part in (endpoint, subject, role) if part != NONE),
    )
    for endpoint, subject, *outcomes in TABLE
    for role, outcome in zip(ROLES, outcomes, strict=True)
]


def test_the_table_covers_every_endpoint_and_subject():
    """Every endpoint above has rows, every game endpoint meets every subject it can."""
    assert {row[0] for row in TABLE} == set(ENDPOINTS)
    per_subject = {"game", "actions", "resign", "replay", "ws_game", "last_winnable", "analysis"}
    raced = {"replay", "ws_game", "analysis"}  # who sees a race's game: watch, replay, analysis
    for endpoint in per_subject:
        assert {row[1] for row in TABLE if row[0] == endpoint} == {
            D_PLAY, D_DONE, P_PLAY, P_DONE, PAST, D_PRACT, MISSING,
            *((R_RUN, R_DONE) if endpoint in raced else ()),
        }  # fmt: skip
    assert len({row[:2] for row in TABLE}) == len(TABLE)


@pytest.mark.parametrize("row", ROWS)
def test_access(world, db, row):
    ctx = Ctx(world, row.role, world.subjects.get(row.subject), client_as(world, row.role))
    endpoint = ENDPOINTS[row.endpoint]
    before = stored()
    result = endpoint.call(ctx)
    row.expected.check(ctx, result)
    after = stored()
    if endpoint.effect is not None and isinstance(row.expected, Ok):
        endpoint.effect(ctx, result, before, after)
    else:  # a read, a socket that only probed, or a refusal: nothing changed
        assert after == before
