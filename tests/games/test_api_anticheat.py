"""PRODUCT.md "Anti-cheat: the server is the referee", through the HTTP API.

The hidden-information checks compare every response with the engine's full
state of the attempt at that moment (what the server stores): no face-down
card, no stock card and no order of either may show anywhere in a response.
Easy Harp has every card twice, so positions are checked, not just names
(the checker: ``tests/support/hidden.py``).
"""

from __future__ import annotations

import datetime as dt
import functools
import random
from typing import Any

import pytest

from accounts.models import User
from games.dailies import daily_deal_get, daily_deal_prepare, utc_today
from games.engine import encode_deal, new_game
from games.models import Action, Attempt, DailyDeal
from games.services import _create_attempt
from tests.support.api import Client, act, win_daily
from tests.support.api import start as start_game
from tests.support.hidden import (
    CARD,
    check_hidden,
    check_response,
    engine_state,
    hidden_only,
    odd_actions,
)

# --- helpers -------------------------------------------------------------------------------


start = functools.partial(start_game, status=201)  # a new game, unless told


def resign(client: Client, attempt_id: int) -> dict[str, Any]:
    response = client.send(f"/api/games/{attempt_id}/resign/")
    assert response.status_code == 200, response.content
    return response.json()


def refused(response: Any, *statuses: int) -> dict[str, Any]:
    assert response.status_code in statuses, (response.status_code, response.content)
    return response.json()["error"]


def daily_code(variant: str) -> str:
    """Today's daily code, read where only the server has it: the API never sends
    it (PRODUCT.md, fair daily deals). An attacker's best case: they know it."""
    return daily_deal_get(date=utc_today(), variant=variant).deal.code


def check_daily(client: Client, attempt_ids: list[int]) -> None:
    response = client.get("/api/daily/")
    assert response.status_code == 200
    body = response.json()
    for attempt_id in attempt_ids:
        check_hidden(body, engine_state(attempt_id), "daily")


def play_randomly(
    client: Client, attempt: dict[str, Any], rng: random.Random, problems: list[str]
) -> None:
    """15 to 40 accepted random actions (moves from the targets, stock taps,
    undos) mixed with refused ones and reloads; every response is checked."""
    attempt_id = attempt["id"]
    code = attempt["variant"]  # a running daily's code is never sent
    view, seq = attempt["view"], attempt["seq"]
    wanted = rng.randint(15, 40)
    accepted = 0
    for step in range(wanted * 3):
        if accepted >= wanted or attempt["status"] != "playing":
            break
        where = f"{code} #{attempt_id} step {step}"
        roll = rng.random()
        if roll < 0.08:
            response = client.get(f"/api/games/{attempt_id}/")
            body = check_response(response, attempt_id, where + " GET", problems)
            assert response.status_code == 200 and body["seq"] == seq
            continue
        if roll < 0.25:
            action = rng.choice(odd_actions(view, rng))
        elif roll < 0.32 and seq:
            action = {"type": "undo"}
        elif roll < 0.55 and code.startswith("EH1"):
            action = {"type": "stock"}
        elif view["targets"]:
            target = rng.choice(view["targets"])
            action = {
                "type": "move",
                "from": target["from"],
                "to": rng.choice(target["to"]),
                "count": target["count"],
            }
        else:
            action = {"type": "undo"}
        response = act(client, attempt_id, seq, action)
        body = check_response(response, attempt_id, f"{where} {action}", problems)
        if response.status_code == 200:
            assert body["seq"] == seq + 1, where
            view, seq = body["view"], body["seq"]
            attempt = body
            accepted += 1
        else:
            assert response.status_code in (400, 422), (where, action, body)
            assert Attempt.objects.get(pk=attempt_id).seq == seq
    # A stale seq, and a refusal of the replay while playing.
    if attempt["status"] == "playing" and seq:
        response = act(client, attempt_id, seq + 3, {"type": "undo"})
        body = check_response(response, attempt_id, f"{code} future seq", problems)
        assert response.status_code == 409 and body["error"]["seq"] == seq
        response = client.get(f"/api/games/{attempt_id}/replay/")
        check_response(response, attempt_id, f"{code} replay while playing", problems)
        # A running daily's replay is a spoiler first, even to its player (not won yet).
        assert response.status_code == (403 if attempt["code"] is None else 409)


