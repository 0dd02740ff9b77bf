"""The reminder control of the settings dialog (issue 28, deliverable 3), in
headless Chromium against a live daphne that has a VAPID key pair: the email
choice and a local hour saved; the push choice with the browser's permission
refused says so and offers email; without a key pair, the words say push is off.

What this cannot cover: headless Chromium reaches no real push service, so a
granted permission's ``pushManager.subscribe`` and a notification shown from a
real push are not driven here (the server's side of a push — encryption, VAPID,
410s — is tested against a local push service in tests/accounts/test_reminders.py)."""

from __future__ import annotations

import secrets
from collections.abc import Iterator

import pytest

from config.settings import vapid_pair
from deploy.processes import one_daphne
from tests.support.browser import PASSWORD, Server, api, screenshot


def daphne_with(server, tmp_path_factory, **extra: str) -> Iterator[Server]:
    name = f"patience_browser_remind_{secrets.token_hex(4)}"
    env = {**server.env, "DATABASE_URL": f"postgres://postgres@127.0.0.1:5432/{name}", **extra}
    log = tmp_path_factory.mktemp("daphne-remind") / "daphne.log"
    with one_daphne(name, env, log) as port:
        yield Server(f"http://127.0.0.1:{port}", env)


@pytest.fixture(scope="module")
def push_server(server, tmp_path_factory) -> Iterator[Server]:
    """A daphne like ``server`` with a VAPID key pair, on a database of its own."""
    yield from daphne_with(server, tmp_path_factory, **vapid_pair())


@pytest.fixture(scope="module")
def site(push_server) -> str:
    return push_server.url


def signed_up(chromium, site: str, *, width: int = 1366, height: int = 768):
    context = chromium.new_context(
        base_url=site,
        viewport={"width": width, "height": height},
        locale="en-GB",
        timezone_id="Europe/Sofia",
    )
    context.set_default_timeout(10_000)
    page = context.new_page()
    name = f"rem{secrets.token_hex(3)}"
    page.goto("/signup/")
    page.fill("#username", name)
    page.fill("#password", PASSWORD)
    page.click("#auth-submit")
    page.wait_for_selector("#settings-open")
    page.wait_for_function("() => location.pathname === '/'")
    return context, page, name


def test_the_email_choice_and_a_local_hour_are_saved(chromium, push_server):
    context, page, name = signed_up(chromium, push_server.url)
    try:
        page.click("#settings-open")
        page.wait_for_selector("#set-reminder input[value=off]:checked")
        # No confirmed address yet: the server's refusal is shown in words.
        page.check("#set-reminder input[value=email]")
        page.click("#set-reminder-save")
        page.wait_for_selector("#reminder-status:has-text('link')")
        push_server.python(
            "from accounts.models import User\n"
            f"User.objects.filter(username={name!r}).update("
            f"email='{name}@example.org', email_verified=True)"
        )
        page.select_option("#set-reminder-hour", "8")
        page.click("#set-reminder-save")
        page.wait_for_selector("#reminder-status:has-text('Saved')")
        state = api(page, "GET", "/api/reminders/")
        assert (state["channel"], state["hour"], state["timezone"]) == ("email", 8, "Europe/Sofia")
        screenshot(page, "reminder-settings")
        # Opened again, the dialog shows what is stored.
        page.reload()
        page.click("#settings-open")
        page.wait_for_selector("#set-reminder input[value=email]:checked")
        assert page.input_value("#set-reminder-hour") == "8"
    finally:
        context.close()


def test_push_with_the_permission_denied_offers_email(chromium, push_server):
    context, page, _name = signed_up(chromium, push_server.url, width=360, height=740)
    try:
        # Headless Chromium grants no notification permission: the request is refused,
        # as a player's "Block" would be.
        page.click("#settings-open")
        page.check("#set-reminder input[value=push]")
        page.click("#set-reminder-save")
        status = page.wait_for_selector("#reminder-status:has-text('By email')")
        assert "blocked" in status.text_content()
        assert api(page, "GET", "/api/reminders/")["channel"] == "off"
        assert api(page, "GET", "/api/reminders/")["subscriptions"] == []
        # The control is reachable by keyboard on a phone's width.
        page.focus("#set-reminder input[value=email]")
        page.keyboard.press("Space")
        assert page.is_checked("#set-reminder input[value=email]")
        box = page.locator("#set-reminder-save").bounding_box()
        assert box is not None and box["x"] + box["width"] <= 360
    finally:
        context.close()


NOTIFICATIONS = """async () => (await (await navigator.serviceWorker.ready).getNotifications())
    .map((n) => ({title: n.title, body: n.body, tag: n.tag, url: n.data.url}))"""


def test_the_service_worker_shows_a_push_and_keeps_nothing_of_it(chromium, push_server):
    """A push message delivered to the real service worker over the DevTools
    protocol (as a push service would, minus the encryption the browser strips):
    the notification is shown with the server's words and /daily/, and the
    worker's caches gain nothing."""
    context, page, _name = signed_up(chromium, push_server.url)
    try:
        context.grant_permissions(["notifications"], origin=push_server.url)
        page.evaluate("() => navigator.serviceWorker.ready.then(() => true)")
        cdp = context.new_cdp_session(page)
        registrations: list[dict] = []
        cdp.on(
            "ServiceWorker.workerRegistrationUpdated",
            lambda e: registrations.extend(e["registrations"]),
        )
        cdp.send("ServiceWorker.enable")
        for _ in range(50):
            if registrations:
                break
            page.wait_for_timeout(100)
        assert registrations, "no service worker registration reported"
        before = page.evaluate("async () => (await caches.keys()).length")
        payload = (
            '{"title": "Patience Daily", "body": "The daily deals of 5 December 2026 are open.",'
            ' "url": "/daily/", "tag": "daily-2026-12-05"}'
        )
        cdp.send(
            "ServiceWorker.deliverPushMessage",
            {
                "origin": push_server.url,
                "registrationId": registrations[0]["registrationId"],
                "data": payload,
            },
        )
        shown: list = []
        for _ in range(100):  # a bounded wait for the worker's showNotification
            shown = page.evaluate(NOTIFICATIONS)
            if shown:
                break
            page.wait_for_timeout(100)
        assert shown == [
            {
                "title": "Patience Daily",
                "body": "The daily deals of 5 December 2026 are open.",
                "tag": "daily-2026-12-05",
                "url": "/daily/",
            }
        ]
        assert page.evaluate("async () => (await caches.keys()).length") == before
    finally:
        context.close()
