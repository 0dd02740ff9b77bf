"""Quick race in real browsers (issue 39, deliverable 4): five players, one at
each of the five sizes, tap Quick race in the lobby and, once the queue's wait
is over (``QUICK_RACE_WAIT``: 10 s on the browser server), all five are on the
board of one started, rated race — titled as the race, its chips counting each
racer's progress. A signed-out visitor is offered an account instead of a seat.
The window fits every screen."""

from __future__ import annotations

from typing import Any

from tests.support.browser import api, screenshot, sign_up

SIZES = [(360, 640), (390, 844), (640, 360), (844, 390), (1280, 800)]

FITS = """(id) => {
  const box = document.getElementById(id).getBoundingClientRect();
  return box.left >= 0 && box.right <= innerWidth + 0.5
    && document.documentElement.scrollWidth <= innerWidth;
}"""


def test_five_players_tap_quick_race_and_race_each_other(new_page):
    pages = [new_page(width=w, height=h) for w, h in SIZES]
    names = [sign_up(page) for page in pages]  # each ends on the lobby
    for page in pages:
        page.click("#quick-race")
        page.wait_for_selector("#quick-dialog[open]")
    for page in pages:
        page.wait_for_selector("#quick-dialog[data-state=waiting]", timeout=10_000)
        assert page.evaluate(FITS, "quick-dialog"), page.viewport_size
        assert "waiting" in page.inner_text("#quick-status").lower()
    screenshot(pages[0], "quick-race-waiting-360")
    slugs = set()
    for page in pages:  # on the race's board: the page the server gives a racer
        page.wait_for_url(lambda url: "/race/" in url, timeout=30_000)
        page.wait_for_selector("#race-strip #race-chips li", timeout=20_000)
        page.wait_for_selector("#board .pile[data-pile=t1] .card")
        title = page.inner_text("#game-title")
        assert "Race" in title and "Practice" not in title, title
        slugs.add(page.url.rstrip("/").rsplit("/", 1)[-1])
    assert len(slugs) == 1, slugs  # one race, all five
    race = api(pages[0], "GET", f"/api/races/{slugs.pop()}/")
    assert race["quick"] is True and race["status"] == "running"
    assert sorted(r["player"] for r in race["racers"]) == sorted(names)
    for page in pages:
        page.wait_for_function(
            "(n) => document.querySelectorAll('#race-chips li').length === n", arg=len(names)
        )
    screenshot(pages[0], "quick-race-board-360")


def test_a_signed_out_visitor_is_offered_an_account_not_a_seat(new_page):
    for width, height in SIZES:
        page = new_page(width=width, height=height)
        asked: list[Any] = []
        page.on(
            "request",
            lambda r, asked=asked: asked.append(r.url) if "/api/races/quick/" in r.url else None,
        )
        page.goto("/")
        page.wait_for_selector("#deals[aria-busy=false]")
        page.click("#quick-race")
        page.wait_for_selector("#quick-signup", state="visible")
        assert page.evaluate(FITS, "quick-dialog"), (width, height)
        assert page.locator("#quick-signup-link").is_visible()
        page.click("#quick-cancel")
        page.wait_for_selector("#quick-dialog", state="hidden")
        assert asked == []  # no seat asked for
