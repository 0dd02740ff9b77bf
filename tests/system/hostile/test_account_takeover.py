"""Accounts that stay their owner's (issue 37), attacked end to end through the
API and a real SMTP server: a session borrowed at an unlocked browser cannot move
the account's recovery to another mailbox; an intruder who knows the password
and changes the email, then the password, is undone by the "this wasn't me"
link the owner's address was mailed — which puts the address back, ends every
session, voids the intruder's password and lets the owner choose a new one."""

from __future__ import annotations

import time

import pytest

from accounts.models import User
from tests.support.api import Client, assert_error, put_email, with_verified_email
from tests.support.smtp import Mailbox, body, link, link_query, smtp_server  # noqa: F401 (smtp fixture)

PASSWORD = "correct horse battery"
INTRUDER = "staple battery horse"
OWNER_NEW = "a brand new passphrase"
SECURE = "/api/auth/secure/"
RESET = "/api/auth/password/reset/"
CONFIRM = "/api/auth/password/reset/confirm/"
pytestmark = pytest.mark.django_db(transaction=True)  # mails go after the commit


def borrowed(session: Client) -> Client:
    """Another browser holding the same session cookie: a moment at an unlocked one."""
    thief = Client()
    for name, morsel in session.cookies.items():
        thief.cookies[name] = morsel.value
    return thief


def signed_in_as(client: Client) -> str | None:
    return client.get("/api/auth/me/").json()["username"]


def can_sign_in(name: str, password: str) -> bool:
    response = Client().send("/api/auth/login/", {"username": name, "password": password})
    return response.status_code == 200


def test_a_borrowed_session_cannot_take_the_account(smtp: Mailbox):
    """The takeover of the issue, step by step: change the email to the
    attacker's, verify it, ask for a reset. Each step that needs the account's
    recovery is refused without the password; the reset still goes to the owner."""
    owner = with_verified_email("ada", "ada@example.org", smtp)
    thief = borrowed(owner)
    assert signed_in_as(thief) == "ada"

    # Without the password: the error shape, naming the field; with a guess: refused.
    missing = thief.put("/api/auth/email/", {"email": "eve@evil.example"}, format="json")
    assert_error(missing, 400)
    assert "password" in missing.content.decode()
    assert_error(put_email(thief, "eve@evil.example", "a guess"), 400, "bad_password")
    assert_error(put_email(thief, "", "a guess"), 400, "bad_password")  # nor removed
    assert_error(thief.send("/api/auth/password/", {"old": "x", "new": INTRUDER}), 400)
    ada = User.objects.get(username="ada")
    assert (ada.email, ada.email_verified) == ("ada@example.org", True)
    assert smtp.to("eve@evil.example") == []

    # A reset asked by name goes to the owner's address, as before.
    assert Client().send(RESET, {"username": "ada"}).status_code == 202
    reset = smtp.wait_for("ada@example.org", count=2)
    assert "reset" in link(reset)
    assert smtp.to("eve@evil.example") == []
    assert can_sign_in("ada", PASSWORD)


