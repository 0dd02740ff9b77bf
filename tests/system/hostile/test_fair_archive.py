"""Issue 15, deliverable 3, played as an attacker (PRODUCT.md "Fair daily deals"):
the streak, the archive's calendar and the pages around them show a running
daily deal's code to no one.

With today's deals running — one player in the middle of one, the attacker with
an account of their own who already resigned it — the attacker and an anonymous
visitor read the archive page, both calendars (their own, the other player's,
the anonymous one), the lobby, today's page and API, and the player records.
No byte names today's codes or keys; yesterday's page does reveal its code
(the check can see a code where one is). No practice copy of today's deal is
dealt to anyone while the day runs (issue 36), by ``{"daily", "practice":
true}`` or by its code in hand; yesterday's, public now, is an ordinary
practice game.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from games.dailies import daily_deal_get, utc_today
from games.engine import ALL_VARIANTS
from tests.support.api import assert_error
from tests.support.hidden import Wire, prepared

DAY_KEYS = {"date", "today", "dailies", "results", "frozen"}
RESULTS = {"won", "resigned", "abandoned", "playing", "disqualified", "failed_check"}


def test_no_archive_calendar_or_lobby_byte_names_a_running_daily(make_player, anon):
    wire = Wire()
    today = utc_today()
    yesterday = today - dt.timedelta(days=1)
    running = [prepared("SH1-C4")] + [
        daily_deal_get(date=today, variant=v) for v in ALL_VARIANTS if v != "SH1-C4"
    ]
    past = daily_deal_get(date=yesterday, variant="SH1-C4")
    player, attacker = make_player(), make_player()

    # The player is in the middle of today's SH1-C4; the attacker resigned it.
    game = wire.http("player starts", player.send("/api/games/", {"daily": "SH1-C4"})).json()
    assert game["status"] == "playing"
    mine = wire.http("attacker starts", attacker.send("/api/games/", {"daily": "SH1-C4"})).json()
    wire.http("attacker resigns", attacker.send(f"/api/games/{mine['id']}/resign/"))

    month = f"{today.year:04d}-{today.month:02d}"
    calendars = {}
    for who, client in (("attacker", attacker), ("anonymous", anon)):
        for path in (
            f"/api/players/{attacker.username}/calendar/",
            f"/api/players/{player.username}/calendar/",
            f"/api/players/{player.username}/calendar/?month={month}",
            "/api/calendar/",
            f"/api/players/{player.username}/",
            f"/api/players/{attacker.username}/",
            "/api/daily/",
            f"/api/daily/{today}/",
            f"/archive/?month={month}",
            "/archive/",
            "/",
            f"/daily/{today}/",
            f"/daily/{yesterday}/",
        ):
            response = wire.http(f"{who} {path}", client.get(path))
            assert response.status_code == 200, (path, response.content[:300])
            if "calendar" in path:
                calendars[(who, path)] = response.json()

    # The calendars say who played what today, and nothing more: no field to
    # carry a code, and the results are words from a short list.
    theirs = calendars[("attacker", f"/api/players/{player.username}/calendar/")]
    own = calendars[("attacker", f"/api/players/{attacker.username}/calendar/")]
    assert theirs["days"][-1]["results"] == {"SH1-C4": "playing"}
    assert own["days"][-1]["results"] == {"SH1-C4": "resigned"}
    for data in calendars.values():
        assert set(data) == {
            "month",
            "today",
            "player",
            "variants",
            "first",
            "previous",
            "next",
            "days",
        }
        for day in data["days"]:
            assert set(day) == DAY_KEYS
            assert set(day["dailies"]) <= set(ALL_VARIANTS)
            assert set(day["results"]) <= set(ALL_VARIANTS)
            assert set(day["results"].values()) <= RESULTS

    for daily in running:
        wire.assert_never_named(daily)
    # The check sees a code where there is one: yesterday's, revealed.
    revealed = wire.http("yesterday", anon.get(f"/api/daily/{yesterday}/")).content.decode()
    assert past.deal.code in revealed

    # Today's deal is practised by nobody while the day runs: not the attacker who
    # resigned it, with or without its code in hand, nor the player still playing.
    code = running[0].deal.code
    for client in (attacker, player):
        for body in ({"daily": "SH1-C4", "practice": True}, {"code": code}):
            refusal = wire.http("practise today's", client.send("/api/games/", body))
            assert_error(refusal, 409, "daily_running")
    for daily in running:
        wire.assert_never_named(daily)
    # Yesterday's deal, its code now public, is an ordinary practice game.
    old = attacker.send("/api/games/", {"code": past.deal.code})
    assert old.status_code == 201, old.content
    body: dict[str, Any] = old.json()
    assert body["code"] == past.deal.code and body["daily"] is None and body["ranked"] is False
