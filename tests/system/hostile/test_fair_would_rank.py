"""Issue 27, deliverable 4, played as an attacker (PRODUCT.md "Fair daily deals"
and anti-cheat): "where would I have ranked" opens nothing of a running daily.

Today's Seahaven and Easy Harp dailies run (secret keys, proven). A player won
today's Seahaven and then practised it; an attacker resigned their own ranked
games at once and practised both deals (tied to the daily: no code) — as the
API dealt such practice games before issue 36 refused them (409
``daily_running``, which the attacker meets now too).
The attacker, a third account and an anonymous visitor then ask would-rank of
every game they can name — their own practices, the player's ranked game and
practice, ids around them. Every answer is a refusal with the error shape: no
rank, no count, no card, no byte of a running daily's code or key. Once the day
is over (the clock moved past midnight UTC) the attacker's own practice answers,
and the player's still does not (not theirs)."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

import pytest

from games.dailies import utc_today
from tests.support.api import assert_error, legacy_daily_practice, win_daily
from tests.support.hidden import Wire, check_cardless, prepared

WOULD_RANK = "/api/leaderboard/would-rank/{}/"
FIGURES = ("rank", "count", "beaten", "percentile", "leaderboard")


def refused(wire: Wire, where: str, client: Any, game: int, statuses: Any) -> dict[str, Any]:
    response = wire.http(where, client.get(WOULD_RANK.format(game)))
    error = assert_error(response, statuses)
    body = response.json()
    check_cardless(body, where)
    assert set(body) == {"error"} and set(error) == {"code", "message"}, body
    text = json.dumps(body)
    assert not any(f'"{name}"' in text for name in FIGURES), (where, text)
    return error


@pytest.fixture
def running(db):
    return [prepared("SH1-C4"), prepared("EH1-N")]


def test_nothing_of_a_running_daily_opens_through_would_rank(running, make_player, anon, clock):
    wire = Wire()
    player, attacker, other = make_player(), make_player(), make_player()

    # The player won today's Seahaven, then practised it (and gave the practice up).
    won = win_daily(player, "SH1-C4")
    practice = legacy_daily_practice(player, "SH1-C4")
    wire.http("player resigns practice", player.send(f"/api/games/{practice['id']}/resign/"))
    theirs = [won["id"], practice["id"]]

    # The attacker resigned both ranked games at once and practised both deals.
    mine: list[int] = []
    for variant in ("SH1-C4", "EH1-N"):
        ranked = wire.http(f"attacker {variant}", attacker.send("/api/games/", {"daily": variant}))
        clock.advance(3)
        wire.http("attacker resigns", attacker.send(f"/api/games/{ranked.json()['id']}/resign/"))
        body = {"daily": variant, "practice": True}
        asked = wire.http(f"attacker practises {variant}", attacker.send("/api/games/", body))
        assert_error(asked, 409, "daily_running")  # no practice copy any more (issue 36)
        started = legacy_daily_practice(attacker, variant)  # … but one dealt before
        assert started["code"] is None
        game = started["id"]
        clock.advance(5)
        wire.http("attacker resigns practice", attacker.send(f"/api/games/{game}/resign/"))
        mine += [ranked.json()["id"], game]

    for game in mine[1::2]:  # the attacker's own practices: the day still runs
        assert refused(wire, f"own practice {game}", attacker, game, 409)["code"] == "day_running"
    assert refused(wire, "own ranked", attacker, mine[0], 400)["code"] == "ranked"
    for game in theirs:
        for who, client in (("attacker", attacker), ("third account", other)):
            refused(wire, f"{who} on {game}", client, game, 403)
        refused(wire, f"anonymous on {game}", anon, game, (401, 403))
    # Ids around the games: someone else's or none, never an answer.
    for game in range(min(theirs + mine) - 3, max(theirs + mine) + 4):
        if game not in mine:
            refused(wire, f"attacker guesses {game}", attacker, game, (403, 404))

    for daily in running:
        wire.assert_never_named(daily)

    # Past midnight UTC the day is over: the attacker's own practice answers.
    clock.now = clock.now + dt.timedelta(days=1)
    assert utc_today() > running[0].date
    answer = wire.http("after the day", attacker.get(WOULD_RANK.format(mine[1]))).json()
    assert (answer["date"], answer["variant"]) == (running[0].date.isoformat(), "SH1-C4")
    # The day's board: the player's win and the attacker's resignation; the
    # practice (resigned, later) ranks after both.
    assert (answer["rank"], answer["count"], answer["beaten"]) == (3, 3, 0)
    refused(wire, "after the day, the player's practice", attacker, theirs[1], 403)
