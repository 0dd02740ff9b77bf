"""A forgotten password, recovered in a real browser through a real SMTP server
(issue 28): sign up with an email, follow its confirmation link; later, from
the sign-in page, "Forgot your password?", the mail's link, a new password, and
signing in with it — the browser that was signed in before is signed out."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from urllib.parse import urlsplit

import pytest

from deploy.processes import one_daphne
from tests.support.browser import PASSWORD, api, screenshot
from tests.support.smtp import Mailbox, link, smtp_listening

NEW_PASSWORD = "a new horse for the battery"
SITE_URL = "https://patience.example"


@pytest.fixture(scope="module")
def mail_server(server, tmp_path_factory) -> Iterator[tuple[str, Mailbox]]:
    """A daphne like ``server`` (its Redis, its static files) on a database of
    its own, its mail sent to a real SMTP server here."""
    name = f"patience_browser_mail_{secrets.token_hex(4)}"
    with smtp_listening() as (mailbox, port):
        env = {
            **server.env,
            "DATABASE_URL": f"postgres://postgres@127.0.0.1:5432/{name}",
            "EMAIL_BACKEND": "django.core.mail.backends.smtp.EmailBackend",
            "EMAIL_HOST": "127.0.0.1",
            "EMAIL_PORT": str(port),
            "SITE_URL": SITE_URL,
        }
        log = tmp_path_factory.mktemp("daphne-mail") / "daphne.log"
        with one_daphne(name, env, log) as http_port:
            yield f"http://127.0.0.1:{http_port}", mailbox


@pytest.fixture(scope="module")
def site(mail_server) -> str:
    return mail_server[0]


def at(path: str):
    """A URL test: the page's path is ``path`` exactly (``**/`` is any page)."""
    return lambda url: urlsplit(url).path == path


def follow(page, message) -> None:
    """Open the mail's link on this server (the link names SITE_URL)."""
    url = link(message)
    assert url.startswith(f"{SITE_URL}/account/"), url
    parts = urlsplit(url)
    page.goto(f"{parts.path}?{parts.query}")


def through_form(page, path: str, name: str, password: str = PASSWORD, email: str = "") -> None:
    """Sign up (``/signup/``) or in (``/login/``) on ``page`` as a player would."""
    page.goto(path)
    submit_form(page, name, password, email)


def submit_form(page, name: str, password: str, email: str = "") -> None:
    """The sign-up or sign-in form on ``page`` filled and sent: the home page next."""
    page.fill("#username", name)
    page.fill("#password", password)
    if email:
        page.fill("#email", email)
    page.click("#auth-submit")
    page.wait_for_url(at("/"))


def sign_in_after_the_reset(page, name: str) -> None:
    """The reset page's "sign in" link leads to the sign-in page, where the new
    password signs in."""
    page.click("#reset-signin a")
    page.wait_for_url(at("/login/"))
    submit_form(page, name, NEW_PASSWORD)


def test_a_forgotten_password_is_reset_through_the_mail(new_page, mail_server):
    _, mailbox = mail_server
    name, email = f"kim{secrets.token_hex(3)}", f"kim{secrets.token_hex(3)}@example.org"

    page = new_page()
    through_form(page, "/signup/", name, email=email)
    assert api(page, "GET", "/api/auth/me/")["email_verified"] is False

    follow(page, mailbox.wait_for(email))
    page.wait_for_selector(f"#verify-status:has-text('{email}')")
    me = api(page, "GET", "/api/auth/me/")
    assert me["email_verified"] is True, (me, page.inner_text("main"))

    # Another browser forgets the password.
    other = new_page(width=390, height=844)
    other.goto("/login/")
    other.click("#forgot-password")
    other.wait_for_url(at("/account/reset/"))
    other.fill("#reset-target", email)
    other.click("#reset-request-submit")
    other.wait_for_selector("#account-status:has-text('on its way')")
    screenshot(other, "account-reset-request")

    follow(other, mailbox.wait_for(email, count=2))
    other.fill("#new-password", "123")
    other.click("#reset-confirm-submit")
    other.wait_for_selector("#account-error:not(:empty)")  # a weak password, said
    other.fill("#new-password", NEW_PASSWORD)
    other.click("#reset-confirm-submit")
    other.wait_for_selector("#reset-signin:not([hidden])")
    screenshot(other, "account-reset-done")

    # The first browser's session ended with the old password.
    assert api(page, "GET", "/api/auth/me/")["authenticated"] is False

    sign_in_after_the_reset(other, name)
    assert api(other, "GET", "/api/auth/me/")["username"] == name

    # The link works once.
    follow(other, mailbox.wait_for(email, count=2))
    other.fill("#new-password", "yet another fine password")
    other.click("#reset-confirm-submit")
    other.wait_for_selector("#account-error:not(:empty)")
    assert other.locator("#reset-signin").is_hidden()


