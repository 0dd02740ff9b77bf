"""A player's result, shared (issue 28): ``/r/<game id>/`` read on a 360 px
phone and by keyboard, like the other pages: no axe violation, nothing wider
than the screen, and Tab reaches the day, the board and (for the winner, while
the day runs) the replay."""

from __future__ import annotations

from tests.support.a11y import WIDEST, violations
from tests.support.browser import api, post_actions, screenshot, sign_up


def test_a_shared_result_reads_on_a_phone_and_by_keyboard(new_page, server):
    page = new_page(360, 640)
    name = sign_up(page)
    proof = server.daily("SH1-C4")["proof"]
    game = api(page, "POST", "/api/games/", {"daily": "SH1-C4"})
    post_actions(page, game["id"], 0, proof)
    page.goto(f"/r/{game['id']}/")
    assert page.inner_text("#result-title").startswith(f"{name} on Seahaven Towers")
    assert page.inner_text("#result-line").startswith("Won · score ")
    assert violations(page) == [] and page.evaluate(WIDEST) == ""
    screenshot(page, "result-share-360")
    reached = []
    for _ in range(40):
        page.keyboard.press("Tab")
        focused = page.evaluate("document.activeElement.id")
        if focused.startswith("result-"):
            reached.append(focused)
        if focused == "result-replay":
            break
    assert reached == ["result-day", "result-board", "result-replay"], reached
    page.keyboard.press("Enter")
    page.wait_for_url(f"**/replay/{game['id']}/")
