"""Play first, sign up later (issue 24), in a real browser on a phone: a
signed-out visitor sees today's deals and a Play button on the first screen,
plays the daily as a guest, is told at the win that the result is not ranked
yet, signs up from the result card and comes back to it ranked."""

from __future__ import annotations

import re
import secrets

import pytest

from tests.support.browser import PASSWORD, api, post_actions, screenshot, wait_moves

PHONE = {"width": 390, "height": 844}
SIZES = [(360, 640), (390, 844), (640, 360), (844, 390), (1366, 768)]


@pytest.mark.parametrize(("width", "height"), SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_signed_out_the_first_play_is_on_the_first_screen(new_page, width, height):
    """A visitor sees a deal and its Play without scrolling, at every size (issue
    24: at 360x640 a SHA-256 paragraph used to fill the first screen)."""
    page = new_page(width=width, height=height)
    page.goto("/")
    page.wait_for_selector("#deals[aria-busy=false]")
    assert page.evaluate("scrollY") == 0
    box = page.locator(".deal [data-start]").first.bounding_box()
    assert box and box["y"] + box["height"] <= height, (width, height, box)
    assert box["height"] >= 44, box  # a big target
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    screenshot(page, f"guest-lobby-{width}x{height}")


def test_a_visitor_plays_the_daily_as_a_guest_and_signs_up_from_the_result(new_page, server):
    page = new_page(**PHONE)
    page.goto("/")
    page.wait_for_selector("#deals[aria-busy=false]")
    assert page.get_attribute("body", "data-authenticated") == "0"
    play = page.locator('.deal[data-variant="SH1-C4"] [data-start="SH1-C4"]')
    box = page.locator('.deal[data-variant="EH1-N"] [data-start]').bounding_box()
    assert box and box["y"] + box["height"] <= PHONE["height"], box  # the first Play, first screen
    # The fair-play note waits behind its disclosure.
    assert not page.locator("#seal-note").is_visible()
    page.click("#fair-play summary")
    assert "sealed" in page.inner_text("#seal-note")
    screenshot(page, "guest-lobby-390")

    play.click()
    page.wait_for_url(re.compile(r"/play/\d+/$"))
    page.wait_for_selector("#board .pile[data-pile=t1] .card")
    assert page.get_attribute("body", "data-guest") == "1"
    attempt = int(page.url.rstrip("/").split("/")[-1])
    game = api(page, "GET", f"/api/games/{attempt}/")
    assert game["ranked"] is True and game["guest"] is True
    proof = server.daily("SH1-C4")["proof"]
    seq = post_actions(page, attempt, 0, proof[:-1])
    wait_moves(page, len(proof) - 1)
    post_actions(page, attempt, seq, proof[-1:])
    page.wait_for_selector("#win", state="visible", timeout=20_000)
    page.wait_for_selector("#win-claim", state="visible")
    assert page.locator("#win-rank-row").is_hidden()  # not ranked yet
    board = api(page, "GET", f"/api/leaderboard/{game['daily']}/SH1-C4/")
    assert board["me"] is None and game["player"] not in {r["player"] for r in board["results"]}
    screenshot(page, "guest-win-card-390")

    page.click("#win-claim-signup")
    page.wait_for_url(re.compile(r"/signup/"))
    assert page.locator("#auth-guest-note").is_visible()
    name = f"g{secrets.token_hex(4)}"
    page.fill("input[name=username]", name)
    page.fill("input[name=password]", PASSWORD)
    page.click("form button[type=submit]")
    # Back on the game's result, ranked now: the same attempt, on the day's board.
    page.wait_for_url(re.compile(rf"/play/{attempt}/#result$"))
    page.wait_for_selector("#win", state="visible")
    page.wait_for_selector("#win-rank-row", state="visible")
    assert page.locator("#win-claim").is_hidden()
    assert page.get_attribute("body", "data-username") == name
    board = api(page, "GET", f"/api/leaderboard/{game['daily']}/SH1-C4/")
    assert board["me"]["player"] == name and board["me"]["rank"] >= 1
    assert page.inner_text("#win-rank-n").strip() == str(board["me"]["rank"])
    screenshot(page, "guest-claimed-390")


def test_a_visitor_signing_in_to_an_account_that_played_the_daily_is_told_it_stays_unranked(
    new_page, server
):
    """The double claim, as a player meets it: the account already played today's
    Easy Harp daily; the same person plays it again as a guest and signs in."""
    name = f"h{secrets.token_hex(4)}"
    owner = new_page(**PHONE)
    owner.goto("/signup/")
    owner.fill("input[name=username]", name)
    owner.fill("input[name=password]", PASSWORD)
    owner.click("form button[type=submit]")
    owner.wait_for_selector("#deals[aria-busy=false]")
    own = api(owner, "POST", "/api/games/", {"daily": "EH1-N"})

    page = new_page(**PHONE)
    page.goto("/")
    page.wait_for_selector("#deals[aria-busy=false]")
    page.click('[data-start="EH1-N"]')
    page.wait_for_url(re.compile(r"/play/\d+/$"))
    guest_attempt = int(page.url.rstrip("/").split("/")[-1])
    page.goto("/login/?next=/")
    page.fill("input[name=username]", name)
    page.fill("input[name=password]", PASSWORD)
    page.click("form button[type=submit]")
    page.wait_for_selector("#auth-claim", state="visible")
    assert "not ranked" in page.inner_text("#auth-claim-text")
    screenshot(page, "guest-double-claim-390")
    page.click("#auth-continue")
    page.wait_for_selector("#deals[aria-busy=false]")
    mine = api(page, "GET", "/api/daily/")
    entry = next(d for d in mine["deals"] if d["variant"] == "EH1-N")
    assert entry["attempt"] == own["id"] != guest_attempt
