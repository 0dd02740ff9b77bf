"""``GET /api/live/``: the games in progress a player may watch (PRODUCT.md, anti-cheat:
none on a daily deal still running that the viewer has not won; none names its code)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.utils import timezone

from accounts.models import User
from games.dailies import daily_deal_get, daily_deal_prepare, utc_today
from games.engine import GameCode
from games.models import Attempt
from games.services import _create_attempt
from tests.support.api import legacy_daily_practice, start

FIELDS = (
    "id",
    "variant",
    "code",
    "daily",
    "player",
    "ranked",
    "moves",
    "score",
    "started_at",
    "watch",
)
PRACTICE = "SH1-C4-AAAAAAE"
MOVES = [  # the first moves of the winning line of PRACTICE (tests/support/search.py)
    {"type": "move", "from": "t4", "to": "f3", "count": 1},
    {"type": "move", "from": "t1", "to": "f3", "count": 1},
]


def play(client: Any, attempt: dict[str, Any], actions: list[dict[str, Any]]) -> dict[str, Any]:
    body = attempt
    for action in actions:
        response = client.send(
            f"/api/games/{attempt['id']}/actions/", {"seq": body["seq"], "action": action}
        )
        assert response.status_code == 200, response.content
        body = response.json()
    return body


def resign(client: Any, attempt: dict[str, Any]) -> None:
    response = client.send(f"/api/games/{attempt['id']}/resign/")
    assert response.status_code == 200, response.content


def live(client: Any) -> dict[int, dict[str, Any]]:
    response = client.get("/api/live/")
    assert response.status_code == 200, response.content
    games = response.json()
    assert isinstance(games, list)
    by_id = {g["id"]: g for g in games}
    assert len(by_id) == len(games)
    return by_id


def entry(attempt: dict[str, Any]) -> dict[str, Any]:
    """What /api/live/ says of ``attempt`` (an attempt object of the HTTP API)."""
    return {
        "id": attempt["id"],
        "variant": attempt["variant"],
        "code": attempt["code"],
        "daily": attempt["daily"],
        "player": attempt["player"],
        "ranked": attempt["ranked"],
        "moves": attempt["moves"],
        "score": attempt["score"],
        "started_at": attempt["started_at"],
        "watch": f"/ws/games/{attempt['id']}/",
    }


def listed(games: dict[int, dict[str, Any]], attempt: dict[str, Any]) -> bool:
    if attempt["id"] not in games:
        return False
    assert {k: games[attempt["id"]][k] for k in FIELDS} == entry(attempt)
    return True


def test_lists_other_players_games_in_progress(make_player):
    viewer, alice, bob = make_player(), make_player(), make_player()
    moved = play(alice, start(alice, code=PRACTICE), MOVES)
    assert moved["moves"] == 2 and moved["score"] > 0
    fresh = start(bob, random="EH1-N")
    over = start(bob, code="SH1-C4-AAAAAJ2")
    resign(bob, over)
    mine = start(viewer, random="SH1-C2")

    games = live(viewer)
    assert set(games) == {moved["id"], fresh["id"]}
    assert listed(games, moved) and listed(games, fresh)
    assert games[moved["id"]]["moves"] == 2
    assert (games[moved["id"]]["code"], games[moved["id"]]["daily"]) == (PRACTICE, None)

    # Each player's own game is left out of their list, not out of others'.
    assert set(live(alice)) == {fresh["id"], mine["id"]}
    assert listed(live(bob), mine)

    # A game leaves the list when it ends.
    resign(alice, moved)
    assert set(live(viewer)) == {fresh["id"]}


def win(client: Any, variant: str) -> dict[str, Any]:
    """Win today's ranked ``variant`` (prepared proven) by playing the solver's line."""
    attempt = start(client, daily=variant)
    proof = daily_deal_prepare(date=utc_today(), variant=variant).proof
    assert proof, "today's daily must be prepared (proven) before anyone starts it"
    won = play(client, attempt, proof)
    assert won["status"] == "won" and won["ranked"] is True
    return won


def test_games_on_a_running_daily_deal_wait_until_the_viewer_won_it(make_player):
    viewer, carol, dave, erin, frank, gina, hank, wendy = [make_player() for _ in range(8)]
    today = utc_today()
    daily = daily_deal_prepare(date=today, variant="SH1-C4")  # proven: it can be won
    # The daily's code, read where only the server has it: the API never sends it.
    key = GameCode.parse(daily.deal.code)
    assert key.long

    carol_daily = start(carol, daily="SH1-C4")  # ranked, today's SH1-C4
    assert carol_daily["code"] is None and carol_daily["variant"] == "SH1-C4"
    assert carol_daily["daily"] == today.isoformat()
    # Dave finished his ranked attempt, and practises the same cards with two cells
    # in a game dealt before issue 36 (the API refuses such a copy now).
    resign(dave, start(dave, daily="SH1-C4"))
    sibling = str(GameCode("SH1", "C2", key.number, long=True))
    assert dave.send("/api/games/", {"code": sibling}).status_code == 409
    same_cards = legacy_daily_practice(dave, "SH1-C4", sibling)
    assert same_cards["code"] is None and same_cards["ranked"] is False
    assert same_cards["daily"] == today.isoformat()
    erin_daily = start(erin, daily="EH1-N")  # another daily deal, still running
    # The same key in the other game deals other cards: not a spoiler.
    other_game = start(hank, code=str(GameCode("EH1", "N", key.number, long=True)))
    assert other_game["code"] and other_game["daily"] is None
    # Yesterday's daily deal is over: its games show, ranked or practice, with their code.
    yesterday = daily_deal_get(date=today - dt.timedelta(days=1), variant="SH1-C4")
    assert yesterday.deal.code != daily.deal.code
    old_practice = start(frank, code=yesterday.deal.code)
    assert old_practice["code"] == yesterday.deal.code
    old_ranked = _create_attempt(
        player=User.objects.get(username=gina.username),
        deal=yesterday.deal,
        daily=yesterday,
        ranked=True,
    )
    old_ranked_json = gina.get(f"/api/games/{old_ranked.pk}/").json()
    assert old_ranked_json["ranked"] is True
    assert old_ranked_json["code"] == yesterday.deal.code
    assert old_ranked_json["daily"] == yesterday.date.isoformat()

    # Yesterday's ranked attempt still open is abandoned (its day is over, it can
    # no longer be played: the stale-attempt job closes it): not live (issue 24).
    always = {other_game["id"], old_practice["id"]}
    hidden = {carol_daily["id"], same_cards["id"], erin_daily["id"]}

    games = live(viewer)  # the viewer has not started today's SH1-C4
    assert set(games) == always
    assert listed(games, other_game) and listed(games, old_practice)
    assert not listed(games, old_ranked_json)

    viewer_daily = start(viewer, daily="SH1-C4")  # started, still playing: still hidden
    assert set(live(viewer)) == always

    resign(viewer, viewer_daily)  # finished, not won: a resignation opens nothing
    assert set(live(viewer)) == always
    # Dave resigned too: Carol's game and his own practice's cards stay hidden from him.
    assert not hidden & set(live(dave))
    # Carol, still playing, sees no one else's game on her deal.
    assert not hidden & set(live(carol))

    win(wendy, "SH1-C4")  # won: she has seen every card of today's SH1-C4
    games = live(wendy)
    assert set(games) == always | {carol_daily["id"], same_cards["id"]}
    assert listed(games, carol_daily) and listed(games, same_cards)
    for game in (games[carol_daily["id"]], games[same_cards["id"]]):
        assert (game["code"], game["daily"]) == (None, today.isoformat())  # still no code
    assert erin_daily["id"] not in games  # today's EH1-N is still to play

    # Everyone else still waits for the day to end.
    for client in (viewer, dave, carol, erin):
        assert not {carol_daily["id"], same_cards["id"]} & set(live(client))
    assert Attempt.objects.filter(pk__in=hidden, status="playing").count() == 3


def test_a_signed_out_visitor_sees_what_a_player_who_won_no_daily_sees(anon, make_player):
    """Issue 39: "Live" was a sign-in wall. A signed-out visitor (an attacker with
    no account at all) gets the list a player who won nothing gets: no game on a
    running daily, ranked or a practice of its cards, and no daily's code."""
    alice, carol, viewer = make_player(), make_player(), make_player()
    practice = play(alice, start(alice, code=PRACTICE), MOVES)
    daily_deal_prepare(date=utc_today(), variant="SH1-C4")
    ranked = start(carol, daily="SH1-C4")

    games = live(anon)
    assert listed(games, practice)
    assert ranked["id"] not in games
    assert set(games) == set(live(viewer))
    assert all(g["daily"] is None or g["code"] is None for g in games.values())


