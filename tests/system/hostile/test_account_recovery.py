"""Attacking password recovery (issue 28), through the API and a real SMTP
server: a reset link works once, for its account only, for an hour; a token
guessed or forged is refused; the request's answer is the same whatever exists
(no account enumeration), and it is rate-limited per address and per account."""

from __future__ import annotations

import datetime as dt

import pytest
from django.contrib.auth.tokens import default_token_generator

from accounts.models import User
from accounts.tokens import reset_uid
from tests.support.api import (
    Client,
    assert_error,
    put_email,
    sign_up,
    throttle_rates,
    with_verified_email,
)
from tests.support.smtp import Mailbox, link, link_query, smtp_server  # noqa: F401 (smtp fixture)

PASSWORD = "correct horse battery"
NEW = "staple battery horse"
RESET = "/api/auth/password/reset/"
CONFIRM = "/api/auth/password/reset/confirm/"
pytestmark = pytest.mark.django_db(transaction=True)  # mails go after the commit


def reset_link(smtp: Mailbox, email: str, *, count: int = 1, **target: str) -> dict[str, str]:
    response = Client().send(RESET, target or {"email": email})
    assert response.status_code == 202, response.content
    return link_query(smtp.wait_for(email, count=count))


def confirm(query: dict[str, str], password: str = NEW):
    body = {"uid": query["uid"], "token": query["token"], "password": password}
    return Client().send(CONFIRM, body)


def can_sign_in(name: str, password: str) -> bool:
    response = Client().send("/api/auth/login/", {"username": name, "password": password})
    return response.status_code == 200


def test_the_reset_flow_end_to_end(smtp: Mailbox):
    old_session = with_verified_email("ada", "ada@example.org", smtp)
    query = reset_link(smtp, "ada@example.org", count=2)
    assert link(smtp.wait_for("ada@example.org", count=2)).startswith(
        "http://localhost:8000/account/reset/?uid="
    )
    response = confirm(query)
    assert response.status_code == 200, response.content
    assert response.json() == {"username": "ada"}
    assert not old_session.get("/api/auth/me/").json()["authenticated"]  # signed out
    assert can_sign_in("ada", NEW)
    assert not can_sign_in("ada", PASSWORD)


def test_by_username_too(smtp: Mailbox):
    with_verified_email("bea", "bea@example.org", smtp)
    query = reset_link(smtp, "bea@example.org", count=2, username="BEA")
    assert confirm(query).status_code == 200
    assert can_sign_in("bea", NEW)


def test_a_token_works_once(smtp: Mailbox):
    with_verified_email("cat", "cat@example.org", smtp)
    query = reset_link(smtp, "cat@example.org", count=2)
    assert confirm(query).status_code == 200
    assert_error(confirm(query, "another fine password"), 400, "bad_token")
    assert can_sign_in("cat", NEW)


def rates(settings, **rates: str) -> None:
    throttle_rates(settings, num_proxies=1, **rates)  # X-Forwarded-For names the client


def test_a_token_guessed_or_forged_is_refused(smtp: Mailbox, settings):
    rates(settings, login="100/min")  # each guess refused for what it is, not for the count
    with_verified_email("dan", "dan@example.org", smtp)
    query = reset_link(smtp, "dan@example.org", count=2)
    stamp, _, mac = query["token"].partition("-")
    forged = [
        "",
        "1-1",
        f"{stamp}-{'0' * len(mac)}",
        f"{stamp}-{mac[:-1]}{'a' if mac[-1] != 'a' else 'b'}",
        f"{'zz'}-{mac}",  # another time, the same mac
        query["token"] + "0",
    ]
    for token in forged:
        assert_error(confirm({"uid": query["uid"], "token": token}), 400)
    for uid in ("", "MQ", "!!!", "A" * 64, "OTk5OTk5OTk5OTk5OTk5OTk5OTk5"):
        assert_error(confirm({"uid": uid, "token": query["token"]}), 400)
    assert can_sign_in("dan", PASSWORD)


