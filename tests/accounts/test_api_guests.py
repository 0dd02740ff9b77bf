"""Play first, sign up later (issue 24, PRODUCT.md anti-cheat): a signed-out
visitor plays as a guest — a player bound to the session, with no password —
practice and today's dailies; a guest's daily result is on no board until an
account claims it by signing up or in from that session, and then it counts
exactly as if the account had played it. Guests are players for every rule:
one ranked attempt per daily, the spoiler rule, the review, rate limits."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from accounts.models import User
from accounts.services import guests_purge
from games.dailies import utc_today
from games.models import Action, Attempt, Review
from tests.support.api import (
    Client,
    assert_error,
    guest,
    legacy_daily_practice,
    throttle_rates,
    win_daily,
)
from tests.support.fairplay import own_address, today_daily

# Transactions commit, so the jobs queued on commit (the check, the review) run.
pytestmark = pytest.mark.django_db(transaction=True)
TODAY = utc_today().isoformat()


def board(client: Client, variant: str) -> dict:
    response = client.get(f"/api/leaderboard/{TODAY}/{variant}/")
    assert response.status_code == 200, response.content
    return response.json()


def resign_daily(client: Client, variant: str) -> dict:
    today_daily(variant)  # proven, as the job prepares it (win_daily needs its proof)
    attempt = client.send("/api/games/", {"daily": variant}).json()
    response = client.send(f"/api/games/{attempt['id']}/resign/", None)
    assert response.status_code == 200, response.content
    return response.json()


def test_a_visitor_plays_as_a_guest_made_once_per_session(anon):
    assert anon.get("/api/auth/me/").json()["guest"] is False
    # Signed out, a game is still refused (the contract): a guest is asked for first.
    assert_error(anon.send("/api/games/", {"random": "SH1-C4"}), (401, 403))
    made = anon.send("/api/auth/guest/", None)
    assert made.status_code == 201, made.content
    me = made.json()
    assert me == {
        "authenticated": False,
        "username": None,
        "settings": None,
        "guest": True,
        "email": None,
        "email_verified": False,
    }
    again = anon.send("/api/auth/guest/", None)
    assert again.status_code == 200 and again.json() == me  # the same guest, nothing made
    assert User.objects.filter(is_guest=True).count() == 1
    assert anon.get("/api/auth/me/").json() == me
    practice = anon.send("/api/games/", {"random": "SH1-C4"})
    assert practice.status_code == 201 and practice.json()["guest"] is True
    daily = anon.send("/api/games/", {"daily": "SH1-C1"}).json()
    assert daily["ranked"] is True and daily["guest"] is True


def test_a_signed_in_player_is_not_made_a_guest(player):
    answer = player.send("/api/auth/guest/", None)
    assert answer.status_code == 200 and answer.json()["authenticated"] is True
    assert answer.json()["guest"] is False
    assert not User.objects.filter(is_guest=True).exists()


def test_a_guests_daily_result_is_on_no_board_and_guests_have_no_page(anon):
    visitor = guest()
    won = win_daily(visitor, "SH1-C4")
    name = won["player"]
    assert name.startswith("guest-")
    seen = board(anon, "SH1-C4")
    assert seen["count"] == 0 and seen["results"] == []
    assert board(visitor, "SH1-C4")["me"] is None  # "not ranked yet"
    assert anon.get(f"/api/players/{name}/").status_code == 404
    assert anon.get(f"/players/{name}/").status_code == 404
    # Like any winner of the day, the guest may watch the day's replays.
    assert visitor.get(f"/api/games/{won['id']}/replay/").status_code == 200


def test_signing_up_claims_the_daily_onto_the_board_as_played(anon):
    visitor = guest()
    won = win_daily(visitor, "SH1-C4")
    before = Attempt.objects.get(pk=won["id"])
    assert before.verified is True and Review.objects.filter(attempt=before).exists()
    practice = visitor.send("/api/games/", {"random": "EH1-N"}).json()

    answer = visitor.send("/api/auth/register/", {"username": "ada", "password": "a long phrase"})
    assert answer.status_code == 201, answer.content
    body = answer.json()
    assert body["authenticated"] is True and body["username"] == "ada" and body["guest"] is False
    assert body["claim"] == {"claimed": sorted([won["id"], practice["id"]]), "kept": []}
    # The same row became the account: its games, clock and check are as they were.
    after = Attempt.objects.get(pk=won["id"])
    assert after.player.username == "ada" and not after.player.is_guest
    assert (after.started_at, after.elapsed_ms, after.verified) == (
        before.started_at,
        before.elapsed_ms,
        before.verified,
    )
    assert Review.objects.filter(attempt=after).exists()
    seen = board(anon, "SH1-C4")
    assert [(r["player"], r["ms"], r["moves"]) for r in seen["results"]] == [
        ("ada", before.elapsed_ms, before.moves)
    ]
    assert board(visitor, "SH1-C4")["me"]["rank"] == 1
    assert visitor.get("/api/games/{}/".format(won["id"])).json()["guest"] is False
    assert anon.get("/api/players/ada/").status_code == 200


def test_signing_in_claims_onto_an_account_with_no_attempt_on_that_daily(make_player, anon):
    ada = make_player("ada", password="a long phrase")
    visitor = guest()
    resigned = resign_daily(visitor, "EH1-N")
    answer = visitor.send("/api/auth/login/", {"username": "ada", "password": "a long phrase"})
    assert answer.status_code == 200, answer.content
    assert answer.json()["claim"] == {"claimed": [resigned["id"]], "kept": []}
    assert Attempt.objects.get(pk=resigned["id"]).player.username == "ada"
    results = board(anon, "EH1-N")["results"]
    assert [(r["player"], r["status"]) for r in results] == [("ada", "resigned")]
    # Claimed, the daily is the account's one attempt: asking again returns it.
    again = ada.send("/api/games/", {"daily": "EH1-N"})
    assert again.status_code == 200 and again.json()["id"] == resigned["id"]
    # The guest is done with: nothing of its session is left.
    assert visitor.get("/api/auth/me/").json()["username"] == "ada"


def test_a_second_claim_of_a_daily_is_refused_and_the_board_keeps_one_result(make_player, anon):
    ada = make_player("ada", password="a long phrase")
    own = resign_daily(ada, "SH1-C4")
    visitor = guest()
    won = win_daily(visitor, "SH1-C4")  # a better result, played as a guest
    practice = legacy_daily_practice(visitor, "SH1-C4")  # as dealt before issue 36
    other = visitor.send("/api/games/", {"random": "SH1-C2"}).json()
    answer = visitor.send("/api/auth/login/", {"username": "ada", "password": "a long phrase"})
    assert answer.status_code == 200, answer.content
    claim = answer.json()["claim"]
    assert claim["claimed"] == [other["id"]]  # the practice of another deal comes along
    assert [(k["attempt"], k["date"], k["variant"]) for k in claim["kept"]] == [
        (won["id"], TODAY, "SH1-C4")
    ]
    assert "one each" in claim["kept"][0]["reason"]
    # The guest's result and its practice of that daily stay the guest's, on no board.
    assert Attempt.objects.get(pk=won["id"]).player.is_guest
    assert Attempt.objects.get(pk=practice["id"]).player.is_guest
    results = board(anon, "SH1-C4")["results"]
    assert [(r["player"], r["status"]) for r in results] == [("ada", "resigned")]
    assert ada.get(f"/api/games/{own['id']}/").json()["id"] == own["id"]
    assert Attempt.objects.filter(player__username="ada", ranked=True).count() == 1


def test_many_guests_are_many_players_for_the_spoiler_rule_and_the_review(anon, settings):
    """An attacker makes guests as scouts: each resigns today's Easy Harp daily at
    once to read the deal from its replay. Each is refused as any player is, and
    the review counts them as accounts sharing one address."""
    today_daily("EH1-N")
    scouts = [guest() for _ in range(settings.FAIRPLAY_SAME_ADDRESS)]
    address = "192.0.2.77"
    ids = []
    for scout in scouts:
        scout.defaults["REMOTE_ADDR"] = address
        resigned = resign_daily(scout, "EH1-N")
        ids.append(resigned["id"])
        error = assert_error(scout.get(f"/api/games/{resigned['id']}/replay/"), 403)
        assert error["code"] == "spoiler", error
        assert board(scout, "EH1-N")["replays_open"] is False
    for attempt_id in ids:
        review = Review.objects.get(attempt_id=attempt_id)
        assert review.flagged, review.reasons
        assert "shared_address" in {r["code"] for r in review.reasons}
    # The scout that signs up takes its flag onto the board's review queue.
    scouts[0].send("/api/auth/register/", {"username": "scout", "password": "a long phrase"})
    review = Review.objects.get(attempt_id=ids[0])
    assert review.attempt.player.username == "scout" and review.flagged


def test_a_claimed_result_is_reviewed_again_as_the_accounts(make_player):
    """Signed in to an account made days ago, the claimed result is reviewed with
    the account's age, not the guest's (which was made today)."""
    make_player("old", password="a long phrase")
    User.objects.filter(username="old").update(date_joined=timezone.now() - dt.timedelta(days=30))
    visitor = guest()
    own_address(visitor)
    won = win_daily(visitor, "SH1-C2")
    assert Review.objects.get(attempt_id=won["id"]).signals["joined_same_day"] is True
    visitor.send("/api/auth/login/", {"username": "old", "password": "a long phrase"})
    signals = Review.objects.get(attempt_id=won["id"]).signals
    assert signals["joined_same_day"] is False
    assert signals["joined"] == (timezone.now() - dt.timedelta(days=30)).date().isoformat()


def test_guests_are_made_within_a_rate_per_address(anon, settings):
    throttle_rates(settings, **{"guests": "2/hour"})
    for _ in range(2):
        assert Client().send("/api/auth/guest/", None).status_code == 201
    refused = Client().send("/api/auth/guest/", None)
    assert_error(refused, 429, "throttled")
    assert int(refused["Retry-After"]) > 60
    assert User.objects.filter(is_guest=True).count() == 2


@pytest.mark.parametrize("name", ["guest-1234", "Guest-ada", "GUEST-x"])
def test_no_account_takes_a_guests_name(anon, name):
    error = assert_error(
        anon.send("/api/auth/register/", {"username": name, "password": "a long phrase"}), 400
    )
    assert error["code"] == "bad_username" and "guests" in error["message"]


def test_a_guest_cannot_be_signed_in_to_by_name(anon):
    visitor = guest()
    name = User.objects.get(is_guest=True).username
    visitor.send("/api/auth/logout/", None)
    for password in ("", "x", "!"):
        answer = anon.send("/api/auth/login/", {"username": name, "password": password or "?"})
        assert_error(answer, 400, "bad_credentials")


def test_idle_guests_are_cleared_with_their_games_and_nothing_else(player):
    idle, busy = guest(), guest()
    idle_game = idle.send("/api/games/", {"random": "EH1-N"}).json()
    idle.send(f"/api/games/{idle_game['id']}/actions/", {"seq": 0, "action": {"type": "stock"}})
    busy_game = busy.send("/api/games/", {"random": "EH1-N"}).json()
    player.send("/api/games/", {"random": "EH1-N"})
    later = timezone.now() + dt.timedelta(days=16)
    # The busy guest played again a day ago; the idle one not since.
    Attempt.objects.filter(pk=busy_game["id"]).update(updated_at=later - dt.timedelta(days=1))
    User.objects.filter(is_guest=False).update(date_joined=timezone.now() - dt.timedelta(days=99))
    assert guests_purge(idle=dt.timedelta(days=15), now=later) == 1
    assert not Attempt.objects.filter(pk=idle_game["id"]).exists()
    assert not Action.objects.filter(attempt_id=idle_game["id"]).exists()
    assert Attempt.objects.filter(pk=busy_game["id"]).exists()
    assert User.objects.filter(is_guest=False).count() == 1  # accounts are never cleared
    assert guests_purge(idle=dt.timedelta(days=15), now=later) == 0  # safe to run twice
