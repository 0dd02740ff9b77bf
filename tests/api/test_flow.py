"""A player's day, end to end through the HTTP API."""

from games.engine import Move, load_game
from games.models import Attempt


def test_register_play_daily_finish_and_see_leaderboard(player):
    daily = player.get("/api/daily/").json()
    assert [d["variant"] for d in daily["deals"]] == ["EH1-N", "SH1-C4", "SH1-C2", "SH1-C1"]
    assert all(d["status"] == "not_started" for d in daily["deals"])

    started = player.send("/api/games/", {"daily": "SH1-C4"})
    assert started.status_code == 201, started.content
    attempt = started.json()
    assert attempt["ranked"] is True and attempt["status"] == "playing" and attempt["seq"] == 0
    assert attempt["code"] == daily["deals"][1]["code"]

    again = player.send("/api/games/", {"daily": "SH1-C4"})
    assert again.status_code == 200 and again.json()["id"] == attempt["id"]

    target = attempt["view"]["targets"][0]
    move = {"type": "move", "from": target["from"], "to": target["to"][0], "count": 1}
    moved = player.send(f"/api/games/{attempt['id']}/actions/", {"seq": 0, "action": move})
    assert moved.status_code == 200, moved.content
    assert moved.json()["seq"] == 1 and moved.json()["moves"] == 1

    stored = Attempt.objects.get(pk=attempt["id"])
    game = load_game(stored.state)
    assert game.history[-1].action == Move(target["from"], target["to"][0])

    resigned = player.send(f"/api/games/{attempt['id']}/resign/")
    assert resigned.status_code == 200 and resigned.json()["status"] == "resigned"

    replay = player.get(f"/api/games/{attempt['id']}/replay/").json()
    assert replay["actions"] == [game.history[-1].action.to_json()]
    assert len(replay["log"]) == 1

    board = player.get(f"/api/leaderboard/{daily['date']}/SH1-C4/").json()
    assert board["results"][0]["player"] == player.username
    assert board["me"]["rank"] == 1
