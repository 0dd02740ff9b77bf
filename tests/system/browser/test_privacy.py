"""Privacy in real Chromium (issue 28): every page's footer links the privacy
page; a signed-in player downloads their data and deletes their account from
the settings dialog — a wrong password is said and changes nothing, the right
one signs them out, and the name no longer signs in."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from tests.support.a11y import WIDEST, violations
from tests.support.browser import PASSWORD, api, screenshot, sign_up


def open_settings(page: Any) -> None:
    page.click("#settings-open")
    page.locator("#settings-dialog").wait_for(state="visible")


def test_every_page_links_the_privacy_page_which_says_how_long(new_page):
    page = new_page()
    for path in ("/", "/leaderboard/", "/archive/", "/rules/", "/login/"):
        page.goto(path)
        link = page.locator("footer.site-footer a#privacy-link")
        assert link.is_visible(), path
    page.click("#privacy-link")
    page.wait_for_url(lambda url: urlparse(url).path == "/privacy/")
    text = page.locator("#privacy").inner_text()
    assert "90 days after the game started" in text  # ADDRESS_RETENTION_DAYS, as set
    assert "never holds your full network address" in text  # the logs (issue 28)
    assert "Download my data" in text and "Delete my account" in text
    assert "held for 365 days" in text  # DELETED_NAME_HOLD_DAYS (issue 37)
    assert "issued again with the placeholder" in text
    assert page.locator("#privacy-link").get_attribute("aria-current") == "page"
    screenshot(page, "privacy-page")
    # Signed out, the settings dialog links it too (the game pages show no footer).
    open_settings(page)
    assert page.locator("#settings-privacy-link").is_visible()
    assert page.locator("#privacy-section").count() == 0  # no account, no data section


def test_a_player_downloads_their_data_from_the_settings(new_page):
    page = new_page()
    name = sign_up(page)
    open_settings(page)
    with page.expect_download() as info:
        page.click("#privacy-export")
    download = info.value
    assert download.suggested_filename == f"patience-daily-{name}.json"
    document = json.loads(Path(download.path()).read_text())
    assert document["account"]["username"] == name
    assert set(document) >= {"account", "settings", "attempts", "decisions"}


def test_a_player_deletes_their_account_from_the_settings(new_page):
    page = new_page()
    name = sign_up(page)
    open_settings(page)
    page.fill("#privacy-password", "not the password")
    page.click("#privacy-delete-confirm")
    page.wait_for_function(
        "() => document.getElementById('privacy-status').textContent.trim() !== ''"
    )
    assert page.locator("#settings-dialog").is_visible()  # still there, still signed in
    assert api(page, "GET", "/api/auth/me/")["username"] == name
    screenshot(page, "privacy-delete-refused")

    page.fill("#privacy-password", PASSWORD)
    page.press("#privacy-password", "Enter")
    page.wait_for_url(lambda url: urlparse(url).path == "/privacy/")
    assert page.locator("#privacy-deleted").is_visible()
    assert page.locator("body").get_attribute("data-authenticated") == "0"

    page.goto("/login/")
    page.fill("input[name=username]", name)
    page.fill("input[name=password]", PASSWORD)
    page.click("form button[type=submit]")
    page.wait_for_function("() => document.getElementById('auth-error').textContent.trim()")
    assert urlparse(page.url).path == "/login/"
    assert not api(page, "GET", "/api/auth/me/")["authenticated"]


def test_the_page_and_the_data_section_pass_axe_on_a_phone(new_page):
    page = new_page(360, 640)
    page.goto("/privacy/")
    assert violations(page) == [] and page.evaluate(WIDEST) == ""
    sign_up(page)
    open_settings(page)
    assert violations(page) == []
    screenshot(page, "privacy-section-phone")