def test_only_games_being_played_now_are_live(make_player):
    """Live lists games being played now (issue 24): a game left for longer than
    the window, or a ranked daily whose day is over (abandoned), is not listed."""
    viewer, alice, bob, carol = [make_player() for _ in range(4)]
    now = start(alice, random="SH1-C4")
    left = play(bob, start(bob, code=PRACTICE), MOVES)
    # Bob's last move was 11 minutes ago: he left the game open and went away.
    Attempt.objects.filter(pk=left["id"]).update(
        updated_at=timezone.now() - dt.timedelta(minutes=11)
    )
    yesterday = daily_deal_prepare(date=utc_today() - dt.timedelta(days=1), variant="SH1-C2")
    over = _create_attempt(
        player=User.objects.get(username=carol.username),
        deal=yesterday.deal,
        daily=yesterday,
        ranked=True,
    )
    assert Attempt.objects.get(pk=over.pk).status == "playing"  # until the hourly job runs
    games = live(viewer)
    assert set(games) == {now["id"]}
    # Moving again brings a game back.
    moved = bob.send(
        f"/api/games/{left['id']}/actions/", {"seq": left["seq"], "action": {"type": "undo"}}
    )
    assert moved.status_code == 200, moved.content
    assert set(live(viewer)) == {now["id"], left["id"]}
