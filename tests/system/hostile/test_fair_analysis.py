"""Issue 27, deliverable 1, played as an attacker (PRODUCT.md, anti-cheat and
"Fair daily deals"): where a game went wrong is the solver's answer, derived
from every card, so nothing of it opens while the day of its deal runs — not to
the player who lost, not to a winner (whose replays are open), not to a
winner's second account that resigned at once, not to a signed-out visitor.

Today's Seahaven and Easy Harp dailies run. On each a player resigns a game
they played a little (five moves of par), a winner wins with the solver's line, the winner's second
account resigns and asks to practise it (refused since issue 36: it plays a
practice game dealt before that rule instead). The day job is run: it
analyses nothing. An analysis is then stored by hand, as if a job had run
early, and every account asks for every game's analysis and replay page: each
answer is a refusal, and no byte names a running daily's code or one of the
cards hidden from the player. Once the day is over the same requests open, and
the code shows (the check can see it where it is).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from games import tasks
from games.analysis import attempt_analyse, day_attempts_to_analyse
from games.dailies import utc_today
from games.models import Analysis, DailyDeal
from tests.support.api import assert_error, legacy_daily_practice, start, win_daily
from tests.support.hidden import Wire, check_hidden, engine_state, prepared

VARIANTS = ("SH1-C4", "EH1-N")


def test_nothing_of_an_analysis_opens_while_its_day_runs(make_player, anon):
    wire = Wire()
    dailies = [prepared(variant) for variant in VARIANTS]
    loser, winner, second = make_player(), make_player(), make_player()
    games: list[dict[str, Any]] = []
    for daily in dailies:
        variant = daily.variant
        lost = wire.http("loser starts", loser.send("/api/games/", {"daily": variant})).json()
        for seq, action in enumerate((daily.proof or [])[:5]):
            body = {"seq": seq, "action": action}
            wire.http("loser acts", loser.send(f"/api/games/{lost['id']}/actions/", body))
        wire.http("loser resigns", loser.send(f"/api/games/{lost['id']}/resign/"))
        won = win_daily(winner, variant)
        other = start(second, daily=variant)
        wire.http("second resigns", second.send(f"/api/games/{other['id']}/resign/"))
        asked = second.send("/api/games/", {"daily": variant, "practice": True})
        assert_error(wire.http("second practises", asked), 409, "daily_running")
        practice = legacy_daily_practice(second, variant)
        wire.http("practice resigns", second.send(f"/api/games/{practice['id']}/resign/"))
        games += [lost, won, other, practice]

        # The day job finds nothing to do, and a game's own task refuses.
        assert day_attempts_to_analyse(daily_id=daily.pk) == []
        assert tasks.analyse_day(daily.pk) == 0
        assert attempt_analyse(attempt_id=lost["id"]) is None
    assert tasks.after_the_day() == 0
    assert not Analysis.objects.exists()

    # As if a job had run early: stored, still nothing opens.
    for game in games:
        Analysis.objects.create(
            attempt_id=game["id"], index=1, seq=1, continuation=[], settled=True
        )
    viewers = {"loser": loser, "winner": winner, "second": second, "anonymous": anon}
    for who, client in viewers.items():
        for game in games:
            path = f"/api/games/{game['id']}/analysis/"
            response = wire.http(f"{who} {path}", client.get(path))
            if who == "anonymous":
                assert_error(response, (401, 403))
            else:
                assert_error(response, 403, "spoiler")
            check_hidden(response.json(), engine_state(game["id"]), f"{who} {path}")
            page = wire.http(f"{who} page", client.get(f"/replay/{game['id']}/"))
            assert page.status_code in (200, 302)  # signed out: to the sign-in page
    for daily in dailies:
        wire.assert_never_named(daily)

    # The day is over: the same requests open, and the code is there to see.
    Analysis.objects.all().delete()
    yesterday = utc_today() - dt.timedelta(days=1)
    DailyDeal.objects.filter(pk__in=[d.pk for d in dailies]).update(date=yesterday)
    assert tasks.after_the_day() == len(dailies)
    assert Analysis.objects.count() == len(games)
    response = winner.get(f"/api/games/{games[0]['id']}/analysis/")
    assert response.status_code == 200, response.content
    assert dailies[0].deal.code in response.content.decode()
