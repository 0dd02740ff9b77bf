"""A player's own data (issue 28, privacy; accounts/privacy.py, games/privacy.py):
deleting the account anonymises it — the results stay on the boards under a
placeholder no one can sign in to or sign up as — and the export is a download
of everything we hold about the signed-in player, their own only."""

from __future__ import annotations

import datetime as dt
import json

from django.utils import timezone

from accounts.models import HeldName, User
from accounts.names import username_skeleton
from accounts.privacy import account_anonymise
from accounts.tasks import purge_idle_guests
from games.fairplay import attempt_disqualify
from games.models import Action, Attempt, Review
from games.privacy import PURGE_BATCH, PURGED, addresses_purge
from games.tasks import purge_old_addresses
from tests.support.api import DEFAULTS, Client, assert_error, start
from tests.support.fairplay import make_staff
from tests.support.results import daily_of, finished, user_of

ACCOUNT = "/api/auth/account/"
EXPORT = "/api/auth/export/"
PASSWORD = "correct horse battery"


def delete(client: Client, body: object) -> object:
    return client.delete(ACCOUNT, body, format="json")


def board_names(client: Client, date: dt.date, variant: str = "SH1-C4") -> list[str]:
    response = client.get(f"/api/leaderboard/{date.isoformat()}/{variant}/")
    assert response.status_code == 200, response.content
    return [row["player"] for row in response.json()["results"]]


# --- deletion ---------------------------------------------------------------------------------


def test_deleting_needs_the_password(player):
    assert_error(delete(player, {}), 400)
    assert_error(delete(player, {"password": 7}), 400)
    assert_error(delete(player, {"password": "not it"}), 400, "bad_password")
    assert_error(delete(player, {"password": PASSWORD, "extra": 1}), 400)
    assert User.objects.get(username=player.username).has_usable_password()


def test_deleting_keeps_the_results_under_a_placeholder(anon, make_player):
    alice, bob = make_player("alice"), make_player("bob")
    yesterday = daily_of(days_ago=1)
    won = finished(user_of(alice), yesterday, score=500)
    finished(user_of(bob), yesterday, score=400)
    assert board_names(anon, yesterday.date) == ["alice", "bob"]

    response = delete(alice, {"password": PASSWORD})
    assert response.status_code == 200, response.content
    assert response.json()["authenticated"] is False

    (first, second) = board_names(anon, yesterday.date)
    assert first.startswith("deleted-") and second == "bob"
    won.refresh_from_db()
    assert won.player.username == first and won.score == 500  # the result, the row: kept
    gone = User.objects.get(pk=won.player_id)
    assert not gone.has_usable_password() and not gone.is_active and gone.email == ""
    assert gone.username_skeleton is not None


def test_a_deleted_name_cannot_be_signed_in_to(make_player):
    alice = make_player("alice")
    other_browser = Client()
    assert (
        other_browser.send(
            "/api/auth/login/", {"username": "alice", "password": PASSWORD}
        ).status_code
        == 200
    )
    assert delete(alice, {"password": PASSWORD}).status_code == 200
    placeholder = User.objects.get(username__startswith="deleted-").username

    # Every session ended, this one and the other browser's.
    assert not alice.get("/api/auth/me/").json()["authenticated"]
    assert not other_browser.get("/api/auth/me/").json()["authenticated"]
    for name in ("alice", placeholder):
        login = Client().send("/api/auth/login/", {"username": name, "password": PASSWORD})
        assert_error(login, 400, "bad_credentials")
    # No sign-up takes a deleted account's kind of name.
    taken = Client().send("/api/auth/register/", {"username": "Deleted-x1", "password": PASSWORD})
    assert_error(taken, 400, "bad_username")


def test_a_deleted_name_is_held_from_sign_ups_for_the_documented_period(
    anon, make_player, settings
):
    """Issue 37: a second after the deletion the name — or one that looks like
    it — is not registrable, and the old link to the player's page does not
    open a newcomer's; once the hold (``DELETED_NAME_HOLD_DAYS``) is over, it is."""
    alice = make_player("alice")
    finished(user_of(alice), daily_of(days_ago=1))
    assert anon.get("/api/players/alice/").status_code == 200
    hold = dt.timedelta(days=settings.DELETED_NAME_HOLD_DAYS)
    before = timezone.now()
    assert delete(alice, {"password": PASSWORD}).status_code == 200
    # The hold's end, read back (not today's date again: a run across 00:00 UTC).
    until = HeldName.objects.get().until
    assert before + hold <= until <= timezone.now() + hold

    for name in ("alice", "ALICE", "\u0430lice"):  # the Cyrillic а: the same skeleton
        refused = Client().send("/api/auth/register/", {"username": name, "password": PASSWORD})
        error = assert_error(refused, 409, "username_held")
        assert error["params"]["until"] == until.date().isoformat()
    assert_error(anon.get("/api/players/alice/"), 404)
    assert not User.objects.filter(username__iexact="alice").exists()
    assert HeldName.objects.filter(skeleton=username_skeleton("alice")).count() == 1

    # The hold over (the clock moved past it): released by the hourly job, then free.
    HeldName.objects.update(until=timezone.now() - dt.timedelta(seconds=1))
    purge_idle_guests()
    assert not HeldName.objects.exists()
    again = Client().send("/api/auth/register/", {"username": "alice", "password": PASSWORD})
    assert again.status_code == 201, again.content


