"""The auth contract of the HTTP API (PRODUCT.md, "HTTP API" and "Errors"):
me / register / login / logout, CSRF on every unsafe request, case-insensitive
usernames, password rules, login throttling, and anonymous access to games."""

from __future__ import annotations

import pytest
from django.conf import settings
from rest_framework.test import APIClient

from accounts.models import User
from games.models import Action, Attempt
from tests.support.api import DEFAULTS, Client, assert_error, requires_postgres, sign_up_at_once

ME = "/api/auth/me/"
REGISTER = "/api/auth/register/"
LOGIN = "/api/auth/login/"
LOGOUT = "/api/auth/logout/"
PASSWORD = "correct horse battery"


NO_EMAIL = {"email": None, "email_verified": False}  # issue 28
ANONYMOUS = {
    "authenticated": False,
    "username": None,
    "settings": None,
    "guest": False,
    **NO_EMAIL,
}


def signed_in(username: str) -> dict:
    return {
        "authenticated": True,
        "username": username,
        "settings": DEFAULTS,
        "guest": False,
        **NO_EMAIL,
    }


def me(client: APIClient) -> dict:
    response = client.get(ME)
    assert response.status_code == 200, response.content
    return response.json()


# --- me, register, login, logout -------------------------------------------------


def test_me_anonymous_is_200_and_sets_the_csrf_cookie(db):
    client = APIClient()
    response = client.get(ME)
    assert response.status_code == 200
    assert response.json() == ANONYMOUS
    assert response.cookies.get("csrftoken") is not None
    assert response.cookies["csrftoken"].value


def test_register_returns_201_with_me_and_signs_in(anon):
    response = anon.send(REGISTER, {"username": "Alice_1", "password": PASSWORD})
    assert response.status_code == 201, response.content
    assert response.json() == signed_in("Alice_1")
    assert me(anon) == signed_in("Alice_1")
    assert User.objects.filter(username="Alice_1").count() == 1


def test_login_returns_200_with_me_and_logout_signs_out(make_player):
    make_player("bob.smith")
    client = Client()
    assert me(client) == ANONYMOUS
    response = client.send(LOGIN, {"username": "bob.smith", "password": PASSWORD})
    assert response.status_code == 200, response.content
    assert response.json() == signed_in("bob.smith")
    assert me(client) == signed_in("bob.smith")

    out = client.send(LOGOUT)
    assert out.status_code == 200, out.content
    assert out.json() == ANONYMOUS
    assert me(client) == ANONYMOUS
    # Signed out for real: game endpoints now refuse this client.
    assert_error(client.send("/api/games/", {"random": "SH1-C4"}), (401, 403))


def test_logout_after_register_then_login_again(anon):
    assert anon.send(REGISTER, {"username": "carol", "password": PASSWORD}).status_code == 201
    assert anon.send(LOGOUT).status_code == 200
    assert me(anon)["authenticated"] is False
    again = anon.send(LOGIN, {"username": "carol", "password": PASSWORD})
    assert again.status_code == 200, again.content
    assert me(anon) == signed_in("carol")


# --- CSRF ------------------------------------------------------------------------


def no_header_client(*, signed_in_as: str | None = None, cookie: bool = True) -> APIClient:
    """A client that has the csrftoken cookie (and maybe a session) but never
    sends the X-CSRFToken header; with ``cookie=False`` it has no cookie either."""
    client = APIClient(enforce_csrf_checks=True)
    if cookie:
        assert client.get(ME).status_code == 200
        assert client.cookies.get("csrftoken") is not None
    if signed_in_as is not None:
        user = User.objects.get(username=signed_in_as)
        client.force_login(user)
    return client


@pytest.mark.parametrize(
    ("path", "body"),
    [
        (REGISTER, {"username": "mallory", "password": PASSWORD}),
        (LOGIN, {"username": "victim", "password": PASSWORD}),
        (LOGOUT, None),
    ],
)
@pytest.mark.parametrize("cookie", [True, False], ids=["cookie-no-header", "no-cookie"])
def test_csrf_auth_endpoints_refuse_a_request_without_the_header(make_player, path, body, cookie):
    make_player("victim")
    client = no_header_client(cookie=cookie)
    response = client.post(path, body, format="json")
    assert_error(response, 403, "csrf_failed")
    assert not User.objects.filter(username="mallory").exists()
    assert me(client)["authenticated"] is False


def test_csrf_logout_of_a_signed_in_user_is_refused_and_keeps_the_session(make_player):
    make_player("victim")
    client = no_header_client(signed_in_as="victim")
    assert me(client)["authenticated"] is True
    assert_error(client.post(LOGOUT), 403, "csrf_failed")
    assert me(client) == signed_in("victim")