def test_a_token_for_another_account_is_refused(smtp: Mailbox):
    with_verified_email("eve", "eve@example.org", smtp)
    sign_up("fay", PASSWORD)
    mine = reset_link(smtp, "eve@example.org", count=2)
    uid = reset_uid(User.objects.get(username="fay"))
    assert_error(confirm({"uid": uid, "token": mine["token"]}), 400, "bad_token")
    assert can_sign_in("fay", PASSWORD)


def test_an_expired_token_is_refused(smtp: Mailbox, monkeypatch, settings):
    with_verified_email("gus", "gus@example.org", smtp)
    query = reset_link(smtp, "gus@example.org", count=2)
    later = dt.datetime.now() + dt.timedelta(seconds=settings.PASSWORD_RESET_TIMEOUT + 60)
    monkeypatch.setattr(default_token_generator, "_now", lambda: later)  # the clock, moved on
    assert_error(confirm(query), 400, "bad_token")
    assert can_sign_in("gus", PASSWORD)


def test_the_answer_is_the_same_whatever_exists(smtp: Mailbox):
    with_verified_email("hal", "hal@example.org", smtp)
    sign_up("ivy", PASSWORD)  # an account without an email
    answers = {
        Client().send(RESET, target).content
        for target in (
            {"email": "hal@example.org"},
            {"email": "nobody@example.org"},
            {"username": "hal"},
            {"username": "ivy"},
            {"username": "nobody"},
        )
    }
    assert len(answers) == 1, answers
    assert len(smtp.to("hal@example.org")) == 3  # the verification, then two resets
    assert len(smtp.messages) == 3


def test_an_unverified_email_receives_no_reset(smtp: Mailbox):
    client = sign_up("jon", PASSWORD)
    put_email(client, "jon@example.org")
    smtp.wait_for("jon@example.org")  # the verification link, not followed
    assert Client().send(RESET, {"email": "jon@example.org"}).status_code == 202
    assert Client().send(RESET, {"username": "jon"}).status_code == 202
    assert len(smtp.to("jon@example.org")) == 1


def test_guessing_tokens_meets_the_sign_in_limit(smtp: Mailbox, settings):
    """A token guessed is a password guessed: the address's sign-in budget."""
    rates(settings, login="10/min")
    with_verified_email("mia", "mia@example.org", smtp)
    query = reset_link(smtp, "mia@example.org", count=2)
    for n in range(10):
        assert_error(confirm({"uid": query["uid"], "token": f"{n}-guess"}), 400, "bad_token")
    assert_error(confirm(query), 429)
    assert User.objects.get(username="mia").check_password(PASSWORD)


def test_requests_are_limited_per_account_and_per_address(smtp: Mailbox, settings):
    rates(settings, **{"password-reset": "5/hour", "password-reset-target": "2/hour"})

    def ask(target: dict, address: str):
        return Client().post(RESET, target, format="json", HTTP_X_FORWARDED_FOR=address)

    # Per account named, from any address, whether or not it exists.
    for name in ("kim", "nobody"):
        assert ask({"username": name}, "10.0.0.1").status_code == 202
        assert ask({"username": name.upper()}, "10.0.0.2").status_code == 202
        assert_error(ask({"username": name}, "10.0.0.3"), 429)
    # Per address, whatever it names.
    for n in range(5):
        assert ask({"email": f"x{n}@example.org"}, "10.0.0.9").status_code == 202
    assert_error(ask({"email": "y@example.org"}, "10.0.0.9"), 429)


def test_bad_requests_are_a_clear_400(smtp: Mailbox):
    for body in ({}, {"email": "a@example.org", "username": "a"}, {"mail": "x"}, [], {"email": 3}):
        assert_error(Client().send(RESET, body), 400)
    for body in ({}, {"uid": "MQ", "token": "x"}, {"uid": 1, "token": "x", "password": NEW}):
        assert_error(Client().send(CONFIRM, body), 400)
    assert smtp.messages == []


def test_a_weak_new_password_keeps_the_token(smtp: Mailbox):
    with_verified_email("lee", "lee@example.org", smtp)
    query = reset_link(smtp, "lee@example.org", count=2)
    assert_error(confirm(query, "123"), 400, "weak_password")
    assert confirm(query).status_code == 200
