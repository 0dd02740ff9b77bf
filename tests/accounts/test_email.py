"""An optional email, verified by a link mailed through a real SMTP server
(issue 28): given at sign-up or in the settings, changed, removed; shown only to
its owner; one account per verified address."""

from __future__ import annotations

import pytest
from django.conf import settings as conf
from django.test import Client as DjangoClient

from accounts.models import User
from deploy.processes import free_port
from tests.support.api import Client, assert_error, put_email, sign_up, throttle_rates
from tests.support.smtp import Mailbox, body, link, link_query, smtp_server  # noqa: F401 (the smtp fixture)

PASSWORD = "correct horse battery"
pytestmark = pytest.mark.django_db(transaction=True)  # mails go after the commit


def verify(client: Client, message) -> dict:
    response = client.send("/api/auth/email/verify/", {"token": link_query(message)["token"]})
    assert response.status_code == 200, response.content
    return response.json()


def test_an_email_given_at_sign_up_is_verified_by_its_link(smtp: Mailbox):
    client = Client()
    response = client.send(
        "/api/auth/register/",
        {"username": "ada", "password": PASSWORD, "email": "Ada@Example.ORG"},
    )
    assert response.status_code == 201, response.content
    assert response.json()["email"] == "Ada@example.org"
    assert response.json()["email_verified"] is False

    message = smtp.wait_for("Ada@example.org")
    assert "ada" in body(message)
    assert link(message).startswith("http://localhost:8000/account/verify/?token=")
    # The link works for anyone holding it, signed in or not (another browser).
    assert verify(Client(), message) == {
        "username": "ada",
        "email": "Ada@example.org",
        "email_verified": True,
    }
    me = client.get("/api/auth/me/").json()
    assert (me["email"], me["email_verified"]) == ("Ada@example.org", True)


def test_set_change_and_remove_in_the_settings(smtp: Mailbox):
    client = sign_up("bea", PASSWORD)
    assert client.get("/api/auth/me/").json()["email"] is None
    response = put_email(client, "bea@example.org")
    assert response.status_code == 200, response.content
    first = smtp.wait_for("bea@example.org")
    verify(client, first)

    # A new address is unverified until its own link is followed; the old link is void.
    changed = put_email(client, "bea2@example.org")
    assert changed.json()["email_verified"] is False
    stale = client.send("/api/auth/email/verify/", {"token": link_query(first)["token"]})
    assert_error(stale, 400, "bad_token")
    verify(client, smtp.wait_for("bea2@example.org"))
    assert client.get("/api/auth/me/").json()["email_verified"] is True

    removed = put_email(client, "")
    assert (removed.json()["email"], removed.json()["email_verified"]) == (None, False)


def test_a_verified_address_belongs_to_one_account(smtp: Mailbox):
    first = sign_up("cat", PASSWORD)
    put_email(first, "same@example.org")
    second = sign_up("dan", PASSWORD)
    # Setting it is not refused: that would tell anyone who uses the address.
    response = put_email(second, "SAME@example.org")
    assert response.status_code == 200, response.content
    verify(first, smtp.wait_for("same@example.org", count=1))
    taken = second.send(
        "/api/auth/email/verify/",
        {"token": link_query(smtp.wait_for("same@example.org", count=2))["token"]},
    )
    assert_error(taken, 409, "email_taken")
    assert User.objects.get(username="dan").email_verified is False


def test_bad_input_is_a_clear_400(smtp: Mailbox):
    client = sign_up("eve", PASSWORD)
    for bad in ("not-an-address", "a@b", 5, None, "x" * 250 + "@example.org"):
        response = put_email(client, bad)
        assert_error(response, 400)
    assert_error(client.put("/api/auth/email/", {}, format="json"), 400)
    assert_error(
        client.send("/api/auth/register/", {"username": "fay", "password": PASSWORD, "email": "x"}),
        400,
        "bad_email",
    )
    assert not User.objects.filter(username="fay").exists()  # nothing made
    for token in ("", "forged", "a" * 600, 7):
        assert_error(client.send("/api/auth/email/verify/", {"token": token}), 400)
    assert smtp.messages == []


