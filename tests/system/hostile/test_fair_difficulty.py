"""Issue 27, "How hard it was", attacked while the day runs (PRODUCT.md, "Fair
daily deals"): the predicted difficulty is published beside the commitment and
derives, in Easy Harp, from cards nobody has seen. Played with several
accounts — one who won, one who resigned at once, one playing, one anonymous —
reading every byte the service sends them:

* no answer or page names the running daily's code or key, a card, or an
  action of the solver's line;
* the predicted block is counts and a level, nothing else, and the same for
  everyone;
* nothing measured opens: every answer says ``measured: null``, the archive's
  month table does not list the day, and the measure job refuses it;
* the live histogram is no more than the public leaderboard: its totals are
  the board's rows counted.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from games import difficulty, tasks
from games.dailies import utc_today
from games.engine.difficulty import LEVELS
from games.models import DailyDeal
from tests.support.api import act, start
from tests.support.difficulty import PREDICTED_KEYS
from tests.support.hidden import Wire, check_cardless, prepared

pytestmark = pytest.mark.django_db


def entry_of(body: dict[str, Any], variant: str) -> dict[str, Any]:
    return next(d for d in body["deals"] if d["variant"] == variant)


def check_predicted(block: dict[str, Any], where: str) -> None:
    """Counts and a level: no string but the level's name, no list, no object."""
    assert set(block) == PREDICTED_KEYS, where
    assert block["name"] in LEVELS, where
    assert type(block["calibrated"]) is bool, where  # the variant's own cuts or not
    for key, value in block.items():
        if key not in ("name", "calibrated"):
            assert type(value) in (int, float), (where, key, value)


def test_nothing_of_a_running_days_difficulty_opens(make_player, anon):
    wire = Wire()
    harp, towers = prepared("EH1-N"), prepared("SH1-C4")
    winner, quitter, playing = make_player(), make_player(), make_player()
    today = utc_today().isoformat()

    # The winner plays the solver's line to a win; the quitter resigns at once;
    # the third is still playing Easy Harp, its hidden cards unseen.
    game = start(winner, daily="SH1-C4")
    for seq, action in enumerate(towers.proof):
        assert act(winner, game["id"], seq, action).status_code == 200
    quit_game = start(quitter, daily="EH1-N")
    wire.http("resign", quitter.send(f"/api/games/{quit_game['id']}/resign/"))
    start(playing, daily="EH1-N")

    seen: dict[str, list[Any]] = {"EH1-N": [], "SH1-C4": []}
    month = today[:7]
    for who, client in (
        ("anonymous", anon),
        ("winner", winner),
        ("quitter", quitter),
        ("playing", playing),
    ):
        for path in ("/api/daily/", f"/api/daily/{today}/"):
            body = wire.http(f"{who} {path}", client.get(path)).json()
            check_cardless(body, f"{who} {path}")
            for variant, blocks in seen.items():
                block = entry_of(body, variant)["difficulty"]
                assert block["measured"] is None, f"{who} {path}: measured while the day runs"
                check_predicted(block["predicted"], f"{who} {path}")
                blocks.append(block)
        table = wire.http(f"{who} table", client.get(f"/api/difficulty/?month={month}")).json()
        assert all(day["date"] < today for day in table["days"]), table
        for path in ("/", f"/daily/{today}/", "/archive/", f"/play/{game['id']}/"):
            wire.http(f"{who} page {path}", client.get(path))

    # The same for everyone, and what was stored at preparation.
    for variant, daily in (("EH1-N", harp), ("SH1-C4", towers)):
        assert all(block == seen[variant][0] for block in seen[variant]), variant
        assert seen[variant][0]["predicted"] == daily.predicted

    # The live histogram is the public board counted: no more, no less.
    board = anon.get(f"/api/leaderboard/{today}/SH1-C4/").json()
    histogram = seen["SH1-C4"][0]["histogram"]
    assert histogram["players"] == board["count"] == 1
    assert histogram["wins"] == sum(r["won"] for r in board["results"])
    assert sum(b["count"] for b in histogram["moves"]) == histogram["wins"]
    harp_histogram = seen["EH1-N"][-1]["histogram"]
    assert (harp_histogram["players"], harp_histogram["resigned"]) == (1, 1)

    # The measure job refuses a running day, whoever queues it.
    for daily in (harp, towers):
        assert tasks.measure_daily_deal.delay(daily.pk).get() is False
        assert difficulty.daily_deal_measure(daily_id=daily.pk) is None
    assert not DailyDeal.objects.filter(date=utc_today(), measured__isnull=False).exists()

    # No byte names the code, and none carries the solver's line.
    wire.assert_never_named(harp)
    wire.assert_never_named(towers)
    for daily in (harp, towers):
        line = json.dumps(daily.proof[:3])[1:-1]
        for where, blob in wire.received:
            if "winner" in where and "/play/" in where:
                continue  # the winner's own game page: their own actions
            assert line.encode() not in blob, f"{where} carries the solver's line"
    assert len(wire.received) == 1 + 4 * 7  # the resignation, then 7 answers each