def test_csrf_game_endpoints_refuse_a_signed_in_request_without_the_header(make_player):
    owner = make_player("victim")
    started = owner.send("/api/games/", {"code": "SH1-C4-AAAAAJ2"})
    assert started.status_code == 201, started.content
    attempt = started.json()["id"]

    client = no_header_client(signed_in_as="victim")
    games_before = Attempt.objects.count()
    assert_error(
        client.post("/api/games/", {"random": "SH1-C4"}, format="json"), 403, "csrf_failed"
    )
    assert Attempt.objects.count() == games_before

    move = {"seq": 0, "action": {"type": "move", "from": "t1", "to": "c3"}}
    response = client.post(f"/api/games/{attempt}/actions/", move, format="json")
    assert_error(response, 403, "csrf_failed")
    assert_error(client.post(f"/api/games/{attempt}/resign/"), 403, "csrf_failed")
    stored = Attempt.objects.get(pk=attempt)
    assert stored.seq == 0 and stored.status == "playing"
    assert not Action.objects.filter(attempt=stored).exists()


def test_csrf_a_wrong_token_in_the_header_is_refused(make_player):
    make_player("victim")
    client = no_header_client()
    response = client.post(
        LOGIN,
        {"username": "victim", "password": PASSWORD},
        format="json",
        HTTP_X_CSRFTOKEN="x" * 32,
    )
    assert_error(response, 403, "csrf_failed")
    assert me(client)["authenticated"] is False


# --- usernames and passwords -----------------------------------------------------


def test_usernames_are_unique_whatever_their_case(make_player):
    make_player("Alice")
    other = Client()
    response = other.send(REGISTER, {"username": "alice", "password": PASSWORD})
    assert_error(response, 409, "username_taken")
    response = other.send(REGISTER, {"username": "ALICE", "password": "another fine password"})
    assert_error(response, 409, "username_taken")
    assert User.objects.filter(username__iexact="alice").count() == 1
    assert me(other)["authenticated"] is False


def test_login_with_another_case_finds_the_player(make_player):
    make_player("Alice")
    client = Client()
    response = client.send(LOGIN, {"username": "aLICE", "password": PASSWORD})
    assert response.status_code == 200, response.content
    assert response.json() == signed_in("Alice")


@pytest.mark.parametrize(
    "password",
    [
        pytest.param("short1!", id="too-short"),
        pytest.param("password123", id="too-common"),
        pytest.param("8301947265", id="all-numeric"),
        pytest.param("dora_the_explorer", id="like-the-username"),
    ],
)
def test_weak_passwords_are_refused(anon, password):
    response = anon.send(REGISTER, {"username": "dora_the_explorer", "password": password})
    assert_error(response, 400, "weak_password")
    assert not User.objects.filter(username__iexact="dora_the_explorer").exists()
    assert me(anon)["authenticated"] is False


@pytest.mark.parametrize(
    "username",
    [
        pytest.param("ab", id="too-short"),
        pytest.param("", id="empty"),
        pytest.param("   ", id="only-spaces"),
        pytest.param("x" * 31, id="too-long"),
        pytest.param("two words", id="space"),
        pytest.param("semi;colon", id="semicolon"),
        pytest.param("<script>", id="angle-brackets"),
        pytest.param("tab\tname", id="tab"),
        pytest.param("nul\x00name", id="nul"),
        pytest.param("slash/name", id="slash"),
    ],
)
def test_bad_usernames_are_refused(anon, username):
    before = User.objects.count()
    response = anon.send(REGISTER, {"username": username, "password": PASSWORD})
    error = assert_error(response, 400)
    assert error["code"] in {"bad_username", "invalid"}, error
    if username and username.strip() and "\x00" not in username:
        assert error["code"] == "bad_username", error
    assert User.objects.count() == before


def test_wrong_password_and_unknown_user_are_bad_credentials(make_player):
    make_player("erin")
    client = Client()
    assert_error(
        client.send(LOGIN, {"username": "erin", "password": "not the password"}),
        400,
        "bad_credentials",
    )
    assert_error(
        client.send(LOGIN, {"username": "nobody_here", "password": PASSWORD}),
        400,
        "bad_credentials",
    )
    assert me(client)["authenticated"] is False