def test_the_settings_keep_the_account(new_page, mail_server):
    """The settings dialog: an email set and confirmed, the password changed,
    and sign out everywhere ending another browser's session."""
    _, mailbox = mail_server
    name, email = f"lou{secrets.token_hex(3)}", f"lou{secrets.token_hex(3)}@example.org"
    page = new_page()
    through_form(page, "/signup/", name)
    elsewhere = new_page()
    through_form(elsewhere, "/login/", name)

    page.click("#settings-open")
    page.fill("#set-email", email)
    page.click("#set-email-save")  # without the current password (issue 37): refused
    page.wait_for_selector("#account-settings-status:has-text('password')")
    page.fill("#set-old-password", "wrong password")
    page.click("#set-email-save")
    page.wait_for_selector("#account-settings-status:has-text('not right')")
    page.fill("#set-old-password", PASSWORD)
    page.fill("#set-email", "not an address")
    page.click("#set-email-save")
    page.wait_for_selector("#account-settings-status:has-text('not an email')")
    page.fill("#set-email", email)
    page.click("#set-email-save")
    page.wait_for_selector("#set-email-state:has-text('not confirmed')")
    screenshot(page, "account-settings")
    # The first mail lost: "Send the link again" mails a new link, which confirms it.
    mailbox.wait_for(email, count=1)
    page.click("#set-email-resend")
    page.wait_for_selector(f"#account-settings-status:has-text('on its way to {email}')")
    verify = new_page()
    follow(verify, mailbox.wait_for(email, count=2))
    verify.wait_for_selector(f"#verify-status:has-text('{email}')")

    page.reload()
    page.click("#settings-open")
    page.wait_for_selector("#set-email-state:has-text('(confirmed)')")
    assert page.locator("#set-email-resend").is_hidden()  # nothing left to confirm
    page.fill("#set-old-password", "wrong password")
    page.fill("#set-new-password", NEW_PASSWORD)
    page.click("#set-password-save")
    page.wait_for_selector("#account-settings-status:has-text('not right')")
    page.fill("#set-old-password", PASSWORD)
    page.click("#set-password-save")
    page.wait_for_selector("#account-settings-status:has-text('changed')")
    assert api(page, "GET", "/api/auth/me/")["authenticated"] is True
    assert api(elsewhere, "GET", "/api/auth/me/")["authenticated"] is False

    page.click("#signout-everywhere")
    page.wait_for_selector("#signin-link")
    assert api(page, "GET", "/api/auth/me/")["authenticated"] is False


def test_it_wasnt_me_secures_the_account_from_the_notice(new_page, mail_server):
    """Issue 37: an intruder who knew the password moves the email elsewhere;
    the owner's address gets a notice; its link opens a page whose button puts
    the address back, signs every browser out, and leads to choosing a new
    password, which then signs in."""
    _, mailbox = mail_server
    name, email = f"max{secrets.token_hex(3)}", f"max{secrets.token_hex(3)}@example.org"
    page = new_page()
    through_form(page, "/signup/", name, email=email)
    follow(page, mailbox.wait_for(email))
    page.wait_for_selector(f"#verify-status:has-text('{email}')")

    intruder = new_page()
    through_form(intruder, "/login/", name)
    assert "new sign-in" in str(mailbox.wait_for(email, count=2)["Subject"]).lower()
    moved = api(
        intruder, "PUT", "/api/auth/email/", {"email": "eve@evil.example", "password": PASSWORD}
    )
    assert moved["email"] == "eve@evil.example"
    notice = mailbox.wait_for(email, count=3)

    owner = new_page(width=360, height=640)
    follow(owner, notice)
    owner.wait_for_selector("#secure-submit")
    screenshot(owner, "account-secure")
    owner.click("#secure-submit")
    owner.wait_for_url(at("/account/reset/"))
    owner.fill("#new-password", NEW_PASSWORD)
    owner.click("#reset-confirm-submit")
    owner.wait_for_selector("#reset-signin:not([hidden])")
    assert api(intruder, "GET", "/api/auth/me/")["authenticated"] is False

    sign_in_after_the_reset(owner, name)
    me = api(owner, "GET", "/api/auth/me/")
    assert (me["username"], me["email"], me["email_verified"]) == (name, email, True)

    # The link works once: the page says so.
    follow(owner, notice)
    owner.click("#secure-submit")
    owner.wait_for_selector("#account-error:has-text('used already')")