def test_only_an_account_has_an_email():
    signed_out = put_email(Client(), "a@example.org")
    assert_error(signed_out, 401, "not_authenticated")
    guest = Client()
    assert guest.send("/api/auth/guest/").status_code == 201
    refused = put_email(guest, "g@example.org")
    assert_error(refused, 403, "account_required")


# --- the link mailed again (issue 28) --------------------------------------------------------

RESEND = "/api/auth/email/verify/resend/"


def test_the_link_is_mailed_again_and_the_new_one_verifies(smtp: Mailbox):
    client = sign_up("gus", PASSWORD)
    put_email(client, "gus@example.org")
    first = smtp.wait_for("gus@example.org", count=1)
    response = client.send(RESEND, None)
    assert response.status_code == 202, response.content
    assert response.json() == {"accepted": True, "email": "gus@example.org"}
    again = smtp.wait_for("gus@example.org", count=2)
    assert link(again).startswith("http://localhost:8000/account/verify/?token=")
    assert "gus" in body(again)
    verify(Client(), again)
    assert User.objects.get(username="gus").email_verified is True
    # Confirmed now: nothing more to send, and the earlier link changes nothing.
    assert_error(client.send(RESEND, None), 409, "email_verified")
    assert verify(Client(), first)["email_verified"] is True
    assert len(smtp.to("gus@example.org")) == 2


def test_no_address_or_no_account_is_a_clear_4xx_and_mails_nothing(smtp: Mailbox):
    client = sign_up("hal", PASSWORD)
    assert_error(client.send(RESEND, None), 400, "no_email")
    assert_error(Client().send(RESEND, None), 401, "not_authenticated")
    guest = Client()
    assert guest.send("/api/auth/guest/").status_code == 201
    assert_error(guest.send(RESEND, None), 403, "account_required")
    assert smtp.messages == []


def test_mailing_again_is_limited_per_player(smtp: Mailbox, settings):
    throttle_rates(settings, **{"email-resend": "2/hour"})
    client, other = sign_up("ida", PASSWORD), sign_up("jon", PASSWORD)
    for who, address in ((client, "ida@example.org"), (other, "jon@example.org")):
        put_email(who, address)
    for _ in range(2):
        assert client.send(RESEND, None).status_code == 202
    assert_error(client.send(RESEND, None), 429)
    smtp.wait_for("ida@example.org", count=3)  # the first mail and two again, no more
    assert other.send(RESEND, None).status_code == 202  # per player, not per address
    smtp.wait_for("jon@example.org", count=2)
    assert len(smtp.to("ida@example.org")) == 3


def test_the_admin_lists_and_filters_by_email_verified():
    User.objects.create_user("kay", password="x", email="kay@example.org", email_verified=True)
    User.objects.create_user("lee", password="x", email="lee@example.org")
    staff = DjangoClient()
    staff.force_login(User.objects.create_superuser("boss", password="correct horse battery"))
    base = f"/{conf.ADMIN_PATH}accounts/user/"
    listing = staff.get(base).content.decode()
    assert "column-email_verified" in listing and "email_verified__exact=1" in listing
    verified = staff.get(base, {"email_verified__exact": "1"}).content.decode()
    assert ">kay<" in verified and ">lee<" not in verified
    unverified = staff.get(base, {"email_verified__exact": "0"}).content.decode()
    assert ">lee<" in unverified and ">kay<" not in unverified


def test_a_mail_server_that_does_not_answer_never_fails_the_change(settings):
    """Tasks run in process (the embedded default): the verification mail goes
    inside the request, after the commit. A mail server that refuses the
    connection is logged; the address is saved and answered, never a 500, and
    the resend is answered the same way."""
    settings.CELERY_TASK_ALWAYS_EAGER = True
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", free_port()  # nothing listens
    settings.EMAIL_USE_TLS, settings.EMAIL_TIMEOUT = False, 2
    client = sign_up("eve", PASSWORD)
    response = put_email(client, "eve@example.org")
    assert response.status_code == 200, response.content
    assert User.objects.get(username="eve").email == "eve@example.org"
    resent = client.send("/api/auth/email/verify/resend/", {})
    assert resent.status_code == 202, resent.content
