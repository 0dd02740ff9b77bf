"""``GET /api/live/``: the games in progress a player may watch (PRODUCT.md, anti-cheat:
none on a daily deal still running that the viewer has not finished)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from accounts.models import User
from games.dailies import daily_deal_get, utc_today
from games.engine import GameCode
from games.models import Attempt
from games.services import _create_attempt

FIELDS = ("id", "variant", "code", "player", "ranked", "moves", "score", "started_at", "watch")
PRACTICE = "SH1-C4-AAAAAAE"
MOVES = [  # the first moves of the winning line of PRACTICE (tests/engine/search.py)
    {"type": "move", "from": "t4", "to": "f3", "count": 1},
    {"type": "move", "from": "t1", "to": "f3", "count": 1},
]


def start(client: Any, **body: str) -> dict[str, Any]:
    response = client.send("/api/games/", body)
    assert response.status_code in (200, 201), response.content
    return response.json()


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

    # Each player's own game is left out of their list, not out of others'.
    assert set(live(alice)) == {fresh["id"], mine["id"]}
    assert listed(live(bob), mine)

    # A game leaves the list when it ends.
    resign(alice, moved)
    assert set(live(viewer)) == {fresh["id"]}


def test_games_on_a_running_daily_deal_wait_until_the_viewer_finished_it(make_player):
    viewer, carol, dave, erin, frank, gina, hank = [make_player() for _ in range(7)]
    today = utc_today()

    carol_daily = start(carol, daily="SH1-C4")  # ranked, today's SH1-C4
    number = GameCode.parse(carol_daily["code"]).number
    # Dave finished his ranked attempt, then practises the same cards with two cells.
    resign(dave, start(dave, daily="SH1-C4"))
    same_cards = start(dave, code=str(GameCode("SH1", "C2", number)))
    erin_daily = start(erin, daily="EH1-N")  # another daily deal, still running
    # The same deal number in the other game deals other cards: not a spoiler.
    other_game = start(hank, code=str(GameCode("EH1", "N", number)))
    # Yesterday's daily deal is over: its games show, ranked or practice.
    yesterday = daily_deal_get(date=today - dt.timedelta(days=1), variant="SH1-C4")
    assert yesterday.deal.number != number
    old_practice = start(frank, code=yesterday.deal.code)
    old_ranked = _create_attempt(
        player=User.objects.get(username=gina.username),
        deal=yesterday.deal,
        daily=yesterday,
        ranked=True,
    )
    old_ranked_json = gina.get(f"/api/games/{old_ranked.pk}/").json()
    assert old_ranked_json["ranked"] is True

    always = {other_game["id"], old_practice["id"], old_ranked.pk}
    hidden = {carol_daily["id"], same_cards["id"], erin_daily["id"]}

    games = live(viewer)  # the viewer has not started today's SH1-C4
    assert set(games) == always
    assert listed(games, other_game) and listed(games, old_practice)
    assert listed(games, old_ranked_json)

    viewer_daily = start(viewer, daily="SH1-C4")  # started, still playing: still hidden
    assert set(live(viewer)) == always

    resign(viewer, viewer_daily)  # finished (a resignation counts)
    games = live(viewer)
    assert set(games) == always | {carol_daily["id"], same_cards["id"]}
    assert listed(games, carol_daily) and listed(games, same_cards)
    assert erin_daily["id"] not in games  # today's EH1-N is still to play

    # Carol, still playing, sees no one else's game on her deal.
    assert not hidden & set(live(carol))
    # Dave finished: he sees Carol's daily game; Erin's EH1-N stays hidden from him.
    dave_sees = set(live(dave))
    assert carol_daily["id"] in dave_sees and erin_daily["id"] not in dave_sees
    assert Attempt.objects.filter(pk__in=hidden, status="playing").count() == 3


def test_anonymous_is_refused(anon, make_player):
    alice = make_player()
    start(alice, code=PRACTICE)
    response = anon.get("/api/live/")
    assert response.status_code in (401, 403), response.content
    error = response.json()["error"]
    assert error["code"] and error["message"]