# --- hidden information ----------------------------------------------------------------------


def test_no_response_ever_shows_a_hidden_card(make_player):
    """30 attempts (Easy Harp daily and practice, Seahaven daily and practice),
    15 to 40 random accepted actions each with refusals, undos and reloads."""
    rng = random.Random(20240601)
    sh_variants = ["SH1-C4", "SH1-C2", "SH1-C1"]
    plan: list[tuple[int, dict[str, str]]] = []
    for i in range(5):  # five players: each their Easy Harp daily and one Seahaven daily
        plan += [(i, {"daily": "EH1-N"}), (i, {"daily": sh_variants[i % 3]})]
    for i in range(20):
        if i < 12:
            body = {"random": "EH1-N"} if i % 2 else {"code": f"EH1-N-{encode_deal(777 + i)}"}
        else:
            body = {"random": sh_variants[i % 3]}
        plan.append((i % 5, body))
    players = [make_player() for _ in range(5)]
    problems: list[str] = []
    mine: dict[int, list[int]] = {i: [] for i in range(5)}
    for who, body in plan:
        client = players[who]
        response = client.send("/api/games/", body)
        assert response.status_code == 201, (body, response.content)
        attempt = response.json()
        mine[who].append(attempt["id"])
        check_response(response, attempt["id"], f"start {body}", problems)
        check_daily(client, mine[who])
        play_randomly(client, attempt, rng, problems)
        check_daily(client, mine[who])
    assert Attempt.objects.count() == 30
    assert Action.objects.count() >= 30 * 15
    assert not problems, f"{len(problems)} leaking responses, e.g.:\n" + "\n".join(problems[:5])


def test_refusals_never_name_a_face_down_card(player):
    """A group reaching into face-down cards is refused without naming any of them
    (RULES.md C12 messages name cards; PRODUCT.md: never a face-down card, in any error)."""
    code = "EH1-N-AAAAAAF"
    attempt = start(player, code=code)
    game = new_game(code)
    secret = hidden_only(game)
    leaks = []
    for column in game.columns:
        for count in range(2, len(game.piles[column]) + 1):
            for action in (
                {"type": "double_tap", "from": column, "count": count},
                {"type": "tap", "from": column, "count": count},
                {"type": "move", "from": column, "to": "t1", "count": count},
                {"type": "move", "from": column, "to": "f", "count": count},
            ):
                err = refused(act(player, attempt["id"], 0, action), 422)
                named = set(CARD.findall(err["message"])) & secret
                if named:
                    leaks.append(f"{action} -> {err['message']!r} names face-down {named}")
    assert Attempt.objects.get(pk=attempt["id"]).seq == 0
    assert engine_state(attempt["id"]) == game
    assert not leaks, f"{len(leaks)} refusals name a face-down card, e.g.:\n" + "\n".join(leaks[:3])


# --- other players' games ----------------------------------------------------------------------


def test_another_players_daily_in_progress_is_out_of_reach(make_player, anon):
    owner, other = make_player(), make_player()
    attempt = start(owner, daily="SH1-C4")
    game_url = f"/api/games/{attempt['id']}/"
    legal = attempt["view"]["targets"][0]
    move = {"type": "move", "from": legal["from"], "to": legal["to"][0], "count": legal["count"]}

    assert refused(other.get(game_url), 403)
    assert refused(anon.get(game_url), 401, 403)
    assert refused(other.get(game_url + "replay/"), 403)
    start(other, daily="SH1-C4")  # playing their own is not enough
    assert refused(other.get(game_url), 403)

    for client, statuses in ((other, (403, 404)), (anon, (401, 403))):
        refused(act(client, attempt["id"], 0, move), *statuses)
        refused(client.send(game_url + "resign/"), *statuses)
    row = Attempt.objects.get(pk=attempt["id"])
    assert row.seq == 0 and row.status == "playing"
    assert not Action.objects.filter(attempt=row).exists()
    # The owner, of course, can.
    assert owner.get(game_url).status_code == 200
    assert act(owner, attempt["id"], 0, move).status_code == 200


