"""A signed-out visitor watches (issue 39): "Live" was a sign-in wall, and a
signed-out race spectator's Replay links led to the sign-in page, though the race
docs open every replay to everyone at the end. Now the visitor opens Live, watches
a game and, once it is over, its replay — as a guest the page makes on the way
(the game socket and every /api/games/ endpoint need a player). At the five sizes."""

from __future__ import annotations

import re

from tests.support.browser import api, post_actions, sign_up

SIZES = [(360, 640), (390, 844), (640, 360), (844, 390), (1280, 800)]
CODE = "SH1-C4-AAAAAAE"
FIRST = [{"type": "move", "from": "t4", "to": "f3", "count": 1}]  # A♦ home
WIDEST = "() => document.documentElement.scrollWidth <= window.innerWidth"


def test_a_signed_out_visitor_watches_live_and_then_the_replay(new_page):
    player = new_page()
    name = sign_up(player)
    game = api(player, "POST", "/api/games/", {"code": CODE})["id"]
    post_actions(player, game, 0, FIRST)
    visitors = [new_page(width=w, height=h) for w, h in SIZES]

    for visitor in visitors:
        visitor.goto("/live/")
        assert "/login/" not in visitor.url
        item = visitor.locator(f'.live-item[data-attempt="{game}"]')
        item.wait_for(timeout=20_000)
        assert name in item.inner_text()
        item.locator("a.button", has_text="Watch").click()
        visitor.wait_for_url(re.compile(rf"/watch/{game}/$"))
        visitor.wait_for_selector("#board .pile[data-pile=f3] .card", timeout=20_000)
        assert visitor.evaluate(WIDEST), visitor.viewport_size

    api(player, "POST", f"/api/games/{game}/resign/", {})
    for visitor in visitors:
        link = visitor.locator("#replay-link")
        link.wait_for(state="visible", timeout=20_000)
        link.click()
        visitor.wait_for_url(re.compile(rf"/replay/{game}/"))
        visitor.wait_for_selector("#board .pile .card", timeout=20_000)
        assert "/login/" not in visitor.url
        assert visitor.locator("#replay-moves li").count() >= 1
        assert visitor.evaluate(WIDEST), visitor.viewport_size