def test_this_wasnt_me_undoes_an_intruder_who_knew_the_password(smtp: Mailbox):
    owner = with_verified_email("bea", "bea@example.org", smtp)
    intruder = Client()
    assert (
        intruder.send("/api/auth/login/", {"username": "bea", "password": PASSWORD}).status_code
        == 200
    )
    # A browser new to the account: its owner is told, with the link.
    signin_notice = smtp.wait_for("bea@example.org", count=2)
    assert "new sign-in" in str(signin_notice["Subject"]).lower()
    assert link(signin_notice).startswith("http://localhost:8000/account/secure/?token=")

    # The intruder moves the email to their own mailbox and confirms it...
    assert put_email(intruder, "eve@evil.example", PASSWORD).status_code == 200
    notice = smtp.wait_for("bea@example.org", count=3)
    assert "changed" in str(notice["Subject"]).lower()
    text = body(notice)
    assert "e\u2026@evil.example" in text and "eve@evil.example" not in text
    verify = link_query(smtp.wait_for("eve@evil.example"))["token"]
    assert intruder.send("/api/auth/email/verify/", {"token": verify}).status_code == 200
    # ...then changes the password: the notice of that goes to their own address now.
    changed = intruder.send("/api/auth/password/", {"old": PASSWORD, "new": INTRUDER})
    assert changed.status_code == 200, changed.content
    assert "password" in str(smtp.wait_for("eve@evil.example", count=2)["Subject"]).lower()
    assert signed_in_as(owner) is None  # the owner's session ended with the change

    # The owner follows the link of the email change, from any browser.
    token = link_query(notice)["token"]
    secured = Client().send(SECURE, {"token": token})
    assert secured.status_code == 200, secured.content
    answer = secured.json()
    assert answer["username"] == "bea"
    assert (answer["email"], answer["email_verified"]) == ("bea@example.org", True)
    assert signed_in_as(intruder) is None  # every session ended
    assert not can_sign_in("bea", INTRUDER)  # the intruder's password is void
    assert not can_sign_in("bea", PASSWORD)  # and the old one, which they knew

    # The answer's reset sets the owner's new password at once.
    reset = Client().send(
        CONFIRM, {"uid": answer["uid"], "token": answer["token"], "password": OWNER_NEW}
    )
    assert reset.status_code == 200, reset.content
    assert can_sign_in("bea", OWNER_NEW)
    # Resets go to the owner again; the link worked once, and so did the older ones.
    before = len(smtp.to("eve@evil.example"))
    assert Client().send(RESET, {"username": "bea"}).status_code == 202
    assert "reset" in link(smtp.wait_for("bea@example.org", count=5))
    assert len(smtp.to("eve@evil.example")) == before
    assert_error(Client().send(SECURE, {"token": token}), 400, "bad_token")
    assert_error(
        Client().send(SECURE, {"token": link_query(signin_notice)["token"]}), 400, "bad_token"
    )


def test_a_password_change_notice_undoes_the_change(smtp: Mailbox):
    with_verified_email("cat", "cat@example.org", smtp)
    intruder = Client()
    intruder.send("/api/auth/login/", {"username": "cat", "password": PASSWORD})
    assert (
        intruder.send("/api/auth/password/", {"old": PASSWORD, "new": INTRUDER}).status_code == 200
    )
    notice = smtp.wait_for("cat@example.org", count=3)  # verification, sign-in, password
    assert "password" in str(notice["Subject"]).lower()
    secured = Client().send(SECURE, {"token": link_query(notice)["token"]})
    assert secured.status_code == 200, secured.content
    assert signed_in_as(intruder) is None
    assert not can_sign_in("cat", INTRUDER)


def test_a_forged_expired_or_foreign_link_changes_nothing(smtp: Mailbox, settings):
    with_verified_email("dan", "dan@example.org", smtp)
    intruder = Client()
    intruder.send("/api/auth/login/", {"username": "dan", "password": PASSWORD})
    token = link_query(smtp.wait_for("dan@example.org", count=2))["token"]
    for bad in ("", "forged", token[:-1] + ("A" if token[-1] != "A" else "B"), "a" * 600, 7, None):
        assert_error(Client().send(SECURE, {"token": bad}), 400)
    assert_error(Client().send(SECURE, {}), 400)
    settings.ACCOUNT_SECURE_TIMEOUT = 0
    time.sleep(1.1)
    assert_error(Client().send(SECURE, {"token": token}), 400, "bad_token")
    assert signed_in_as(intruder) == "dan" and can_sign_in("dan", PASSWORD)


def test_no_notice_from_the_owners_browser_or_when_turned_off(smtp: Mailbox, settings):
    owner = with_verified_email("eli", "eli@example.org", smtp)
    owner.send("/api/auth/logout/")
    assert (
        owner.send("/api/auth/login/", {"username": "eli", "password": PASSWORD}).status_code == 200
    )
    settings.SIGNIN_NOTICES = False
    assert can_sign_in("eli", PASSWORD)  # a new browser, but notices are off
    settings.SIGNIN_NOTICES = True
    assert can_sign_in("eli", PASSWORD)  # a new browser: one notice
    smtp.wait_for("eli@example.org", count=2)
    time.sleep(0.5)
    assert len(smtp.to("eli@example.org")) == 2  # the verification and that one notice