def test_a_deleted_name_leaves_the_reviews_that_named_it(make_player):
    """Issue 37: other players' reviews name the accounts linked to them (a
    shared address); the deleted player's former name becomes its placeholder
    there, as on the boards — only where it is the whole name."""
    alice, alicea = make_player("alice"), make_player("alicea")
    yesterday = daily_of(days_ago=1)
    finished(user_of(alice), yesterday)
    theirs = finished(user_of(alicea), yesterday)
    Review.objects.create(
        attempt=theirs,
        signals={"address_accounts": ["alice", "alicea"], "linked": [{"player": "alice"}]},
        reasons=[{"code": "shared_address", "text": "played from one address with alice, alicea"}],
        computed_at=timezone.now(),
    )
    assert delete(alice, {"password": PASSWORD}).status_code == 200
    placeholder = User.objects.get(username__startswith="deleted-").username
    review = Review.objects.get(attempt=theirs)
    assert review.signals == {
        "address_accounts": [placeholder, "alicea"],
        "linked": [{"player": placeholder}],
    }
    assert review.reasons[0]["text"] == f"played from one address with {placeholder}, alicea"


def test_deleting_resets_the_settings(player):
    changed = player.patch("/api/auth/settings/", {"theme": "dark", "deck": "four"}, format="json")
    assert changed.status_code == 200, changed.content
    assert delete(player, {"password": PASSWORD}).status_code == 200
    gone = User.objects.get(username__startswith="deleted-")
    assert {name: getattr(gone, name) for name in DEFAULTS} == DEFAULTS


def test_a_guest_or_a_visitor_has_no_account_to_delete(anon):
    assert_error(delete(anon, {"password": PASSWORD}), (401, 403))
    assert anon.send("/api/auth/guest/", None).status_code == 201
    assert_error(delete(anon, {"password": "x"}), 403, "account_required")


def test_anonymising_twice_is_harmless(player):
    user = user_of(player)
    first = account_anonymise(user=user)
    second = account_anonymise(user=first)
    assert second.username.startswith("deleted-") and User.objects.filter(pk=user.pk).exists()


def test_staff_decisions_on_the_results_stay(make_player):
    alice = make_player("alice")
    attempt = finished(user_of(alice), daily_of(days_ago=1))
    staff = make_staff()
    attempt_disqualify(attempt_id=attempt.pk, staff=staff, reason="a scout's line")
    assert delete(alice, {"password": PASSWORD}).status_code == 200
    review = Review.objects.get(attempt=attempt)
    assert review.decision == "disqualified" and review.decisions.count() == 1


# --- export -----------------------------------------------------------------------------------


def export(client: Client) -> dict:
    response = client.get(EXPORT)
    assert response.status_code == 200, response.content
    assert response["Content-Disposition"].startswith("attachment; filename=")
    assert response["Content-Type"].startswith("application/json")
    return json.loads(response.content)


def test_the_export_holds_the_account_settings_and_games(player):
    practice = start(player, random="SH1-C4")
    Attempt.objects.filter(pk=practice["id"]).update(address="192.0.2.9", device="d" * 32)
    daily = daily_of()
    running = finished(user_of(player), daily)
    document = export(player)
    sections = {
        "version",
        "exported_at",
        "account",
        "settings",
        "reminders",
        "attempts",
        "decisions",
        "clubs",  # issue 29: clubs/services.py
        "following",
        "races",  # issue 29: races/selectors.py
        "race_invites",
        "race_rating",  # issue 29: leaderboard/ratings.py
    }
    assert set(document) == sections
    assert document["account"]["username"] == player.username
    assert "password" not in json.dumps(document["account"])
    assert document["settings"] == DEFAULTS
    games = {a["id"]: a for a in document["attempts"]}
    assert games[practice["id"]]["address"] == "192.0.2.9"
    assert games[practice["id"]]["device"] == "d" * 32
    assert games[practice["id"]]["deal"]  # a numbered deal is public
    # Today's daily is running: nothing of its deal, though the game is the player's.
    assert games[running.pk]["deal"] is None
    assert games[running.pk]["daily"] == daily.date.isoformat()
    assert daily.deal.code not in json.dumps(document)
    assert "state" not in json.dumps(document)


