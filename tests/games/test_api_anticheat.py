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


def _practice_bodies(variant: str) -> list[dict[str, Any]]:
    """Every way to ask for a practice copy of today's ``variant`` daily: without
    its code, and by its code (an attacker's best case: they know it) in any
    spelling and — ``SH1-C4-X``, ``SH1-C2-X`` and ``SH1-C1-X`` shuffle the same
    cards (engine ``shuffle.py``) — in any cell count."""
    code = daily_code(variant)
    game, _, key = code.split("-")
    bodies: list[dict[str, Any]] = [{"daily": variant, "practice": True}]
    bodies += [{"code": text} for text in (code, code.lower(), f"  {code}  ")]
    bodies += [
        {"code": f"{game}-{cells}-{key}"}
        for cells in ("C4", "C2", "C1")
        if game == "SH1" and f"{game}-{cells}" != variant
    ]
    return bodies


def test_no_practice_copy_of_a_running_daily_for_anyone(make_player):
    """Issue 36, the scout channel: resign the ranked attempt at once (0 actions),
    then ``{"daily": "EH1-N", "practice": true}`` dealt the same cards again, as
    often as wanted, with undo — every hidden card learnt, for a second account
    to play. No practice copy of a running daily is dealt, to anyone (PRODUCT.md,
    anti-cheat): not before the ranked attempt, not after resigning or winning
    it, not to a guest; by no door and no spelling. Each refusal is a 409
    ``daily_running`` saying when the deal opens, names no code, and makes
    nothing; the ranked attempt is untouched."""
    fresh, quitter, winner = make_player(), make_player(), make_player()
    win_daily(winner, "SH1-C4")  # first: the day is prepared proven, as the job does
    guest = Client()
    assert guest.send("/api/auth/guest/").status_code == 201
    for variant in ("EH1-N", "SH1-C4"):
        resign(quitter, start(quitter, daily=variant)["id"])
        resign(guest, start(guest, daily=variant)["id"])
    resign(winner, start(winner, daily="EH1-N")["id"])
    codes = [daily_code(variant) for variant in ("EH1-N", "SH1-C4")]
    for who, client in (
        ("fresh", fresh),
        ("quitter", quitter),
        ("winner", winner),
        ("guest", guest),
    ):
        for variant in ("EH1-N", "SH1-C4"):
            for body in _practice_bodies(variant):
                made = Attempt.objects.count()
                response = client.send("/api/games/", body)
                err = refused(response, 409)
                assert err["code"] == "daily_running", (who, body, err)
                assert "00:00 UTC" in err["message"], err
                text = response.content.decode().upper()
                assert not any(code.upper() in text for code in codes), (who, body)
                assert not any(code.rsplit("-", 1)[1] in text for code in codes), (who, body)
                assert Attempt.objects.count() == made, (who, body)
    # The refusals touched no ranked attempt: the fresh player's is still to start.
    assert not Attempt.objects.filter(player__username=fresh.username).exists()
    ranked = start(fresh, daily="EH1-N")
    assert ranked["ranked"] is True and ranked["seq"] == 0 and ranked["code"] is None
    assert refused(fresh.send("/api/games/", {"daily": "EH1-N", "practice": True}), 409)


def test_a_past_days_daily_deal_opens_for_practice_to_everyone(make_player, anon):
    """Once its day is over a daily's deal is public: its code, revealed by the
    day's page, deals a practice game to anyone — its ranked player, another
    player, a guest — named by its code (PRODUCT.md, "Fair daily deals")."""
    owner, other = make_player(), make_player()
    ranked = start(owner, daily="SH1-C1")
    resign(owner, ranked["id"])
    yesterday = utc_today() - dt.timedelta(days=1)
    DailyDeal.objects.filter(date=utc_today(), variant="SH1-C1").update(date=yesterday)
    day = anon.get(f"/api/daily/{yesterday}/").json()
    code = next(d["code"] for d in day["deals"] if d["variant"] == "SH1-C1")
    guest = Client()
    assert guest.send("/api/auth/guest/").status_code == 201
    for client in (owner, other, guest):
        practice = start(client, code=code)
        assert practice["ranked"] is False and practice["code"] == code
        assert practice["view"]["code"] == code and practice["daily"] is None
        assert practice["view"]["piles"] == new_game(code).view()["piles"]


def test_the_ranked_attempt_cannot_be_restarted(player):
    # 4 cells: a move at the start whatever the day's deal (a 1-cell deal may have none).
    first = start(player, daily="SH1-C4")
    legal = first["view"]["targets"][0]
    move = {"type": "move", "from": legal["from"], "to": legal["to"][0], "count": legal["count"]}
    assert act(player, first["id"], 0, move).status_code == 200
    resign(player, first["id"])
    for _ in range(2):
        again = start(player, status=200, daily="SH1-C4")
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
