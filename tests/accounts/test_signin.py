"""Sign-in limited per account as well as per address (issue 25): guesses at one
account from many addresses meet a 429 once the account's budget is spent, before
any password is hashed; other accounts and the owner's known browser go on; the
hashing runs off the thread every other request shares."""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Any, ClassVar

import pytest
from asgiref.sync import sync_to_async
from channels.testing import HttpCommunicator
from django.contrib.auth.hashers import MD5PasswordHasher
from django.test import RequestFactory

from accounts.signin import hashes_password
from tests.support.api import Client, assert_error, throttle_rates

LOGIN = "/api/auth/login/"


class CountingHasher(MD5PasswordHasher):
    """The tests' MD5 hasher, counting every password it hashes."""

    calls: ClassVar[int] = 0

    def encode(self, password: str, salt: str) -> str:
        CountingHasher.calls += 1
        return super().encode(password, salt)


class BlockingHasher(MD5PasswordHasher):
    """Hashes only once ``release`` is set: a sign-in held mid-hash."""

    hashing: ClassVar[threading.Event] = threading.Event()
    release: ClassVar[threading.Event] = threading.Event()

    def encode(self, password: str, salt: str) -> str:
        BlockingHasher.hashing.set()
        BlockingHasher.release.wait(30)
        return super().encode(password, salt)


@pytest.fixture
def rates(settings):
    def set_rates(num_proxies: int = 1, **rates: str) -> None:
        throttle_rates(settings, num_proxies=num_proxies, **rates)

    return set_rates


@pytest.fixture
def counting(settings):
    settings.PASSWORD_HASHERS = ["tests.accounts.test_signin.CountingHasher"]
    CountingHasher.calls = 0
    return CountingHasher


def guess(client: Client, username: str, address: int, password: str = "wrong guess") -> Any:
    return client.post(
        LOGIN,
        {"username": username, "password": password},
        format="json",
        HTTP_X_FORWARDED_FOR=f"198.51.{address // 250}.{address % 250 + 1}",
    )


def locked_by_an_attacker(rates: Any, username: str) -> Client:
    """The account's budget (3 an hour) spent by guesses from six addresses: the
    attacker's next guess, from another address, is throttled. The attacker."""
    rates(**{"login-account": "3/hour"})
    attacker = Client()
    for address in range(6):
        guess(attacker, username, address)
    assert_error(guess(attacker, username, 50), 429, "throttled")
    return attacker


@pytest.mark.django_db
@pytest.mark.parametrize("exists", [True, False])
def test_one_account_guessed_from_many_addresses_is_limited_before_hashing(
    make_player, rates, counting, exists
):
    make_player("victim")
    make_player("bystander")
    rates(login="10/min", **{"login-account": "5/hour"})
    name = "victim" if exists else "nobody-by-that-name"
    attacker = Client()
    statuses = [guess(attacker, name, address).status_code for address in range(5)]
    assert statuses == [400] * 5
    hashed = counting.calls
    assert hashed >= 5  # every guess let through hashed (also at a name nobody has)

    for address in range(5, 40):  # each address well under its own budget
        response = guess(attacker, name.upper(), address)  # another spelling: one budget
        error = assert_error(response, 429, "throttled")
        assert error["params"]["scope"] == "login-account"
        assert error["message"].startswith("Too many sign-in attempts at this account: try again")
        assert 1 <= int(response["Retry-After"]) <= 3601
    assert counting.calls == hashed  # nothing hashed once limited

    # The right password is refused too while the budget is spent: from a new browser.
    assert_error(guess(Client(), name, 99, "correct horse battery"), 429, "throttled")
    # Another account from the same addresses is unaffected.
    response = guess(attacker, "bystander", 7, "correct horse battery")
    assert response.status_code == 200, response.content


@pytest.mark.django_db
def test_the_answer_does_not_say_whether_the_account_exists(make_player, rates):
    make_player("somebody")
    rates(**{"login-account": "2/hour"})
    answers = {}
    for name in ("somebody", "nobody"):
        client = Client()
        got = [guess(client, name, n) for n in range(3)]
        answers[name] = [(r.status_code, json.loads(r.content)["error"]["code"]) for r in got]
        answers[name + " message"] = json.loads(got[-1].content)["error"]["message"][:40]
    assert (
        answers["somebody"]
        == answers["nobody"]
        == [(400, "bad_credentials")] * 2 + [(429, "throttled")]
    )
    assert answers["somebody message"] == answers["nobody message"]