def test_the_export_carries_the_actions_sent(player):
    game = start(player, random="SH1-C4")
    legal = player.get(f"/api/games/{game['id']}/").json()
    assert legal["id"] == game["id"]
    Action.objects.create(
        attempt_id=game["id"],
        seq=0,
        month=Attempt.objects.get(pk=game["id"]).started_at.date().replace(day=1),
        sent={"type": "undo"},
        action={"type": "undo"},
        ms=1200,
        score=0,
        moves=0,
    )
    (attempt,) = export(player)["attempts"]
    assert attempt["actions"] == [{"seq": 0, "sent": {"type": "undo"}, "ms": 1200}]


def test_the_export_names_staff_decisions_not_staff(make_player):
    alice = make_player("alice")
    attempt = finished(user_of(alice), daily_of(days_ago=1))
    attempt_disqualify(attempt_id=attempt.pk, staff=make_staff("refereeone"), reason="scouted")
    (decision,) = export(alice)["decisions"]
    assert decision["attempt"] == attempt.pk and decision["decision"] == "disqualified"
    assert decision["reason"] == "scouted"
    assert "refereeone" not in json.dumps(export(alice))


def test_a_visitor_or_guest_exports_nothing(anon):
    assert_error(anon.get(EXPORT), (401, 403))
    assert anon.send("/api/auth/guest/", None).status_code == 201
    assert_error(anon.get(EXPORT), 403, "account_required")


# --- the retention of client addresses ---------------------------------------------------------


def old_attempt(user: User, days: int, address: str = "192.0.2.7") -> Attempt:
    attempt = finished(user, daily_of(days_ago=days))
    Attempt.objects.filter(pk=attempt.pk).update(
        address=address, device="e" * 32, started_at=timezone.now() - dt.timedelta(days=days)
    )
    return attempt


def reviewed(attempt: Attempt, address: str) -> Review:
    return Review.objects.create(
        attempt=attempt,
        signals={"address": address, "same_address_accounts": 4, "device_accounts": []},
        flagged=True,
        reasons=[
            {"code": "shared_address", "text": f"4 accounts played this daily from {address}"}
        ],
        score=3,
        computed_at=timezone.now(),
    )


def test_addresses_older_than_the_retention_are_purged(player, settings):
    settings.ADDRESS_RETENTION_DAYS = 90
    user = user_of(player)
    old = old_attempt(user, 91)
    recent = old_attempt(user, 89, address="192.0.2.8")
    review = reviewed(old, "192.0.2.7")
    kept = reviewed(recent, "192.0.2.8")

    assert purge_old_addresses() == 1
    old.refresh_from_db()
    assert (old.address, old.device) == (None, "")
    review.refresh_from_db()
    assert review.signals == {"address": None, "same_address_accounts": 4, "device_accounts": []}
    assert review.reasons == [
        {"code": "shared_address", "text": f"4 accounts played this daily from {PURGED}"}
    ]
    assert review.flagged and review.score == 3  # what staff need stays
    recent.refresh_from_db()
    assert (recent.address, recent.device) == ("192.0.2.8", "e" * 32)
    kept.refresh_from_db()
    assert kept.signals["address"] == "192.0.2.8"
    assert purge_old_addresses() == 0  # safe to run twice


def test_the_purge_takes_a_batch_a_run(player, monkeypatch):
    monkeypatch.setattr("games.privacy.PURGE_BATCH", 2)
    user = user_of(player)
    for days in (100, 101, 102):
        old_attempt(user, days)
    older = dt.timedelta(days=90)
    assert addresses_purge(older_than=older) == 2
    assert addresses_purge(older_than=older) == 1
    assert not Attempt.objects.exclude(address=None).exists()
    assert PURGE_BATCH >= 100


def test_a_verified_email_is_exported_and_goes_with_the_account(player):
    User.objects.filter(username=player.username).update(
        email="keeper@example.org", email_verified=True
    )
    account = export(player)["account"]
    assert (account["email"], account["email_verified"]) == ("keeper@example.org", True)
    assert delete(player, {"password": PASSWORD}).status_code == 200
    gone = User.objects.get(email="", username__startswith="deleted-")
    assert gone.email_verified is False
    # The address is free again: another account may verify it.
    other = User.objects.create(username="next-owner", email="KEEPER@example.org")
    User.objects.filter(pk=other.pk).update(email_verified=True)