def test_another_players_practice_cannot_be_played_or_resigned(make_player, anon):
    owner, other = make_player(), make_player()
    attempt = start(owner, code="SH1-C2-AAAAAJ2")
    legal = attempt["view"]["targets"][0]
    move = {"type": "move", "from": legal["from"], "to": legal["to"][0], "count": legal["count"]}
    for client, statuses in ((other, (403, 404)), (anon, (401, 403))):
        refused(act(client, attempt["id"], 0, move), *statuses)
        refused(client.send(f"/api/games/{attempt['id']}/resign/"), *statuses)
    row = Attempt.objects.get(pk=attempt["id"])
    assert row.seq == 0 and row.status == "playing"


def test_todays_daily_replay_only_after_winning_that_daily(make_player, anon):
    """PRODUCT.md, anti-cheat: a running daily's replays are for players who won
    it — not for one who resigned, their own replay included (a second account
    resigning at once would read the whole deal)."""
    daily_deal_prepare(date=utc_today(), variant="SH1-C2")  # proven: it can be won
    owner, other, elsewhere, winner = make_player(), make_player(), make_player(), make_player()
    attempt = start(owner, daily="SH1-C2")
    legal = attempt["view"]["targets"][0]
    move = {"type": "move", "from": legal["from"], "to": legal["to"][0], "count": legal["count"]}
    assert act(owner, attempt["id"], 0, move).status_code == 200
    resign(owner, attempt["id"])
    replay_url = f"/api/games/{attempt['id']}/replay/"

    assert refused(owner.get(replay_url), 403)["code"] == "spoiler"  # resigned: not yet

    assert refused(other.get(replay_url), 403)  # not started
    assert refused(anon.get(replay_url), 401, 403)
    theirs = start(other, daily="SH1-C2")
    assert refused(other.get(replay_url), 403)  # still playing

    # Finishing another variant's daily does not count.
    done = start(elsewhere, daily="SH1-C4")
    resign(elsewhere, done["id"])
    assert refused(elsewhere.get(replay_url), 403)
    assert refused(elsewhere.get(f"/api/games/{attempt['id']}/"), 403)

    resign(other, theirs["id"])  # resigning is not winning
    assert refused(other.get(replay_url), 403)["code"] == "spoiler"

    win_daily(winner, "SH1-C2")
    allowed = winner.get(replay_url)
    assert allowed.status_code == 200
    full = new_game(daily_code("SH1-C2")).view(full=True)
    daily = {"date": utc_today().isoformat(), "variant": "SH1-C2"}
    assert allowed.json()["deal"] == {**full, "code": None, "daily": daily}
    assert allowed.json()["code"] is None
    assert allowed.json()["actions"] == [
        a.action for a in Action.objects.filter(attempt_id=attempt["id"])
    ]


def test_practice_on_todays_daily_deal_waits_for_the_ranked_attempt(make_player):
    me, other = make_player(), make_player()
    code = daily_code("EH1-N")
    for spelling in (code, code.lower(), f"  {code}  "):
        err = refused(me.send("/api/games/", {"code": spelling}), 403)
        assert err["code"] == "daily_not_finished"
    ranked = start(me, daily="EH1-N")
    err = refused(me.send("/api/games/", {"code": code}), 403)
    assert err["code"] == "daily_not_finished"
    resign(me, ranked["id"])

    practice = start(me, code=code)
    # Even a player who knows the key is not told it back.
    assert practice["ranked"] is False and practice["view"]["code"] is None
    assert practice["id"] != ranked["id"]
    # Still refused for a player who has not finished it.
    assert refused(other.send("/api/games/", {"code": code}), 403)["code"] == "daily_not_finished"
    # And their replay stays hidden from them too.
    practice_url = f"/api/games/{practice['id']}/"
    assert refused(other.get(practice_url), 403)


