"""A player's day, end to end through the HTTP API (with the fair daily deals of
issue 13: the running daily is never named; its replays are for its winners)."""

from games.dailies import commitment, daily_deal_prepare, utc_today
from games.engine import ALL_VARIANTS, Move, load_game, new_game
from games.models import Attempt
from tests.support.api import win_daily


def test_register_play_daily_finish_and_see_leaderboard(player, make_player):
    # Prepared as the job does (proven), so that someone can win it below.
    prepared = daily_deal_prepare(date=utc_today(), variant="SH1-C4")
    # The code of the running daily, read from the database: the API never sends it.
    code = prepared.deal.code

    daily = player.get("/api/daily/").json()
    assert daily["over"] is False
    assert [d["variant"] for d in daily["deals"]] == list(ALL_VARIANTS)
    assert all(d["status"] == "not_started" for d in daily["deals"])
    assert all("code" not in d and "proof" not in d for d in daily["deals"])
    assert daily["deals"][1]["commitment"] == commitment(code)
    assert daily["deals"][1]["par"] == len(prepared.proof)

    started = player.send("/api/games/", {"daily": "SH1-C4"})
    assert started.status_code == 201, started.content
    assert code not in started.content.decode()
    attempt = started.json()
    assert attempt["ranked"] is True and attempt["status"] == "playing" and attempt["seq"] == 0
    assert attempt["code"] is None and attempt["view"]["code"] is None
    assert attempt["view"]["daily"] == {"date": daily["date"], "variant": "SH1-C4"}
    assert Attempt.objects.get(pk=attempt["id"]).deal.code == code

    again = player.send("/api/games/", {"daily": "SH1-C4"})
    assert again.status_code == 200 and again.json()["id"] == attempt["id"]
    assert again.json()["code"] is None

    target = attempt["view"]["targets"][0]
    move = {"type": "move", "from": target["from"], "to": target["to"][0], "count": 1}
    moved = player.send(f"/api/games/{attempt['id']}/actions/", {"seq": 0, "action": move})
    assert moved.status_code == 200, moved.content
    assert moved.json()["seq"] == 1 and moved.json()["moves"] == 1
    assert moved.json()["code"] is None

    stored = Attempt.objects.get(pk=attempt["id"])
    game = load_game(stored.state)
    assert game.history[-1].action == Move(target["from"], target["to"][0])

    resigned = player.send(f"/api/games/{attempt['id']}/resign/")
    assert resigned.status_code == 200 and resigned.json()["status"] == "resigned"

    # Resigning is not winning: while the day runs, not even the player's own replay.
    refused = player.get(f"/api/games/{attempt['id']}/replay/")
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "spoiler"
    mine = {d["variant"]: d for d in player.get("/api/daily/").json()["deals"]}["SH1-C4"]
    assert mine["status"] == "resigned" and mine["replays_open"] is False

    # Another player wins the daily with the solver's line: replays open to them.
    winner = make_player()
    assert win_daily(winner, "SH1-C4")["code"] is None
    assert {d["variant"]: d for d in winner.get("/api/daily/").json()["deals"]}["SH1-C4"][
        "replays_open"
    ] is True

    shown = winner.get(f"/api/games/{attempt['id']}/replay/")
    assert shown.status_code == 200, shown.content
    assert code not in shown.content.decode()
    replay = shown.json()
    assert replay["code"] is None
    assert replay["deal"] == {
        **new_game(code).view(full=True),
        "code": None,
        "daily": {"date": daily["date"], "variant": "SH1-C4"},
    }
    assert replay["actions"] == [game.history[-1].action.to_json()]
    assert len(replay["log"]) == 1

    board = player.get(f"/api/leaderboard/{daily['date']}/SH1-C4/").json()
    assert [r["player"] for r in board["results"]] == [winner.username, player.username]
    assert board["me"]["rank"] == 2
