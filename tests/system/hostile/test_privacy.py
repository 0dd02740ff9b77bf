"""Issue 28's privacy doors, played as an attacker: the export gives no one
another player's data however it is asked, and nothing of a running daily's
deal even to the player in the middle of it; deleting an account needs that
account's own password, is throttled as a sign-in is, and leaves nothing to
sign in to or to pass for."""

from __future__ import annotations

import json

import pytest

from accounts.models import User
from games.models import Attempt
from tests.support.api import Client, assert_error
from tests.support.hidden import Wire, check_hidden, engine_state, prepared
from tests.support.results import user_of

EXPORT = "/api/auth/export/"
ACCOUNT = "/api/auth/account/"
PASSWORD = "correct horse battery"
pytestmark = pytest.mark.django_db(transaction=True)


def test_no_way_of_asking_exports_another_players_data(make_player, anon):
    victim, attacker = make_player("victim"), make_player("attacker")
    theirs = victim.send("/api/games/", {"random": "SH1-C4"}).json()
    Attempt.objects.filter(pk=theirs["id"]).update(address="198.51.100.23", device="v" * 32)
    victim_id = user_of(victim).pk

    asks = [
        {"user": victim_id},
        {"id": victim_id},
        {"username": "victim"},
        {"player": "victim"},
        {"attempt": theirs["id"]},
    ]
    for query in asks:
        response = attacker.get(EXPORT, query)
        assert response.status_code == 200, response.content
        text = response.content.decode()
        document = json.loads(text)
        assert document["account"]["username"] == "attacker", query
        for secret in ("victim", "198.51.100.23", "v" * 32, f'"id": {theirs["id"]}'):
            assert secret not in text, (query, secret)
    assert_error(attacker.get(f"{EXPORT}{victim_id}/"), 404)
    for method in ("post", "put", "patch", "delete"):
        assert_error(getattr(attacker, method)(EXPORT, {"user": victim_id}, format="json"), 405)
    assert_error(anon.get(EXPORT, {"username": "victim"}), (401, 403))


def test_the_export_names_nothing_of_a_running_daily(make_player):
    daily = prepared("SH1-C4")
    wire = Wire()
    player = make_player()
    game = wire.http("start", player.send("/api/games/", {"daily": "SH1-C4"})).json()
    for seq, action in enumerate(daily.proof[:12]):
        step = player.send(f"/api/games/{game['id']}/actions/", {"seq": seq, "action": action})
        assert step.status_code == 200, step.content
    exported = wire.http("export", player.get(EXPORT))
    wire.assert_never_named(daily)
    body = json.loads(exported.content)
    (attempt,) = body["attempts"]
    assert attempt["deal"] is None and len(attempt["actions"]) == 12
    check_hidden(body, engine_state(game["id"]), "the export")


def test_deleting_needs_the_accounts_own_password_and_is_throttled(make_player):
    victim, attacker = make_player("victim"), make_player("attacker")
    # The victim's password, the victim's name: still only the attacker's own account
    # is in question, and a field the endpoint does not take is refused.
    both = {"password": PASSWORD, "username": "victim"}
    assert_error(attacker.delete(ACCOUNT, both, format="json"), 400)
    assert User.objects.get(username="victim").has_usable_password()
    for _ in range(9):  # with the try above, the sign-in's budget: 10 a minute
        assert_error(attacker.delete(ACCOUNT, {"password": "guess"}, format="json"), 400)
    assert_error(attacker.delete(ACCOUNT, {"password": PASSWORD}, format="json"), 429)
    assert User.objects.get(username="attacker").has_usable_password()
    assert victim.get("/api/auth/me/").json()["username"] == "victim"


def test_deleting_needs_the_csrf_token(player):
    bare = Client()
    bare.cookies = player.cookies
    response = bare.delete(ACCOUNT, {"password": PASSWORD}, format="json", HTTP_X_CSRFTOKEN="x")
    assert_error(response, 403, "csrf_failed")
    assert User.objects.get(username=player.username).has_usable_password()


def test_a_deleted_account_is_nothing_to_sign_in_to_or_to_pass_for(make_player):
    alice = make_player("alice")
    stolen = alice.cookies["sessionid"].value
    assert alice.delete(ACCOUNT, {"password": PASSWORD}, format="json").status_code == 200
    placeholder = User.objects.get(is_active=False).username

    replay = Client()
    replay.cookies["sessionid"] = stolen  # the old session cookie, kept by an attacker
    assert replay.get("/api/auth/me/").json()["authenticated"] is False
    assert_error(replay.get(EXPORT), (401, 403))
    for name in (placeholder, placeholder.upper()):
        login = Client().send("/api/auth/login/", {"username": name, "password": PASSWORD})
        assert_error(login, 400, "bad_credentials")
    # Its placeholder cannot be taken, nor imitated (Cyrillic "е" for "e").
    for name in (placeholder, placeholder.replace("e", "\u0435", 1)):
        taken = Client().send("/api/auth/register/", {"username": name, "password": PASSWORD})
        assert_error(taken, (400, 409))