def test_practice_on_todays_daily_deal_with_other_cells_waits_too(make_player):
    """``SH1-C4-X``, ``SH1-C2-X`` and ``SH1-C1-X`` shuffle the same cards (engine
    ``shuffle.py``; C4 and C2 even lay them out identically), so practising a
    sibling code of today's Seahaven daily rehearses that very deal."""
    me = make_player()
    code = daily_code("SH1-C4")
    number = code.rsplit("-", 1)[1]
    daily_layout = new_game(code).view(full=True)["piles"]
    for cells in ("C2", "C1"):
        sibling = f"SH1-{cells}-{number}"
        same = new_game(sibling).view(full=True)["piles"]
        assert same["t1"] == daily_layout["t1"]  # the same deal, fewer cells
        response = me.send("/api/games/", {"code": sibling})
        err = refused(response, 403)
        assert err["code"] == "daily_not_finished", sibling


def test_the_ranked_attempt_cannot_be_restarted(player):
    first = start(player, daily="SH1-C1")
    legal = first["view"]["targets"][0]
    move = {"type": "move", "from": legal["from"], "to": legal["to"][0], "count": legal["count"]}
    assert act(player, first["id"], 0, move).status_code == 200
    resign(player, first["id"])
    for _ in range(2):
        again = start(player, status=200, daily="SH1-C1")
        assert again["id"] == first["id"]
        assert again["status"] == "resigned" and again["seq"] == 1
        assert again["ranked"] is True
    assert Attempt.objects.filter(ranked=True).count() == 1
    assert Attempt.objects.count() == 1
    err = refused(act(player, first["id"], 1, move), 409)
    assert err["code"] == "finished"


def test_a_past_days_finished_replay_is_open_to_every_player(make_player, anon):
    owner, other = make_player(), make_player()
    daily = daily_deal_get(date=utc_today(), variant="SH1-C4")
    row = _create_attempt(
        player=User.objects.get(username=owner.username), deal=daily.deal, daily=daily, ranked=True
    )
    assert row.ranked
    legal = new_game(daily.deal.code).targets_json()[0]
    move = {"type": "move", "from": legal["from"], "to": legal["to"][0], "count": legal["count"]}
    assert act(owner, row.pk, 0, move).status_code == 200
    resign(owner, row.pk)
    # The day goes by.
    DailyDeal.objects.filter(pk=daily.pk).update(date=utc_today() - dt.timedelta(days=1))
    revealed = {"date": str(utc_today() - dt.timedelta(days=1)), "variant": "SH1-C4"}
    for client in (other, owner):
        shown = client.get(f"/api/games/{row.pk}/replay/")
        assert shown.status_code == 200, shown.content
        full = new_game(daily.deal.code).view(full=True)
        assert shown.json()["deal"] == {**full, "daily": revealed}  # the code shown now
        assert shown.json()["code"] == daily.deal.code
        assert len(shown.json()["actions"]) == 1
    refused(anon.get(f"/api/games/{row.pk}/replay/"), 401, 403)  # game endpoints need a sign-in
    # Yesterday's deal may be practised by anyone.
    assert start(other, code=daily.deal.code)["ranked"] is False


@pytest.mark.parametrize("body", [{"random": "EH1-N"}, {"daily": "EH1-N"}])
def test_someone_elses_game_object_is_not_served(make_player, anon, body):
    """PRODUCT.md: someone else's game is 403 or 404, even for a player who has
    finished the same daily; anonymous requests are 401 or 403."""
    owner, other = make_player(), make_player()
    attempt = start(owner, **body)
    if "daily" in body:
        resign(other, start(other, daily="EH1-N")["id"])
    refused(other.get(f"/api/games/{attempt['id']}/"), 403, 404)
    refused(anon.get(f"/api/games/{attempt['id']}/"), 401, 403)
    refused(anon.get("/api/games/999999/"), 401, 403)
