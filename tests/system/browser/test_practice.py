"""Winnable practice in a real browser (issue 24, deliverable 5): the New game
window offers "New deal" (proven winnable) and "Any deal" (may be impossible);
a lost Seahaven game's dead-end notice offers "Undo to the last position that
could still be won", which undoes, through the ordinary action path, to a
position the solver proves winnable.

The server here starts with an empty practice pool (no beat job has run): its
first New deal is proven by the request itself, as on a fresh machine."""

from __future__ import annotations

import re
from typing import Any

from games.engine import new_game, replay, solve
from games.engine.solver import Outcome
from tests.support.browser import api, post_actions, screenshot, sign_up, start_practice, wait_moves
from tests.support.search import LOSE_CODE, losing_line


def new_game_from_dialog(page: Any, kind: str, cells: str) -> dict[str, Any]:
    page.click("#new-game")
    page.wait_for_selector("#new-game-dialog[open]")
    page.check("input[name=game][value=SH1]")
    page.check(f"input[name=cells][value={cells}]")
    page.check(f"input[name=kind][value={kind}]")
    before = page.url
    page.click("#new-game-start")
    page.wait_for_url(lambda url: url != before and re.search(r"/play/\d+/$", url) is not None)
    page.wait_for_selector("#board .pile[data-pile=t1] .card")
    attempt = int(page.url.rstrip("/").split("/")[-1])
    return api(page, "GET", f"/api/games/{attempt}/")


def test_the_new_game_window_deals_proven_deals_and_offers_any_deal(new_page):
    page = new_page()
    sign_up(page)
    page.click("#new-game")
    page.wait_for_selector("#new-game-dialog[open]")
    proven = page.locator("label:has(input[name=kind][value=random])")
    anyone = page.locator("label:has(input[name=kind][value=any])")
    assert proven.is_visible() and anyone.is_visible()
    assert "proven winnable" in proven.inner_text()
    assert "may be impossible" in anyone.inner_text()
    assert page.is_checked("input[name=kind][value=random]")  # the default
    screenshot(page, "practice-new-game-window")
    page.click("#new-game-cancel")

    game = new_game_from_dialog(page, "random", "C1")
    assert game["proven"] is True and game["variant"] == "SH1-C1"
    assert solve(new_game(game["code"]), nodes=200_000).outcome is Outcome.SOLVED
    game = new_game_from_dialog(page, "any", "C1")
    assert game["proven"] is False and game["variant"] == "SH1-C1"


SIZES = [(360, 640), (390, 844), (640, 360), (844, 390), (1366, 768)]


def test_the_any_deal_choice_is_in_reach_at_every_size(new_page):
    page = new_page(*SIZES[0])
    sign_up(page)
    for width, height in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        page.click("#new-game")
        page.wait_for_selector("#new-game-dialog[open]")
        choice = page.locator("label:has(input[name=kind][value=any])")
        choice.scroll_into_view_if_needed()
        box = choice.bounding_box()
        assert box and box["x"] >= 0 and box["x"] + box["width"] <= width, (width, box)
        assert box["y"] >= 0 and box["y"] + box["height"] <= height, (height, box)
        choice.click()
        assert page.is_checked("input[name=kind][value=any]")
        screenshot(page, f"practice-new-game-window-{width}x{height}")
        page.click("#new-game-cancel")


def test_the_dead_end_notice_undoes_to_the_last_winnable_position(new_page):
    actions, undos = losing_line()
    page = new_page()
    sign_up(page)
    attempt = start_practice(page, LOSE_CODE)
    seq = post_actions(page, attempt, 0, actions)
    page.wait_for_selector("#notice[data-kind=warning] #last-winnable", state="visible")
    screenshot(page, "practice-dead-end-notice")
    moves = api(page, "GET", f"/api/games/{attempt}/")["moves"]
    wait_moves(page, moves)
    page.click("#last-winnable")
    # Each undo is an action of its own; then the position is no dead end any more.
    page.wait_for_function("() => !document.querySelector('#last-winnable')", timeout=30_000)
    game = api(page, "GET", f"/api/games/{attempt}/")
    for _ in range(50):
        if game["seq"] == seq + undos:
            break
        page.wait_for_timeout(200)
        game = api(page, "GET", f"/api/games/{attempt}/")
    assert game["seq"] == seq + undos, game["seq"]
    expected = replay(LOSE_CODE, actions[: len(actions) - undos])
    assert game["view"]["piles"] == expected.view()["piles"]
    assert game["view"]["dead_end"] is False and game["unwinnable"] is False
    assert solve(expected, nodes=300_000).outcome is Outcome.SOLVED
    assert page.locator("#notice").is_hidden()