@pytest.mark.django_db
def test_the_owner_signs_in_from_a_known_browser_while_the_account_is_attacked(make_player, rates):
    owner = make_player("owned")  # signed up: not yet a known device
    owner.send("/api/auth/logout/")
    assert (
        owner.send(LOGIN, {"username": "owned", "password": "correct horse battery"}).status_code
        == 200
    )
    known = owner.cookies["known_device"]
    assert known["httponly"] and known["samesite"] == "Lax"
    owner.send("/api/auth/logout/")
    attacker = locked_by_an_attacker(rates, "owned")
    response = guess(owner, "Owned", 60, "correct horse battery")
    assert response.status_code == 200, response.content
    # The cookie is the owner's for that account only, and cannot be forged.
    attacker.cookies["known_device"] = known.value + "x"
    assert_error(guess(attacker, "owned", 61), 429, "throttled")


@pytest.mark.django_db
def test_the_browser_that_signed_up_is_known_to_the_new_account(make_player, rates):
    """Issue 37: a new player targeted by guesses right after signing up is not
    locked out of their own account on the browser they made it with."""
    owner = make_player("newcomer")
    assert "known_device" in owner.cookies
    owner.send("/api/auth/logout/")
    locked_by_an_attacker(rates, "newcomer")
    response = guess(owner, "newcomer", 60, "correct horse battery")
    assert response.status_code == 200, response.content


@pytest.mark.django_db
def test_the_admin_form_shares_the_account_budget(make_player, rates, settings, counting):
    make_player("staffer")
    rates(**{"login-account": "2/hour"})
    api = Client()
    for address in range(2):
        guess(api, "staffer", address)
    hashed = counting.calls
    form = Client()
    response = form.post(
        f"/{settings.ADMIN_PATH}login/",
        {"username": "STAFFER", "password": "guess"},
        HTTP_X_FORWARDED_FOR="203.0.113.9",
    )
    assert_error(response, 429, "throttled")
    assert counting.calls == hashed


async def asgi_request(
    method: str, path: str, body: bytes = b"", headers: list[tuple[bytes, bytes]] | None = None
) -> dict[str, Any]:
    from config.asgi import application

    headers = [
        (b"host", b"localhost"),
        (b"content-length", str(len(body)).encode()),
        *(headers or []),
    ]
    communicator = HttpCommunicator(application, method, path, body=body, headers=headers)
    return await communicator.get_response(timeout=10)


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_a_sign_in_hashing_holds_no_other_request(settings, make_player):
    """Under daphne every request's Django code runs on one shared thread: a
    sign-in held mid-hash there held every other request (here: for ever). Now
    sign-ins hash on threads of their own, and one more than they (and the few
    allowed to wait for them) can take is answered 503 at once, not queued."""
    await sync_to_async(make_player)("hasher")
    settings.PASSWORD_HASHERS = ["tests.accounts.test_signin.BlockingHasher"]
    settings.PASSWORD_HASH_THREADS = 1
    settings.PASSWORD_HASH_WAITING = 0
    BlockingHasher.hashing.clear()
    BlockingHasher.release.clear()
    body = json.dumps({"username": "hasher", "password": "correct horse battery"}).encode()
    me = await asgi_request("GET", "/api/auth/me/")
    cookie = next(v for k, v in me["headers"] if k.lower() == b"set-cookie").split(b";")[0]
    json_type = [
        (b"content-type", b"application/json"),
        (b"cookie", cookie),
        (b"x-csrftoken", cookie.split(b"=", 1)[1]),
    ]
    held = asyncio.ensure_future(asgi_request("POST", LOGIN, body, json_type))
    try:
        assert await asyncio.to_thread(BlockingHasher.hashing.wait, 10)
        me = await asgi_request("GET", "/api/auth/me/")  # answered, not stuck behind the hash
        assert me["status"] == 200
        busy = await asgi_request("POST", LOGIN, body, json_type)
        assert busy["status"] == 503
        assert dict(busy["headers"])[b"Retry-After"] == b"2"
        assert json.loads(busy["body"])["error"]["code"] == "unavailable"
    finally:
        BlockingHasher.release.set()
    assert (await held)["status"] == 200


@pytest.mark.parametrize(
    ("method", "path", "hashes"),
    [
        ("POST", "/api/auth/login/", True),
        ("PUT", "/api/auth/email/", True),  # with the current password (issue 37)
        ("DELETE", "/api/auth/account/", True),  # likewise
        ("GET", "/api/auth/email/", False),
        ("PUT", "/api/auth/settings/", False),
        ("DELETE", "/api/reminders/push/", False),
    ],
)
def test_every_door_that_checks_a_password_hashes_on_the_hashing_threads(method, path, hashes):
    request = RequestFactory().generic(method, path)
    assert hashes_password(request) is hashes