@pytest.mark.parametrize(
    "body",
    [
        pytest.param({"username": "erin"}, id="no-password"),
        pytest.param({"password": PASSWORD}, id="no-username"),
        pytest.param({"username": "erin", "password": 12345678}, id="password-int"),
        pytest.param({"username": ["erin"], "password": PASSWORD}, id="username-list"),
        pytest.param({"username": "erin", "password": PASSWORD, "admin": True}, id="extra"),
        pytest.param(["erin", PASSWORD], id="array"),
    ],
)
@pytest.mark.parametrize("path", [REGISTER, LOGIN])
def test_malformed_credentials_are_400(make_player, path, body):
    make_player("erin")
    client = Client()
    before = User.objects.count()
    assert_error(client.send(path, body), 400)
    assert User.objects.count() == before
    assert me(client)["authenticated"] is False


def test_login_with_a_nul_in_the_username_is_a_clean_400(make_player):
    make_player("erin")
    client = Client()
    response = client.send(LOGIN, {"username": "er\x00in", "password": PASSWORD})
    assert_error(response, 400)


# --- concurrency -----------------------------------------------------------------


@requires_postgres
@pytest.mark.django_db(transaction=True)
def test_concurrent_registrations_differing_in_case_make_one_user():
    sent = sign_up_at_once(["Zelda", "zelda"], PASSWORD)
    results = {name: (r.status_code, r.json()) for name, r in sent.items()}
    statuses = sorted(status for status, _ in results.values())
    assert statuses == [201, 409], results
    loser = next(body for status, body in results.values() if status == 409)
    assert loser["error"]["code"] == "username_taken" and loser["error"]["message"]
    assert User.objects.filter(username__iexact="zelda").count() == 1


# --- throttling ------------------------------------------------------------------


def login_rate() -> int:
    rate = settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]["login"]
    number, period = rate.split("/")
    assert period.startswith("m"), rate
    return int(number)


def test_login_is_throttled_per_address(make_player):
    make_player("frank")
    limit = login_rate()
    client = Client()
    for attempt in range(limit):
        response = client.send(LOGIN, {"username": "frank", "password": f"wrong {attempt}"})
        assert_error(response, 400, "bad_credentials")
    # Over the limit: refused even with the right password.
    response = client.send(LOGIN, {"username": "frank", "password": PASSWORD})
    error = assert_error(response, 429, "throttled")
    assert "Retry-After" in response, dict(response.headers)
    assert int(response["Retry-After"]) >= 1
    assert error["message"]
    assert me(client)["authenticated"] is False

    # The same address from another client (a new session) is throttled too.
    other = Client()
    assert_error(other.send(LOGIN, {"username": "frank", "password": PASSWORD}), 429, "throttled")

    # Another address is not.
    elsewhere = Client(REMOTE_ADDR="10.1.2.3")
    response = elsewhere.send(LOGIN, {"username": "frank", "password": PASSWORD})
    assert response.status_code == 200, response.content


# --- anonymous requests to game endpoints ----------------------------------------


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/api/games/", {"random": "SH1-C4"}),
        ("/api/games/1/actions/", {"seq": 0, "action": {"type": "undo"}}),
        ("/api/games/1/resign/", None),
    ],
)
def test_anonymous_requests_to_game_endpoints_are_refused(anon, path, body):
    response = anon.send(path, body)
    assert_error(response, (401, 403))
    assert not Attempt.objects.exists()


def test_anonymous_cannot_act_on_an_existing_game(player, anon):
    started = player.send("/api/games/", {"code": "SH1-C4-AAAAAJ2"})
    attempt = started.json()["id"]
    move = {"seq": 0, "action": {"type": "move", "from": "t1", "to": "c3"}}
    assert_error(anon.send(f"/api/games/{attempt}/actions/", move), (401, 403))
    assert_error(anon.send(f"/api/games/{attempt}/resign/"), (401, 403))
    stored = Attempt.objects.get(pk=attempt)
    assert stored.seq == 0 and stored.status == "playing"
    assert not Action.objects.filter(attempt=stored).exists()


def test_login_throttle_is_not_bypassed_by_a_forged_forwarded_for_header(make_player):
    """One address that sends a different X-Forwarded-For on each request is
    still one address: no proxy is configured, so the header is the client's word."""
    make_player("frank")
    limit = login_rate()
    client = Client()
    statuses = []
    for attempt in range(limit + 3):
        response = client.post(
            LOGIN,
            {"username": "frank", "password": f"wrong {attempt}"},
            format="json",
            HTTP_X_FORWARDED_FOR=f"203.0.113.{attempt + 1}",
        )
        statuses.append(response.status_code)
    assert statuses[:limit] == [400] * limit, statuses
    assert statuses[limit:] == [429] * 3, statuses
